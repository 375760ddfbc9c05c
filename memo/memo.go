package memo

import "sync"

// Table is a bounded memo, safe for concurrent use. Results are shared:
// callers must not modify them. The zero key is never remembered.
type Table[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	items map[K]V
}

// NewTable returns a table that holds at most max results.
func NewTable[K comparable, V any](max int) *Table[K, V] {
	return &Table[K, V]{max: max, items: make(map[K]V, min(max, 1024))}
}

// Get returns the result remembered for key, or computes, remembers and
// returns it.
func (t *Table[K, V]) Get(key K, compute func() V) V {
	var zero K
	if t == nil || key == zero {
		return compute()
	}
	t.mu.Lock()
	v, ok := t.items[key]
	t.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	t.mu.Lock()
	if len(t.items) >= t.max {
		clear(t.items)
	}
	t.items[key] = v
	t.mu.Unlock()
	return v
}

// Len returns how many results the table holds.
func (t *Table[K, V]) Len() int {
	if t == nil {
		return 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.items)
}
