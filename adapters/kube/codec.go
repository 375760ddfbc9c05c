package kube

import (
	"errors"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/jsonparse"
)

// Decoding of API responses and watch events in one pass.
//
// client-go's dynamic client decodes a response body four times over (the
// apiVersion and kind are looked up by decoding into a struct, the body is
// validated, then validated and decoded again into a map through
// Unstructured's UnmarshalJSON), and a watch event twice more (the framer
// scans it twice, then the envelope is decoded, copying the object's
// bytes, before the object is). With thousands of writes and watch events a
// second that was a sixth of the controller's CPU. The dynamic clients of a
// Client use a serializer that decodes those bodies straight into the maps
// the dynamic client would have produced (the same values: integers without
// a '.' that fit in an int64 as int64, other numbers as float64, the same
// string unescaping and replacement of invalid UTF-8), and hands everything
// else, including every body it does not decode exactly like client-go
// would (malformed JSON, typed objects such as Status, a missing kind), to
// client-go's own serializer.

// newDynamic returns a dynamic client for cfg that decodes with fastDecoder,
// leaving out every object's metadata.managedFields when dropManagedFields.
func newDynamic(cfg *rest.Config, dropManagedFields bool) (dynamic.Interface, error) {
	d, _, err := newConn(cfg, dropManagedFields)
	return d, err
}

// newConn is newDynamic, with the REST client under the dynamic client
// (deletes use it: the dynamic client drops the object a delete answers
// with).
func newConn(cfg *rest.Config, dropManagedFields bool) (dynamic.Interface, rest.Interface, error) {
	dc := dynamic.ConfigFor(cfg)
	httpClient, err := rest.HTTPClientFor(dc)
	if err != nil {
		return nil, nil, err
	}
	dc.GroupVersion = nil
	dc.APIPath = "/if-you-see-this-search-for-the-break" // as dynamic.NewForConfigAndClient: requests use absolute paths
	dc.NegotiatedSerializer = newFastNegotiated(dc.NegotiatedSerializer, dropManagedFields)
	rc, err := rest.UnversionedRESTClientForConfigAndClient(dc, httpClient)
	if err != nil {
		return nil, nil, err
	}
	return dynamic.New(rc), rc, nil
}

// fastNegotiated is the dynamic client's negotiated serializer with its JSON
// decoders and framer replaced.
type fastNegotiated struct {
	runtime.NegotiatedSerializer
	infos []runtime.SerializerInfo
}

func (n fastNegotiated) SupportedMediaTypes() []runtime.SerializerInfo { return n.infos }

func newFastNegotiated(ns runtime.NegotiatedSerializer, dropManagedFields bool) fastNegotiated {
	infos := append([]runtime.SerializerInfo(nil), ns.SupportedMediaTypes()...)
	for i, info := range infos {
		if info.MediaType != runtime.ContentTypeJSON || info.Serializer == nil {
			continue
		}
		info.Serializer = fastDecoder{Serializer: info.Serializer, dropManagedFields: dropManagedFields}
		if s := info.StreamSerializer; s != nil && s.Serializer != nil {
			stream := *s
			stream.Serializer = fastDecoder{Serializer: s.Serializer, eventsOnly: true}
			stream.Framer = jsonFramer{s.Framer}
			info.StreamSerializer = &stream
		}
		infos[i] = info
	}
	return fastNegotiated{NegotiatedSerializer: ns, infos: infos}
}

// fastDecoder decodes into Unstructured, UnstructuredList and WatchEvent,
// and into nothing (a new Unstructured), in one pass; anything else goes to
// the serializer it wraps. The watch stream's decoder (eventsOnly) decodes
// only WatchEvents itself: it knows no unstructured kinds. With
// dropManagedFields, the objects it decodes (a list's items included) come
// without metadata.managedFields (those that the serializer it wraps
// decodes keep them).
type fastDecoder struct {
	runtime.Serializer
	eventsOnly        bool
	dropManagedFields bool
}

func (d fastDecoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if ev, ok := into.(*metav1.WatchEvent); ok && defaults == nil {
		if gvk, ok := decodeWatchEvent(data, ev); ok {
			return ev, gvk, nil
		}
	}
	if defaults == nil && !d.eventsOnly {
		switch t := into.(type) {
		case nil:
			if u, gvk, ok := decodeNew(data, d.dropManagedFields); ok {
				return u, gvk, nil
			}
		case *unstructured.Unstructured:
			if gvk, ok := decodeUnstructured(data, t, d.dropManagedFields); ok {
				return t, gvk, nil
			}
		case *unstructured.UnstructuredList:
			if gvk, ok := decodeList(data, t, d.dropManagedFields); ok {
				return t, gvk, nil
			}
		}
	}
	return d.Serializer.Decode(data, defaults, into)
}

// metaScheme knows the kinds client-go's dynamic serializer decodes into
// typed objects (Status, WatchEvent, the options) rather than Unstructured.
var metaScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

// topObject parses data as a JSON object whose apiVersion and kind, if
// present, are strings under exactly those keys (client-go looks them up
// ignoring case: another spelling would be read differently).
func topObject(data []byte, dropManagedFields bool) (map[string]any, bool) {
	v, err := jsonparse.Parse(data, jsonparse.Options{DropManagedFields: dropManagedFields})
	if err != nil {
		return nil, false
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	for k, e := range m {
		switch {
		case k == "apiVersion" || k == "kind":
			if _, isString := e.(string); !isString {
				return nil, false
			}
		case strings.EqualFold(k, "apiVersion") || strings.EqualFold(k, "kind"):
			return nil, false
		}
	}
	return m, true
}

// typeOf returns the group, version and kind of a top-level object, and
// whether its apiVersion is well formed.
func typeOf(m map[string]any) (schema.GroupVersionKind, bool) {
	av, _ := m["apiVersion"].(string)
	kind, _ := m["kind"].(string)
	gv, err := schema.ParseGroupVersion(av)
	if err != nil {
		return schema.GroupVersionKind{}, false
	}
	return gv.WithKind(kind), true
}

// decodeNew decodes what the dynamic serializer decodes into a new
// Unstructured: an object of a kind it does not know as a typed one.
func decodeNew(data []byte, dropManagedFields bool) (runtime.Object, *schema.GroupVersionKind, bool) {
	m, ok := topObject(data, dropManagedFields)
	if !ok {
		return nil, nil, false
	}
	gvk, ok := typeOf(m)
	if !ok || gvk.Kind == "" || gvk.Version == "" || metaScheme.Recognizes(gvk) {
		return nil, nil, false
	}
	return &unstructured.Unstructured{Object: m}, &gvk, true
}

func decodeUnstructured(data []byte, u *unstructured.Unstructured, dropManagedFields bool) (*schema.GroupVersionKind, bool) {
	m, ok := topObject(data, dropManagedFields)
	if !ok {
		return nil, false
	}
	gvk, ok := typeOf(m)
	if !ok || gvk.Kind == "" {
		return nil, false
	}
	u.Object = m
	return &gvk, true
}

// decodeList decodes a list as unstructured's decodeToList does: items are
// taken out of the list's object, and items without apiVersion and kind get
// the list's apiVersion and its kind without the List suffix.
func decodeList(data []byte, list *unstructured.UnstructuredList, dropManagedFields bool) (*schema.GroupVersionKind, bool) {
	if list.Object != nil || list.Items != nil {
		return nil, false // decoding would merge into what is there
	}
	m, ok := topObject(data, dropManagedFields)
	if !ok {
		return nil, false
	}
	gvk, ok := typeOf(m)
	if !ok || gvk.Kind == "" {
		return nil, false
	}
	var items []any
	switch t := m["items"].(type) {
	case nil:
	case []any:
		items = t
	default:
		return nil, false
	}
	for _, it := range items {
		if _, isObject := it.(map[string]any); !isObject {
			return nil, false
		}
	}
	delete(m, "items")
	list.Object = m
	listAPIVersion, itemKind := list.GetAPIVersion(), strings.TrimSuffix(list.GetKind(), "List")
	list.Items = make([]unstructured.Unstructured, 0, len(items))
	for _, it := range items {
		u := unstructured.Unstructured{Object: it.(map[string]any)}
		if len(u.GetKind()) == 0 && len(u.GetAPIVersion()) == 0 {
			u.SetKind(itemKind)
			u.SetAPIVersion(listAPIVersion)
		}
		list.Items = append(list.Items, u)
	}
	return &gvk, true
}

// watchEventKind is what the dynamic serializer reports (its scheme has
// the meta types under an unnamed group).
var watchEventKind = schema.GroupVersion{Version: "v1"}.WithKind("WatchEvent")

// decodeWatchEvent reads a watch event's envelope: its type, and its object
// left as bytes (a slice of data, decoded right after by the embedded
// decoder, as client-go's watch decoder does).
func decodeWatchEvent(data []byte, ev *metav1.WatchEvent) (*schema.GroupVersionKind, bool) {
	var typ string
	var raw []byte
	ok := jsonparse.Members(data, func(k string, v []byte) bool {
		switch {
		case k == "type" && string(v) == "null":
			// leaves what was there, as encoding/json does
		case k == "type":
			s, ok := jsonparse.String(v)
			if !ok {
				return false
			}
			typ = s
		case k == "object" && string(v) != "null": // null leaves what was there
			raw = v
		case strings.EqualFold(k, "apiVersion") || strings.EqualFold(k, "kind"):
			return false
		}
		return true
	})
	if !ok {
		return nil, false
	}
	ev.Type = typ
	ev.Object = runtime.RawExtension{Raw: raw}
	gvk := watchEventKind
	return &gvk, true
}

// jsonFramer frames a stream of JSON values (a watch) for the streaming
// decoder: each Read returns one value, found with the same scanner that
// skips values, instead of encoding/json's Decoder, which scans each value
// twice.
type jsonFramer struct {
	runtime.Framer // writes
}

func (jsonFramer) NewFrameReader(r io.ReadCloser) io.ReadCloser {
	return &frameReader{r: r, buf: make([]byte, 0, 32*1024)}
}

type frameReader struct {
	r         io.ReadCloser
	buf       []byte // read, not yet returned: buf[off:]
	off       int
	remaining []byte // the rest of a frame larger than the caller's buffer
	err       error  // the reader's error, once it returned one
}

// Read copies the next JSON value of the stream into data, or as much of it
// as fits, returning io.ErrShortBuffer then (the rest comes with the next
// calls), as the streaming decoder expects.
func (f *frameReader) Read(data []byte) (int, error) {
	if n := len(f.remaining); n > 0 {
		if n <= len(data) {
			copy(data, f.remaining)
			f.remaining = nil
			return n, nil
		}
		copy(data, f.remaining[:len(data)])
		f.remaining = f.remaining[len(data):]
		return len(data), io.ErrShortBuffer
	}
	frame, err := f.next()
	if err != nil {
		return 0, err
	}
	n := copy(data, frame)
	if n < len(frame) {
		f.remaining = append([]byte(nil), frame[n:]...)
		return n, io.ErrShortBuffer
	}
	return n, nil
}

// next returns the next value, valid until the next call.
func (f *frameReader) next() ([]byte, error) {
	for {
		// Skip whitespace between values.
		for f.off < len(f.buf) && jsonparse.IsSpace(f.buf[f.off]) {
			f.off++
		}
		if f.off < len(f.buf) {
			data := f.buf[f.off:]
			n, err := jsonparse.Skip(data)
			if err == nil && (n < len(data) || f.err != nil || !endsOpen(data)) {
				f.off += n
				return data[:n], nil
			}
			if err != nil && !errors.Is(err, jsonparse.ErrEnd) {
				return nil, err
			}
		}
		if f.err != nil {
			if f.off < len(f.buf) {
				if f.err == io.EOF {
					return nil, io.ErrUnexpectedEOF
				}
			}
			return nil, f.err
		}
		// Keep the unreturned bytes, and read more.
		if f.off > 0 {
			n := copy(f.buf, f.buf[f.off:])
			f.buf = f.buf[:n]
			f.off = 0
		}
		if len(f.buf) == cap(f.buf) {
			f.buf = append(f.buf, make([]byte, cap(f.buf))...)[:len(f.buf)]
		}
		n, err := f.r.Read(f.buf[len(f.buf):cap(f.buf)])
		f.buf = f.buf[:len(f.buf)+n]
		if err != nil {
			f.err = err
		}
	}
}

// endsOpen reports whether a value that ends the data could go on with
// more bytes (a number: "12" may be the start of "123").
func endsOpen(data []byte) bool {
	c := data[len(data)-1]
	return c >= '0' && c <= '9'
}

func (f *frameReader) Close() error { return f.r.Close() }
