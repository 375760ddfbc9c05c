package library_test

import (
	"testing"

	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
)

// A list read answered with the very slice of its last answer gets the
// very CEL list; another slice, or the same one for another read, gets a
// new list of the same maps. A nil Memory copies every time.
func TestListAnsweredAgain(t *testing.T) {
	a, b := map[string]any{"name": "a"}, map[string]any{"name": "b"}
	items := []map[string]any{a, b}
	q := library.ListQuery{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default"}
	mem := library.NewMemory(nil)
	first := mem.List(q, items)
	if len(first) != 2 || !sameMap(first[0], a) || !sameMap(first[1], b) {
		t.Fatalf("List = %v, want the maps a, b", first)
	}
	if again := mem.List(q, items); &again[0] != &first[0] {
		t.Error("the same slice answered again got another list")
	}
	if prefix := mem.List(q, items[:1]); len(prefix) != 1 || &prefix[0] == &first[0] {
		t.Errorf("a shorter slice of the same array got %v (the same list: %v)", prefix, &prefix[0] == &first[0])
	}
	copied := append([]map[string]any(nil), items...)
	if other := mem.List(q, copied); &other[0] == &first[0] || !sameMap(other[1], b) {
		t.Error("another slice of the same maps got the list of the first")
	}
	other := library.ListQuery{APIVersion: "v1", Kind: "ConfigMap", Namespace: "other"}
	if l := mem.List(other, items); &l[0] == &first[0] {
		t.Error("another read got the list of the first")
	}
	var none *library.Memory
	if x, y := none.List(q, items), none.List(q, items); &x[0] == &y[0] {
		t.Error("a nil Memory remembered a list")
	}
	if empty := mem.List(q, nil); empty == nil || len(empty) != 0 {
		t.Errorf("no items: %#v, want an empty list", empty)
	}
}

func sameMap(v any, m map[string]any) bool {
	x, ok := v.(map[string]any)
	return ok && jsonvalue.Same(x, m)
}
