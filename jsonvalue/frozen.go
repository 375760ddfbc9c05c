package jsonvalue

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Frozen values. An owner that hands one copy of a value to many readers,
// and promises that neither it nor they will change that copy again (the
// simulator's shared reads, the controller's informer cache), can freeze it
// in a Registry: the registry's IsCanonical and Hash of the value, and of
// the maps directly inside it, are then answered from memory instead of
// walking the value each time, and Remember keeps what is derived from it.
// Nothing else changes: a frozen value is an ordinary map.
//
// A Registry belongs to one run (a simulation, a controller): the owners
// that freeze and the readers that ask share it, and nothing is global. It
// keys maps by identity and keeps each frozen map alive while it is
// registered, so an identity cannot be reused by another map. Owners thaw
// what they no longer hand out (readers that still hold it walk it again);
// the registry is also bounded and forgotten wholesale when full, which
// only costs walks. A nil *Registry holds nothing: every question walks.

// maxFrozen bounds a registry (maps, not objects: a frozen object
// registers itself and each map directly inside it).
const maxFrozen = 1 << 20

// Registry is the frozen values of one run. It is safe for concurrent use.
type Registry struct {
	mu    sync.RWMutex
	maps  map[unsafe.Pointer]*frozenMap
	count atomic.Int64 // registered maps; lookups are skipped while 0
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{} }

type frozenMap struct {
	m         map[string]any // keeps the identity alive
	canonical bool
	hashOnce  sync.Once
	hash      Fingerprint
	mu        sync.Mutex
	derived   map[string]any // see Remember
}

func identity(m map[string]any) unsafe.Pointer {
	return reflect.ValueOf(m).UnsafePointer()
}

// Freeze registers v, a map its owner will never change again, and each
// map directly inside it, and returns v. Freezing a value that is later
// changed makes IsCanonical and Hash answer for the old content.
func (r *Registry) Freeze(v map[string]any) map[string]any {
	if v == nil || r == nil {
		return v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.maps == nil || len(r.maps) >= maxFrozen {
		r.maps = make(map[unsafe.Pointer]*frozenMap, 1024)
	}
	// Each map directly inside v is walked once: v is canonical when they
	// all are and its other members are.
	canonical := true
	for _, e := range v {
		if m, ok := e.(map[string]any); ok {
			c := isCanonical(m)
			r.maps[identity(m)] = &frozenMap{m: m, canonical: c}
			canonical = canonical && c
		} else if canonical && !isCanonical(e) {
			canonical = false
		}
	}
	r.maps[identity(v)] = &frozenMap{m: v, canonical: canonical}
	r.count.Store(int64(len(r.maps)))
	return v
}

// Refreeze freezes v, the successor of old (frozen by Freeze or
// Refreeze, or nil), and thaws old. The maps directly inside v that old
// also held stay registered as they were, with what was remembered of
// them, and are not walked again; old's other maps are thawed. For an
// owner that replaces a value by one sharing most of it (a write that
// changed one field of an object).
func (r *Registry) Refreeze(old, v map[string]any) map[string]any {
	if r == nil {
		return v
	}
	if v == nil {
		r.Thaw(old)
		return v
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.maps == nil || len(r.maps) >= maxFrozen {
		r.maps = make(map[unsafe.Pointer]*frozenMap, 1024)
	}
	kept := make(map[unsafe.Pointer]bool, len(v))
	canonical := true
	for _, e := range v {
		if m, ok := e.(map[string]any); ok {
			id := identity(m)
			f := r.maps[id]
			if f == nil {
				f = &frozenMap{m: m, canonical: isCanonical(m)}
				r.maps[id] = f
			}
			kept[id] = true
			canonical = canonical && f.canonical
		} else if canonical && !isCanonical(e) {
			canonical = false
		}
	}
	if old != nil && identity(old) != identity(v) {
		delete(r.maps, identity(old))
		for _, e := range old {
			if m, ok := e.(map[string]any); ok && !kept[identity(m)] {
				delete(r.maps, identity(m))
			}
		}
	}
	r.maps[identity(v)] = &frozenMap{m: v, canonical: canonical}
	r.count.Store(int64(len(r.maps)))
	return v
}

// Frozen reports whether v is frozen in r (and not thawed since).
func (r *Registry) Frozen(v map[string]any) bool { return r.lookup(v) != nil }

// lookup returns the registration of v, or nil.
func (r *Registry) lookup(v any) *frozenMap {
	if r == nil || r.count.Load() == 0 {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok || m == nil {
		return nil
	}
	r.mu.RLock()
	f := r.maps[identity(m)]
	r.mu.RUnlock()
	return f
}

// Thaw takes v, and the maps directly inside it, out of the registry: its
// owner hands it out no more.
func (r *Registry) Thaw(v map[string]any) {
	if v == nil || r == nil || r.count.Load() == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.maps, identity(v))
	for _, e := range v {
		if m, ok := e.(map[string]any); ok {
			delete(r.maps, identity(m))
		}
	}
	r.count.Store(int64(len(r.maps)))
}

// IsCanonical is the package's IsCanonical, answered from memory for a
// frozen v.
func (r *Registry) IsCanonical(v any) bool {
	if f := r.lookup(v); f != nil {
		return f.canonical
	}
	return isCanonical(v)
}

// Canonical is the package's Canonical, answered from memory for a frozen
// canonical v.
func (r *Registry) Canonical(v any) (any, error) {
	if r.IsCanonical(v) {
		return v, nil
	}
	return Normalize(v)
}

// Hash is the package's Hash, computed once for a frozen v.
func (r *Registry) Hash(v any) Fingerprint {
	if f := r.lookup(v); f != nil {
		f.hashOnce.Do(func() { f.hash = Hash(v) })
		return f.hash
	}
	return Hash(v)
}

// Remember returns what compute gives for v, computing it once per v
// frozen in r and name: for values derived from a frozen value alone (a
// claims key from an object's metadata and spec). For a value that is not
// frozen it computes every time. compute must depend on v only.
func Remember[T any](r *Registry, v map[string]any, name string, compute func() T) T {
	f := r.lookup(v)
	if f == nil {
		return compute()
	}
	f.mu.Lock()
	x, ok := f.derived[name]
	f.mu.Unlock()
	if ok {
		return x.(T)
	}
	t := compute()
	f.mu.Lock()
	if f.derived == nil {
		f.derived = map[string]any{}
	}
	f.derived[name] = t
	f.mu.Unlock()
	return t
}

// Same reports whether a and b are the same map (both nil included), not
// merely equal: for a frozen map, the same content.
func Same(a, b map[string]any) bool { return identity(a) == identity(b) }
