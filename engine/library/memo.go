package library

import (
	"sync"

	"github.com/statecraft/statecraft/internal/jsonvalue"
)

// memo remembers the results of a pure computation by a key that identifies
// its inputs exactly (a uid with a resourceVersion or generation, and the
// content of what has neither). It is bounded and cleared wholesale when
// full; it never changes a result, only how often it is computed. Results
// are shared: callers must not modify them.
type memo[V any] = keyedMemo[string, V]

// keyedMemo is a memo with keys of any comparable type (the zero key is
// never remembered).
type keyedMemo[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	items map[K]V
}

func newMemo[V any](max int) *memo[V] { return newKeyedMemo[string, V](max) }

func newKeyedMemo[K comparable, V any](max int) *keyedMemo[K, V] {
	return &keyedMemo[K, V]{max: max, items: make(map[K]V, max)}
}

func (m *keyedMemo[K, V]) get(key K, compute func() V) V {
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

// fingerprint keys a memo by the content of values: a uid and
// resourceVersion would be cheaper, but several clusters (simulated ones
// count their uids from 1) may share a process.
func fingerprint(vs ...any) string {
	b := make([]byte, 0, 32*len(vs))
	for _, v := range vs {
		f := jsonvalue.Hash(v)
		b = appendHex(appendHex(b, f[0]), f[1])
	}
	return string(b)
}

// appendHex appends x as 16 hex digits.
func appendHex(b []byte, x uint64) []byte {
	const digits = "0123456789abcdef"
	for i := 60; i >= 0; i -= 4 {
		b = append(b, digits[(x>>uint(i))&0xf])
	}
	return b
}
