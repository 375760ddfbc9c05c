package jsonparse

import (
	"math/rand"
	"reflect"
	"testing"

	kjson "sigs.k8s.io/json"
)

// corpus holds JSON of every kind, well formed and not: numbers at the
// edges of int64 and float64, escapes, invalid UTF-8, duplicate keys,
// truncated and trailing input.
var corpus = []string{
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"y"}},"data":{"a":"1"}}`,
	`{"n":[1,-2,0,1.5,1e3,-0,12345678901234567890,9223372036854775807,-9223372036854775808,1E-2,0.0,[],{}]}`,
	`  {"s":"esc \" \\ \/ \b \f \n \r \t \u00e9 \ud83d\ude00 \ud83d lone \udc00x \u0041","t":true,"f":false,"n":null}  `,
	"{\"bad\":\"\xff\xfe ok \xc3\xa9 \xe2\x82\",\"k\xffey\":1}",
	`{"dup":1,"dup":"two"}`,
	`{"a":1`, `{"a":1} x`, `{"a":01}`, `{"a":1.}`, `{"a":"\x01"}`, `{"a":"\'"}`, `{"a":1e400}`, `{"a":tru}`, `{"a":}`,
	`[1,2]`, `[1,]`, `null`, `"s"`, ``, `{}`, `[[[[]]]]`,
	`{"items":[{"metadata":{"name":"a","managedFields":[{"manager":"m"}]}},null,1]}`,
}

// TestParseAgrees compares the parser with sigs.k8s.io/json on values
// of every kind, and on damaged ones.
func TestParseAgrees(t *testing.T) {
	rnd := rand.New(rand.NewSource(2))
	for _, b := range corpus {
		inputs := []string{b}
		for range 50 {
			if len(b) == 0 {
				break
			}
			c := []byte(b)
			c[rnd.Intn(len(c))] = "{}[]\",:\\ 0a-.eu\xff\x01"[rnd.Intn(17)]
			inputs = append(inputs, string(c))
		}
		for _, in := range inputs {
			var want any
			wantErr := kjson.UnmarshalCaseSensitivePreserveInts([]byte(in), &want)
			got, gotErr := Parse([]byte(in), Options{})
			if (wantErr == nil) != (gotErr == nil) || wantErr == nil && !reflect.DeepEqual(want, got) {
				t.Errorf("%q: sigs.k8s.io/json %#v %v, Parse %#v %v", in, want, wantErr, got, gotErr)
			}
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, b := range corpus {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var want any
		wantErr := kjson.UnmarshalCaseSensitivePreserveInts([]byte(in), &want)
		got, gotErr := Parse([]byte(in), Options{})
		if (wantErr == nil) != (gotErr == nil) || wantErr == nil && !reflect.DeepEqual(want, got) {
			t.Errorf("%q: sigs.k8s.io/json %#v %v, Parse %#v %v", in, want, wantErr, got, gotErr)
		}
	})
}

// sampleOP is an ObjectPatch as a watch event brings it.
var sampleOP = []byte(`{"apiVersion":"rightsizing.kubex.ai/v1alpha1","kind":"ObjectPatch","metadata":{"creationTimestamp":"2026-11-29T18:13:14Z","generation":1,"labels":{"statecraft.dev/bench":"bench-sta-12345"},"name":"p00012","namespace":"bench-sta-12345-12","resourceVersion":"123456","uid":"0b7c6f1e-2f3a-4b5c-9d8e-7f6a5b4c3d2e"},"spec":{"patch":{"metadata":{"labels":{"managed-by":"statecraft"}}},"targetRef":{"apiVersion":"v1","kind":"ConfigMap","name":"tp00012"}},"status":{"conditions":[{"lastTransitionTime":"2026-11-29T18:13:20Z","message":"","observedGeneration":1,"reason":"Applied","status":"True","type":"Ready"},{"lastTransitionTime":"2026-11-29T18:13:20Z","message":"","observedGeneration":1,"reason":"Applied","status":"False","type":"Drifted"}],"driftRetryCount":0,"lastAppliedTime":"2026-11-29T18:13:20Z","lastAttemptTime":"2026-11-29T18:13:20Z","message":"","observedGeneration":1,"outcome":"Success","reason":"Applied","retryCount":0,"state":"Applied"}}`)

// BenchmarkParseOP decodes an ObjectPatch as a watch event brings it.
func BenchmarkParseOP(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Parse(sampleOP, Options{DropManagedFields: true}); err != nil {
			b.Fatal(err)
		}
	}
}
