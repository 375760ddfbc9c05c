package kube

import (
	"errors"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
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
	dc := dynamic.ConfigFor(cfg)
	httpClient, err := rest.HTTPClientFor(dc)
	if err != nil {
		return nil, err
	}
	dc.GroupVersion = nil
	dc.APIPath = "/if-you-see-this-search-for-the-break" // as dynamic.NewForConfigAndClient: requests use absolute paths
	dc.NegotiatedSerializer = newFastNegotiated(dc.NegotiatedSerializer, dropManagedFields)
	rc, err := rest.UnversionedRESTClientForConfigAndClient(dc, httpClient)
	if err != nil {
		return nil, err
	}
	return dynamic.New(rc), nil
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
	p := jsonParser{data: data, dropManagedFields: dropManagedFields}
	v, err := p.parse()
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
	p := jsonParser{data: data}
	p.ws()
	if p.i >= len(data) || data[p.i] != '{' {
		return nil, false
	}
	p.i++
	var typ string
	var raw []byte
	p.ws()
	if p.i < len(data) && data[p.i] == '}' {
		p.i++
	} else {
		for {
			if p.i >= len(data) || data[p.i] != '"' {
				return nil, false
			}
			k, err := p.key()
			if err != nil {
				return nil, false
			}
			p.ws()
			if p.i >= len(data) || data[p.i] != ':' {
				return nil, false
			}
			p.i++
			p.ws()
			start := p.i
			if err := p.skip(); err != nil {
				return nil, false
			}
			v := data[start:p.i]
			switch {
			case k == "type" && string(v) == "null":
				// leaves what was there, as encoding/json does
			case k == "type":
				s, ok := parseJSONString(v)
				if !ok {
					return nil, false
				}
				typ = s
			case k == "object" && string(v) != "null": // null leaves what was there
				raw = v
			case strings.EqualFold(k, "apiVersion") || strings.EqualFold(k, "kind"):
				return nil, false
			}
			p.ws()
			if p.i >= len(data) {
				return nil, false
			}
			if data[p.i] == ',' {
				p.i++
				p.ws()
				continue
			}
			if data[p.i] != '}' {
				return nil, false
			}
			p.i++
			break
		}
	}
	p.ws()
	if p.i != len(data) {
		return nil, false
	}
	ev.Type = typ
	ev.Object = runtime.RawExtension{Raw: raw}
	gvk := watchEventKind
	return &gvk, true
}

func parseJSONString(v []byte) (string, bool) {
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	p := jsonParser{data: v}
	s, err := p.str()
	return s, err == nil && p.i == len(v)
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
		for f.off < len(f.buf) && isSpace(f.buf[f.off]) {
			f.off++
		}
		if f.off < len(f.buf) {
			p := jsonParser{data: f.buf[f.off:]}
			err := p.skip()
			if err == nil && (p.i < len(p.data) || f.err != nil || !endsOpen(p.data)) {
				frame := p.data[:p.i]
				f.off += p.i
				return frame, nil
			}
			if err != nil && !errors.Is(err, errEnd) {
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

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// The parser.

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

var (
	errSyntax = errors.New("kube: malformed JSON")
	errEnd    = errors.New("kube: JSON ends early") // a kind of errSyntax: the data stopped inside a value
)

// parseJSON decodes one JSON value, alone in data but for whitespace, as
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts decodes it into an
// any.
func parseJSON(data []byte) (any, error) {
	p := jsonParser{data: data}
	return p.parse()
}

func (p *jsonParser) parse() (any, error) {
	data := p.data
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(data) {
		return nil, errSyntax
	}
	return v, nil
}

type jsonParser struct {
	data  []byte
	i     int
	depth int
	// dropManagedFields leaves out the managedFields of the metadata of
	// the top-level object, and of the objects of its items: metaDepth is
	// the depth of the metadata being read (0: none), items whether the
	// top-level items are.
	dropManagedFields bool
	metaDepth         int
	items             bool
}

func (p *jsonParser) ws() {
	for p.i < len(p.data) && isSpace(p.data[p.i]) {
		p.i++
	}
}

func (p *jsonParser) value() (any, error) {
	if p.i >= len(p.data) {
		return nil, errEnd
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, errSyntax
}

func (p *jsonParser) literal(lit string) error {
	rest := p.data[p.i:]
	if len(rest) < len(lit) {
		if string(rest) == lit[:len(rest)] {
			return errEnd
		}
		return errSyntax
	}
	if string(rest[:len(lit)]) != lit {
		return errSyntax
	}
	p.i += len(lit)
	return nil
}

func (p *jsonParser) object() (any, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, errSyntax
	}
	p.i++ // '{'
	m := make(map[string]any)
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		p.depth--
		return m, nil
	}
	for {
		if p.i >= len(p.data) {
			return nil, errEnd
		}
		if p.data[p.i] != '"' {
			return nil, errSyntax
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.data) {
			return nil, errEnd
		}
		if p.data[p.i] != ':' {
			return nil, errSyntax
		}
		p.i++
		p.ws()
		var v any
		drop := false
		switch {
		case !p.dropManagedFields:
			v, err = p.value()
		case k == "managedFields" && p.metaDepth == p.depth:
			drop = true
			err = p.skip()
		case k == "metadata" && (p.depth == 1 || p.depth == 3 && p.items):
			p.metaDepth = p.depth + 1
			v, err = p.value()
			p.metaDepth = 0
		case k == "items" && p.depth == 1:
			p.items = true
			v, err = p.value()
			p.items = false
		default:
			v, err = p.value()
		}
		if err != nil {
			return nil, err
		}
		if !drop {
			m[k] = v
		}
		p.ws()
		if p.i >= len(p.data) {
			return nil, errEnd
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.ws()
		case '}':
			p.i++
			p.depth--
			return m, nil
		default:
			return nil, errSyntax
		}
	}
}

func (p *jsonParser) array() (any, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, errSyntax
	}
	p.i++ // '['
	a := make([]any, 0)
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		p.depth--
		return a, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.ws()
		if p.i >= len(p.data) {
			return nil, errEnd
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.ws()
		case ']':
			p.i++
			p.depth--
			return a, nil
		default:
			return nil, errSyntax
		}
	}
}

// number reads a number as sigs.k8s.io/json's convertNumber does with
// preserveInts: an int64 when it has no '.' and fits, else a float64.
func (p *jsonParser) number() (any, error) {
	start, hasDot, end, err := p.scanNumber()
	if err != nil {
		return nil, err
	}
	s := p.data[start:end]
	if !hasDot {
		if i, ok := smallInt(s); ok {
			return i, nil
		}
		if i, err := strconv.ParseInt(string(s), 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return nil, errSyntax // encoding/json fails too (out of range)
	}
	return f, nil
}

// smallInt converts an optionally negative run of at most 18 digits.
func smallInt(s []byte) (int64, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// scanNumber checks the JSON number grammar from p.i and moves past it.
func (p *jsonParser) scanNumber() (start int, hasDot bool, end int, err error) {
	d := p.data
	i := p.i
	start = i
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i >= len(d):
		return 0, false, 0, errEnd
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		digits()
	default:
		return 0, false, 0, errSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		hasDot = true
		if digits() == 0 {
			if i >= len(d) {
				return 0, false, 0, errEnd
			}
			return 0, false, 0, errSyntax
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			if i >= len(d) {
				return 0, false, 0, errEnd
			}
			return 0, false, 0, errSyntax
		}
	}
	p.i = i
	return start, hasDot, i, nil
}

// str reads a string from the '"' at p.i.
func (p *jsonParser) str() (string, error) { return p.quoted(false) }

// key reads an object's key, which is most often one of the interned
// strings.
func (p *jsonParser) key() (string, error) { return p.quoted(true) }

// quoted reads a string from the '"' at p.i, the interned copy when
// interned and there is one.
func (p *jsonParser) quoted(interned bool) (string, error) {
	d := p.data
	start := p.i + 1
	ascii := true
	for i := start; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			s := d[start:i]
			p.i = i + 1
			if !ascii && !utf8.Valid(s) {
				return unquote(s)
			}
			if interned {
				return intern(s), nil
			}
			return string(s), nil
		case c == '\\':
			end, err := p.stringEnd(i)
			if err != nil {
				return "", err
			}
			p.i = end + 1
			return unquote(d[start:end])
		case c < 0x20:
			return "", errSyntax
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", errEnd
}

// stringEnd returns the index of the '"' that closes the string in which
// an escape starts at i, checking the escapes.
func (p *jsonParser) stringEnd(i int) (int, error) {
	d := p.data
	for i < len(d) {
		switch c := d[i]; {
		case c == '"':
			return i, nil
		case c == '\\':
			if i+1 >= len(d) {
				return 0, errEnd
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(d) {
						return 0, errEnd
					}
					if !isHex(d[j]) {
						return 0, errSyntax
					}
				}
				i += 6
			default:
				return 0, errSyntax
			}
		case c < 0x20:
			return 0, errSyntax
		default:
			i++
		}
	}
	return 0, errEnd
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unquote decodes the contents of a checked string as encoding/json does:
// escapes, surrogate pairs (a lone surrogate becomes U+FFFD), and each
// invalid UTF-8 byte replaced by U+FFFD.
func unquote(s []byte) (string, error) {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			if r+1 >= len(s) {
				return "", errSyntax
			}
			switch e := s[r+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				r += 2
			case 'b':
				b = append(b, '\b')
				r += 2
			case 'f':
				b = append(b, '\f')
				r += 2
			case 'n':
				b = append(b, '\n')
				r += 2
			case 'r':
				b = append(b, '\r')
				r += 2
			case 't':
				b = append(b, '\t')
				r += 2
			case 'u':
				rr := getu4(s[r:])
				if rr < 0 {
					return "", errSyntax
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return "", errSyntax
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), nil
}

// getu4 decodes \uXXXX from the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// skip checks the value at p.i and moves past it, building nothing.
func (p *jsonParser) skip() error {
	if p.i >= len(p.data) {
		return errEnd
	}
	switch c := p.data[p.i]; {
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		if p.depth++; p.depth > maxDepth {
			return errSyntax
		}
		p.i++
		p.ws()
		if p.i < len(p.data) && p.data[p.i] == closing {
			p.i++
			p.depth--
			return nil
		}
		for {
			if c == '{' {
				if p.i >= len(p.data) {
					return errEnd
				}
				if p.data[p.i] != '"' {
					return errSyntax
				}
				if err := p.skipString(); err != nil {
					return err
				}
				p.ws()
				if p.i >= len(p.data) {
					return errEnd
				}
				if p.data[p.i] != ':' {
					return errSyntax
				}
				p.i++
				p.ws()
			}
			if err := p.skip(); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.data) {
				return errEnd
			}
			switch p.data[p.i] {
			case ',':
				p.i++
				p.ws()
			case closing:
				p.i++
				p.depth--
				return nil
			default:
				return errSyntax
			}
		}
	case c == '"':
		return p.skipString()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		_, _, _, err := p.scanNumber()
		return err
	}
	return errSyntax
}

func (p *jsonParser) skipString() error {
	d := p.data
	for i := p.i + 1; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			p.i = i + 1
			return nil
		case c == '\\':
			end, err := p.stringEnd(i)
			if err != nil {
				return err
			}
			p.i = end + 1
			return nil
		case c < 0x20:
			return errSyntax
		}
	}
	return errEnd
}

// interned are strings that recur in every object (keys, mostly): decoding
// returns these instead of allocating a copy each time. They are found by
// length and first byte, then compared.
var interned = func() (t [maxInterned + 1][128][]string) {
	for _, s := range []string{
		"apiVersion", "kind", "metadata", "name", "namespace", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
		"ownerReferences", "finalizers", "managedFields", "generateName", "selfLink",
		"manager", "operation", "time", "fieldsType", "fieldsV1", "subresource",
		"spec", "status", "data", "binaryData", "immutable", "items", "continue", "remainingItemCount",
		"type", "object", "reason", "message", "conditions", "lastTransitionTime", "observedGeneration",
		"controller", "blockOwnerDeletion",
	} {
		t[len(s)][s[0]] = append(t[len(s)][s[0]], s)
	}
	return t
}()

const maxInterned = 26

func intern(b []byte) string {
	if len(b) == 0 || len(b) > maxInterned || b[0] >= 128 {
		return string(b)
	}
	for _, s := range interned[len(b)][b[0]] {
		if string(b) == s {
			return s
		}
	}
	return string(b)
}
