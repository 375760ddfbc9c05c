package kube

import (
	"bytes"
	"errors"
	"io"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

var codecCorpus = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"b","labels":{"x":"y"},"resourceVersion":"12"},"data":{"a":"1"}}`,
	`{"apiVersion":"rightsizing.kubex.ai/v1alpha1","kind":"ObjectPatch","spec":{"n":[1,-2,0,1.5,1e3,-0,12345678901234567890,9223372036854775807,-9223372036854775808,1E-2,0.0,[],{}]}}`,
	`  {"kind":"X","apiVersion":"a/v1","s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud83d lone \udc00x \u0041","t":true,"f":false,"n":null}  `,
	"{\"kind\":\"X\",\"apiVersion\":\"v1\",\"bad\":\"\xff\xfe ok \xc3\xa9 \xe2\x82\",\"k\xffey\":1}",
	`{"kind":"X","apiVersion":"v1","dup":1,"dup":"two"}`,
	`{"kind":"","apiVersion":"v1"}`,
	`{"apiVersion":"v1"}`,
	`{"kind":"X"}`,
	`{"kind":"X","apiVersion":"a/b/c"}`,
	`{"kind":"X","apiVersion":1}`,
	`{"Kind":"X","apiVersion":"v1","kind":"Y"}`,
	`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"no","reason":"NotFound","code":404}`,
	`{"kind":"WatchEvent","apiVersion":"meta.k8s.io/v1","type":"ADDED"}`,
	`{"kind":"X","apiVersion":"v1"`,
	`{"kind":"X","apiVersion":"v1"} x`,
	`{"kind":"X","apiVersion":"v1","a":01}`,
	`{"kind":"X","apiVersion":"v1","a":1.}`,
	`{"kind":"X","apiVersion":"v1","a":"\x01"}`,
	`{"kind":"X","apiVersion":"v1","a":"\'"}`,
	`{"kind":"X","apiVersion":"v1","a":1e400}`,
	`{"kind":"X","apiVersion":"v1","a":tru}`,
	`[1,2]`,
	`null`,
	`"s"`,
	``,
	`{"apiVersion":"v1","kind":"ConfigMapList","metadata":{"resourceVersion":"5"},"items":[{"metadata":{"name":"a"}},{"kind":"Other","metadata":{"name":"b"}},{"apiVersion":"x/v1"}]}`,
	`{"apiVersion":"v1","kind":"ConfigMapList","items":null}`,
	`{"apiVersion":"v1","kind":"ConfigMapList","items":[null]}`,
	`{"apiVersion":"v1","kind":"ConfigMapList","items":"no"}`,
	`{"apiVersion":"v1","kind":"ConfigMapList","items":[1]}`,
	`{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}}`,
	`{"type":"MODIFIED","object":{"apiVersion":"v1","kind":"ConfigMap"},"extra":[1,{"a":"\u00e9"}]}`,
	`{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","code":410,"reason":"Expired"}}`,
	`{"type":null,"object":null}`,
	`{"type":1,"object":{}}`,
	`{"type":"ADDED","object":{},"object":null}`,
	`{"type":"ADDED","kind":"Foo","object":{}}`,
	`{"type":"ADDED","object":{"a":}}`,
	`{}`,
}

func dynamicSerializer(t testing.TB) runtime.NegotiatedSerializer {
	t.Helper()
	return dynamic.ConfigFor(&rest.Config{}).NegotiatedSerializer
}

// TestFastDecoderAgrees decodes every body of the corpus (and damaged
// versions of them) into each target with client-go's dynamic serializer
// and with fastDecoder, and wants the same objects and the same failures.
func TestFastDecoderAgrees(t *testing.T) {
	orig := dynamicSerializer(t)
	fast := newFastNegotiated(orig, false)
	var bodies []string
	rnd := rand.New(rand.NewSource(1))
	for _, b := range codecCorpus {
		bodies = append(bodies, b)
		for range 20 {
			if len(b) == 0 {
				break
			}
			// cut, or change one byte
			cut := []byte(b[:rnd.Intn(len(b))])
			bodies = append(bodies, string(cut))
			changed := []byte(b)
			changed[rnd.Intn(len(changed))] = "{}[]\",:\\ 0a-.e\xff"[rnd.Intn(15)]
			bodies = append(bodies, string(changed))
		}
	}
	fastTaken := 0
	for _, info := range []struct {
		name      string
		orig, new runtime.Decoder
	}{
		{"object", orig.SupportedMediaTypes()[0].Serializer, fast.SupportedMediaTypes()[0].Serializer},
		{"stream", orig.SupportedMediaTypes()[0].StreamSerializer.Serializer, fast.SupportedMediaTypes()[0].StreamSerializer.Serializer},
	} {
		for _, body := range bodies {
			for _, target := range []func() runtime.Object{
				func() runtime.Object { return nil },
				func() runtime.Object { return &unstructured.Unstructured{} },
				func() runtime.Object { return &unstructured.UnstructuredList{} },
				func() runtime.Object { return &metav1.WatchEvent{} },
			} {
				wantObj, wantGVK, wantErr := info.orig.Decode([]byte(body), nil, target())
				gotObj, gotGVK, gotErr := info.new.Decode([]byte(body), nil, target())
				if (wantErr == nil) != (gotErr == nil) || !reflect.DeepEqual(wantObj, gotObj) || !reflect.DeepEqual(wantGVK, gotGVK) {
					t.Errorf("%s decoder, %T, body %q:\nclient-go %#v %v %v\nfast      %#v %v %v", info.name, target(), body,
						wantObj, wantGVK, wantErr, gotObj, gotGVK, gotErr)
				}
				if wantErr == nil {
					fastTaken++
				}
			}
		}
	}
	if fastTaken == 0 {
		t.Fatal("nothing decoded")
	}
}

// chunked returns its data a few bytes at a time.
type chunked struct {
	data []byte
	rnd  *rand.Rand
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(1+c.rnd.Intn(40), len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

func (c *chunked) Close() error { return nil }

// TestFrameReader reads a watch stream through the framer, in small reads
// and into small buffers, as client-go's streaming decoder does, and wants
// the events client-go's JSON framer gives.
func TestFrameReader(t *testing.T) {
	orig := dynamicSerializer(t).SupportedMediaTypes()[0].StreamSerializer
	fast := newFastNegotiated(dynamicSerializer(t), false).SupportedMediaTypes()[0].StreamSerializer
	big := `{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","data":{"big":"` + strings.Repeat("x\\n", 40000) + `"}}}`
	streams := []string{
		`{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}}` + "\n" +
			big + "\n" +
			"{\n  \"type\": \"MODIFIED\",\n  \"object\": {\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\"}\n}\n" +
			`{"type":"DELETED","object":{"apiVersion":"v1","kind":"ConfigMap"}}{"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"ConfigMap"}}`,
		`{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap"}}` + "\n" + `{"type":"ADDED","obj`,
		`{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap"}}` + "\n" + `{"type":"ADDED",]}`,
		"",
		"  \n ",
	}
	for i, s := range streams {
		read := func(info *runtime.StreamSerializerInfo) (events []metav1.WatchEvent, err error) {
			fr := info.Framer.NewFrameReader(&chunked{data: []byte(s), rnd: rand.New(rand.NewSource(int64(i)))})
			dec := streaming.NewDecoder(fr, info.Serializer)
			for {
				var ev metav1.WatchEvent
				if _, _, err := dec.Decode(nil, &ev); err != nil {
					return events, err
				}
				ev.Object.Raw = bytes.Clone(ev.Object.Raw)
				events = append(events, ev)
			}
		}
		want, wantErr := read(orig)
		got, gotErr := read(fast)
		if !reflect.DeepEqual(want, got) {
			t.Errorf("stream %d: client-go read %d events, the fast framer %d", i, len(want), len(got))
		}
		if errors.Is(wantErr, io.EOF) != errors.Is(gotErr, io.EOF) || errors.Is(wantErr, io.ErrUnexpectedEOF) != errors.Is(gotErr, io.ErrUnexpectedEOF) || (wantErr == nil) != (gotErr == nil) {
			t.Errorf("stream %d: client-go ended with %v, the fast framer with %v", i, wantErr, gotErr)
		}
	}
}

// TestDropManagedFields: a decoder that drops managedFields drops those of
// the metadata of the object (a list's too), of a list's items, and
// nothing else.
func TestDropManagedFields(t *testing.T) {
	fast := newFastNegotiated(dynamicSerializer(t), true).SupportedMediaTypes()[0].Serializer
	mf := `"managedFields":[{"manager":"m","fieldsV1":{"f:spec":{}}}]`
	obj := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a",` + mf + `,"labels":{` + mf + `}},"data":{"metadata":{` + mf + `}},` + mf + `}`
	want := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata":      map[string]any{"name": "a", "labels": map[string]any{"managedFields": []any{map[string]any{"manager": "m", "fieldsV1": map[string]any{"f:spec": map[string]any{}}}}}},
		"data":          map[string]any{"metadata": map[string]any{"managedFields": []any{map[string]any{"manager": "m", "fieldsV1": map[string]any{"f:spec": map[string]any{}}}}}},
		"managedFields": []any{map[string]any{"manager": "m", "fieldsV1": map[string]any{"f:spec": map[string]any{}}}},
	}
	u := &unstructured.Unstructured{}
	if _, _, err := fast.Decode([]byte(obj), nil, u); err != nil || !reflect.DeepEqual(u.Object, want) {
		t.Errorf("object: %v %v", u.Object, err)
	}
	got, _, err := fast.Decode([]byte(obj), nil, nil)
	if err != nil || !reflect.DeepEqual(got.(*unstructured.Unstructured).Object, want) {
		t.Errorf("new object: %v %v", got, err)
	}
	list := &unstructured.UnstructuredList{}
	if _, _, err := fast.Decode([]byte(`{"apiVersion":"v1","kind":"ConfigMapList","metadata":{`+mf+`},"items":[`+obj+`,`+obj+`]}`), nil, list); err != nil ||
		len(list.Items) != 2 || !reflect.DeepEqual(list.Items[1].Object, want) {
		t.Errorf("list: %v %v", list, err)
	}
	if _, ok := list.Object["metadata"].(map[string]any)["managedFields"]; ok {
		t.Errorf("list: the list's own metadata kept its managedFields")
	}
}
