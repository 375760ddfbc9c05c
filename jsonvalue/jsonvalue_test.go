package jsonvalue

import (
	"encoding/json"
	"math"
	"testing"
)

func TestNormalize(t *testing.T) {
	got, err := Normalize(map[string]any{"a": 1, "b": 2.0, "c": 2.5, "d": []string{"x"}, "e": json.Number("7"), "f": uint8(3)})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"a": int64(1), "b": int64(2), "c": 2.5, "d": []any{"x"}, "e": int64(7), "f": int64(3)}
	if !Equal(got, want) {
		t.Fatalf("got %#v", got)
	}
	if _, ok := got.(map[string]any)["b"].(int64); !ok {
		t.Error("a whole float must become int64")
	}
	if _, err := Normalize(math.NaN()); err == nil {
		t.Error("NaN must be refused")
	}
}

func TestEqual(t *testing.T) {
	cases := []struct {
		a, b any
		want bool
	}{
		{int64(1), 1.0, true},
		{int64(1), 1.5, false},
		{map[string]any{"a": []any{int64(1), "x"}}, map[string]any{"a": []any{1.0, "x"}}, true},
		{map[string]any{"a": nil}, map[string]any{}, false},
		{[]any{"a"}, []any{"a", "b"}, false},
		{nil, nil, true},
		{"x", int64(1), false},
		{[]map[string]any{{"a": 1}}, []map[string]any{{"a": 1}}, true},
	}
	for _, c := range cases {
		if got := Equal(c.a, c.b); got != c.want {
			t.Errorf("Equal(%v, %v) = %v", c.a, c.b, got)
		}
	}
}

// The examples of RFC 7386, appendix A.
func TestMergePatchRFC7386(t *testing.T) {
	cases := []struct{ target, patch, want string }{
		{`{"a":"b"}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"b"}`, `{"b":"c"}`, `{"a":"b","b":"c"}`},
		{`{"a":"b"}`, `{"a":null}`, `{}`},
		{`{"a":"b","b":"c"}`, `{"a":null}`, `{"b":"c"}`},
		{`{"a":["b"]}`, `{"a":"c"}`, `{"a":"c"}`},
		{`{"a":"c"}`, `{"a":["b"]}`, `{"a":["b"]}`},
		{`{"a":{"b":"c"}}`, `{"a":{"b":"d","c":null}}`, `{"a":{"b":"d"}}`},
		{`{"a":[{"b":"c"}]}`, `{"a":[1]}`, `{"a":[1]}`},
		{`["a","b"]`, `["c","d"]`, `["c","d"]`},
		{`{"a":"b"}`, `["c"]`, `["c"]`},
		{`{"a":"foo"}`, `null`, `null`},
		{`{"a":"foo"}`, `"bar"`, `"bar"`},
		{`{"e":null}`, `{"a":1}`, `{"e":null,"a":1}`},
		{`[1,2]`, `{"a":"b","c":null}`, `{"a":"b"}`},
		{`{}`, `{"a":{"bb":{"ccc":null}}}`, `{"a":{"bb":{}}}`},
	}
	dec := func(s string) any {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		n, _ := Normalize(v)
		return n
	}
	for _, c := range cases {
		target := dec(c.target)
		before := DeepCopy(target)
		got := MergePatch(target, dec(c.patch))
		if !Equal(got, dec(c.want)) {
			b, _ := CanonicalJSON(got)
			t.Errorf("%s + %s = %s, want %s", c.target, c.patch, b, c.want)
		}
		if !Equal(target, before) {
			t.Errorf("%s + %s modified the target", c.target, c.patch)
		}
	}
}

func TestEscapeTokenAndCanonicalJSON(t *testing.T) {
	if got := EscapeToken("a/b~c"); got != "a~1b~0c" {
		t.Errorf("EscapeToken = %q", got)
	}
	b, err := CanonicalJSON(map[string]any{"b": "<x>", "a": int64(1)})
	if err != nil || string(b) != `{"a":1,"b":"<x>"}` {
		t.Errorf("CanonicalJSON = %s, %v", b, err)
	}
}

func TestHash(t *testing.T) {
	a := map[string]any{"x": []any{int64(1), "a", nil}, "y": map[string]any{"b": true, "c": 2.5}}
	b := map[string]any{"y": map[string]any{"c": 2.5, "b": true}, "x": []any{1.0, "a", nil}}
	if Hash(a) != Hash(b) {
		t.Error("equal values must hash equal, whatever their map order or number type")
	}
	for _, c := range []any{
		map[string]any{"x": []any{int64(1), "a"}, "y": map[string]any{"b": true, "c": 2.5}},
		map[string]any{"x": []any{"a", int64(1), nil}, "y": map[string]any{"b": true, "c": 2.5}},
		map[string]any{"x": []any{int64(1), "a", nil}, "y": map[string]any{"b": false, "c": 2.5}},
		map[string]any{"x": []any{int64(1), "a", nil}, "y": map[string]any{"b": true, "c": 2.5}, "z": nil},
		map[string]any{"x": []any{int64(1), "a", nil}, "y": map[string]any{"bb": true, "c": 2.5}},
	} {
		if Hash(a) == Hash(c) {
			t.Errorf("different values hash equal: %v", c)
		}
	}
}

func TestContains(t *testing.T) {
	live := map[string]any{"spec": map[string]any{"replicas": int64(2), "template": map[string]any{"spec": map[string]any{
		"containers": []any{map[string]any{"name": "app", "image": "nginx", "imagePullPolicy": "Always"}}}}}}
	for _, c := range []struct {
		part any
		want bool
	}{
		{map[string]any{"spec": map[string]any{"replicas": 2.0}}, true},
		{map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "app"}}}}}}, true},
		{map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "web"}}}}}}, false},
		{map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{}}}}}, false},
		{map[string]any{"spec": map[string]any{"paused": nil}}, true},
		{map[string]any{"spec": map[string]any{"replicas": nil}}, false},
		{map[string]any{"spec": map[string]any{"replicas": int64(3)}}, false},
		{map[string]any{"status": map[string]any{}}, false},
	} {
		if got := Contains(live, c.part); got != c.want {
			t.Errorf("Contains(live, %v) = %v, want %v", c.part, got, c.want)
		}
	}
}

// A frozen value answers IsCanonical and Hash as the same content unfrozen
// does, for itself and the maps directly inside it.
func TestFreeze(t *testing.T) {
	r := NewRegistry()
	mk := func() map[string]any {
		return map[string]any{"spec": map[string]any{"a": int64(1), "b": []any{"x"}}, "n": 2.5}
	}
	f := r.Freeze(mk())
	plain := mk()
	if r.Hash(f) != r.Hash(plain) || r.Hash(f["spec"]) != r.Hash(plain["spec"]) {
		t.Error("a frozen value hashes differently from its content")
	}
	if r.Hash(f) != r.Hash(f) || !r.IsCanonical(f) || !r.IsCanonical(f["spec"]) {
		t.Error("a frozen canonical value is not canonical or not stable")
	}
	odd := r.Freeze(map[string]any{"spec": map[string]any{"n": 3}}) // an int, not int64
	if r.IsCanonical(odd) || r.IsCanonical(odd["spec"]) {
		t.Error("a frozen value holding an int is canonical")
	}
	if r.Hash(odd) != r.Hash(map[string]any{"spec": map[string]any{"n": int64(3)}}) {
		t.Error("a frozen value's hash is not its content's")
	}
}

// MergeDiff's patch turns before into after, and says nothing of what
// stayed.
func TestMergeDiff(t *testing.T) {
	for _, c := range []struct{ before, after, want string }{
		{`{"a":1,"b":{"c":2,"d":3},"l":[1,2]}`, `{"a":1,"b":{"c":2,"d":4},"l":[1,2]}`, `{"b":{"d":4}}`},
		{`{"a":1,"b":{"c":2}}`, `{"b":"x","e":{"f":true}}`, `{"a":null,"b":"x","e":{"f":true}}`},
		{`{"l":[1,2],"m":{"n":{}}}`, `{"l":[2,1],"m":{"n":{}}}`, `{"l":[2,1]}`},
		{`{"a":1}`, `{"a":1.0}`, `{}`},
	} {
		var before, after map[string]any
		if err := json.Unmarshal([]byte(c.before), &before); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(c.after), &after); err != nil {
			t.Fatal(err)
		}
		d := MergeDiff(before, after)
		got, _ := json.Marshal(d)
		if string(got) != c.want {
			t.Errorf("MergeDiff(%s, %s) = %s, want %s", c.before, c.after, got, c.want)
		}
		if !Equal(MergePatch(before, d), after) {
			t.Errorf("applying MergeDiff(%s, %s) does not give the after", c.before, c.after)
		}
	}
}

// Remember computes a derived value once per frozen map, every time for a
// map that is not (or no longer) frozen.
func TestRemember(t *testing.T) {
	r := NewRegistry()
	calls := 0
	count := func() int { calls++; return calls }
	f := r.Freeze(map[string]any{"a": "b"})
	if Remember(r, f, "n", count) != 1 || Remember(r, f, "n", count) != 1 {
		t.Error("a frozen map's derived value was computed twice")
	}
	if Remember(r, f, "other", count) != 2 {
		t.Error("another name shares the value")
	}
	plain := map[string]any{"a": "b"}
	if Remember(r, plain, "n", count) != 3 || Remember(r, plain, "n", count) != 4 {
		t.Error("a map that is not frozen remembered a value")
	}
	r.Thaw(f)
	if Remember(r, f, "n", count) != 5 {
		t.Error("a thawed map remembered a value")
	}
}

// Refreeze keeps what a successor shares with the value it replaces frozen
// with its memory, and thaws the rest of the old value.
func TestRefreeze(t *testing.T) {
	r := NewRegistry()
	shared := map[string]any{"x": "1"}
	old := r.Freeze(map[string]any{"a": shared, "b": map[string]any{"y": "2"}, "n": int64(1)})
	calls := 0
	count := func() int { calls++; return calls }
	Remember(r, shared, "test", count)
	next := map[string]any{"a": shared, "b": map[string]any{"z": 2.0}, "n": int64(2)}
	if got := r.Refreeze(old, next); !r.Frozen(got) {
		t.Fatal("the successor is not frozen")
	}
	if !r.Frozen(shared) || Remember(r, shared, "test", count) != 1 {
		t.Errorf("a shared map lost its registration or what was remembered (calls %d)", calls)
	}
	if r.Frozen(old) || r.Frozen(old["b"].(map[string]any)) {
		t.Error("the old value, or a map only it held, is still frozen")
	}
	if r.IsCanonical(next) {
		t.Error("a successor holding 2.0 is reported canonical")
	}
	if !r.IsCanonical(old) {
		t.Error("the thawed old value is canonical (walked again)")
	}
	r.Thaw(next)
}

// Fingerprints are the same in every run: their seeds are fixed.
func TestHashIsFixed(t *testing.T) {
	v := map[string]any{"a": []any{"x", int64(1), 2.5, true, nil}, "b": map[string]any{"c": "d"}}
	if got, want := Hash(v), (Fingerprint{0xc67a83180fa67d72, 0x3408c981d3a97dbf}); got != want {
		t.Errorf("Hash = %#x, want %#x (the seeds or the hash changed)", got, want)
	}
	if Hash(v) != Hash(map[string]any{"b": map[string]any{"c": "d"}, "a": []any{"x", int64(1), 2.5, true, nil}}) {
		t.Error("equal values hash differently")
	}
}

// A nil registry freezes nothing and answers every question by walking.
func TestNilRegistry(t *testing.T) {
	var r *Registry
	v := r.Freeze(map[string]any{"n": 3})
	if r.Frozen(v) || r.IsCanonical(v) || r.Hash(v) != Hash(map[string]any{"n": int64(3)}) {
		t.Error("a nil registry remembered something")
	}
	calls := 0
	Remember(r, v, "x", func() int { calls++; return calls })
	Remember(r, v, "x", func() int { calls++; return calls })
	if calls != 2 {
		t.Error("a nil registry remembered a derived value")
	}
}
