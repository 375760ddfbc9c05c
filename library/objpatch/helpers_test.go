package objpatch

import (
	"encoding/json"
	"testing"

	"github.com/statecraft/statecraft/jsonvalue"
)

// js decodes a JSON literal for tests.
func js(t testing.TB, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %q: %v", s, err)
	}
	return v
}

func obj(t testing.TB, s string) map[string]any {
	t.Helper()
	m, ok := js(t, s).(map[string]any)
	if !ok {
		t.Fatalf("test JSON %q is not an object", s)
	}
	return m
}

func ops(t testing.TB, s string) []Op {
	t.Helper()
	o, err := ParseOps(js(t, s))
	if err != nil {
		t.Fatalf("ParseOps(%s): %v", s, err)
	}
	return o
}

func canon(t testing.TB, v any) string {
	t.Helper()
	n, err := jsonvalue.Normalize(v)
	if err != nil {
		t.Fatal(err)
	}
	b, err := jsonvalue.CanonicalJSON(n)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
