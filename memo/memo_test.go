package memo

import "testing"

func TestTable(t *testing.T) {
	tab := NewTable[int, string](2)
	calls := 0
	get := func(k int) string {
		return tab.Get(k, func() string { calls++; return string(rune('a' + k)) })
	}
	if get(1) != "b" || get(1) != "b" || calls != 1 {
		t.Fatalf("a remembered result was computed again (%d calls)", calls)
	}
	get(2)
	if tab.Len() != 2 {
		t.Fatalf("len %d, want 2", tab.Len())
	}
	get(3) // full: forgotten wholesale, then 3 remembered
	if tab.Len() != 1 || calls != 3 {
		t.Fatalf("after overflow: len %d, calls %d", tab.Len(), calls)
	}
	get(0)
	get(0) // the zero key is never remembered
	if calls != 5 {
		t.Fatalf("zero key remembered: %d calls", calls)
	}
	var none *Table[int, string]
	if none.Get(1, func() string { return "x" }) != "x" {
		t.Fatal("a nil table must compute")
	}
}
