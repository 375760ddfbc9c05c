package jsonvalue

import (
	"reflect"
	"testing"
)

func TestPaths(t *testing.T) {
	obj := map[string]any{
		"metadata": map[string]any{
			"labels":          map[string]any{"app.kubernetes.io/name": "web", "a/b~c": "x"},
			"ownerReferences": []any{map[string]any{"uid": "u0"}, map[string]any{"uid": "u1"}},
			"generation":      int64(3),
		},
		"spec": map[string]any{"nil": nil},
	}
	for _, c := range []struct {
		path  []string
		want  any
		found bool
	}{
		{DottedPath("metadata.generation"), int64(3), true},
		{DottedPath(`metadata.labels.app\.kubernetes\.io/name`), "web", true},
		{DottedPath("metadata.ownerReferences.1.uid"), "u1", true},
		{DottedPath("metadata.ownerReferences.2.uid"), nil, false},
		{DottedPath("metadata.ownerReferences.01.uid"), nil, false},
		{DottedPath("metadata.ownerReferences.-1.uid"), nil, false},
		{DottedPath("metadata.generation.x"), nil, false},
		{DottedPath("spec.nil"), nil, true},
		{DottedPath("spec.missing"), nil, false},
		{PointerPath("/metadata/labels/a~1b~0c"), "x", true},
		{PointerPath("/metadata/ownerReferences/0/uid"), "u0", true},
		{PointerPath(""), obj, true},
	} {
		got, found := Lookup(obj, c.path)
		if found != c.found || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Lookup %q = %v, %v; want %v, %v", c.path, got, found, c.want, c.found)
		}
	}
	if got := DottedPath(`a\.b.c\`); !reflect.DeepEqual(got, []string{"a.b", `c\`}) {
		t.Errorf("DottedPath: %q", got)
	}
}
