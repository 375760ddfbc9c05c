package library

import (
	"encoding/json"
	"sync"
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

// version names an object's content as the API server does, by uid and
// resourceVersion (the server gives every change a new resourceVersion),
// or "" when the object has neither and nothing may be remembered. An
// object built by hand that carries both must honour the same rule.
func version(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	uid, _ := md["uid"].(string)
	rv, _ := md["resourceVersion"].(string)
	if uid == "" || rv == "" {
		return ""
	}
	return uid + "@" + rv
}

// contentKey is the canonical JSON of v (map keys sorted), or "" when v
// cannot be encoded.
func contentKey(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(b)
}
