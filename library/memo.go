package library

import "sync"

// memo remembers the results of a pure computation by a key that identifies
// its inputs exactly (content fingerprints of what they read). It is
// bounded and cleared wholesale when full; it never changes a result, only
// how often it is computed. Results are shared: callers must not modify
// them. The zero key is never remembered.
type memo[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	items map[K]V
}

func newMemo[K comparable, V any](max int) *memo[K, V] {
	return &memo[K, V]{max: max, items: make(map[K]V, max)}
}

func (m *memo[K, V]) get(key K, compute func() V) V {
	var zero K
	if key == zero {
		return compute()
	}
	m.mu.Lock()
	v, ok := m.items[key]
	m.mu.Unlock()
	if ok {
		return v
	}
	v = compute()
	m.mu.Lock()
	if len(m.items) >= m.max {
		clear(m.items)
	}
	m.items[key] = v
	m.mu.Unlock()
	return v
}
