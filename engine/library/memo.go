package library

import (
	"fmt"
	"strings"
	"sync"

	"github.com/statecraft/statecraft/internal/jsonvalue"
)

// memo remembers the results of a pure computation by a key that identifies
// its inputs exactly (a uid with a resourceVersion or generation, and the
// content of what has neither). It is bounded and cleared wholesale when
// full; it never changes a result, only how often it is computed. Results
// are shared: callers must not modify them.
type memo[V any] struct {
	mu    sync.Mutex
	max   int
	items map[string]V
}

func newMemo[V any](max int) *memo[V] {
	return &memo[V]{max: max, items: make(map[string]V, max)}
}

func (m *memo[V]) get(key string, compute func() V) V {
	if key == "" {
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
	var b strings.Builder
	for _, v := range vs {
		f := jsonvalue.Hash(v)
		fmt.Fprintf(&b, "%016x%016x", f[0], f[1])
	}
	return b.String()
}
