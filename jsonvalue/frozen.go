package jsonvalue

import (
	"reflect"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Frozen values. An owner that hands one copy of a value to many readers,
// and promises that neither it nor they will change that copy again (the
// simulator's shared reads), can freeze it: IsCanonical and Hash of the
// value, and of the maps directly inside it, are then answered from memory
// instead of walking the value each time. Nothing else changes: a frozen
// value is an ordinary map.
//
// The registry keys maps by identity and keeps each frozen map alive while
// it is registered, so an identity cannot be reused by another map. Owners
// thaw what they no longer hand out (readers that still hold it walk it
// again); the registry is also bounded and forgotten wholesale when full,
// which only costs walks.

// maxFrozen bounds the registry (maps, not objects: a frozen object
// registers itself and each map directly inside it).
const maxFrozen = 1 << 20

type frozenMap struct {
	m         map[string]any // keeps the identity alive
	canonical bool
	hashOnce  sync.Once
	hash      Fingerprint
	mu        sync.Mutex
	derived   map[string]any // see Remember
}

var frozen struct {
	mu    sync.RWMutex
	maps  map[unsafe.Pointer]*frozenMap
	count atomic.Int64 // registered maps; lookups are skipped while 0
}

func identity(m map[string]any) unsafe.Pointer {
	return reflect.ValueOf(m).UnsafePointer()
}

// Freeze registers v, a map its owner will never change again, and each
// map directly inside it, and returns v. Freezing a value that is later
// changed makes IsCanonical and Hash answer for the old content.
func Freeze(v map[string]any) map[string]any {
	if v == nil {
		return v
	}
	frozen.mu.Lock()
	defer frozen.mu.Unlock()
	if frozen.maps == nil || len(frozen.maps) >= maxFrozen {
		frozen.maps = make(map[unsafe.Pointer]*frozenMap, 1024)
	}
	// Each map directly inside v is walked once: v is canonical when they
	// all are and its other members are.
	canonical := true
	for _, e := range v {
		if m, ok := e.(map[string]any); ok {
			c := isCanonical(m)
			frozen.maps[identity(m)] = &frozenMap{m: m, canonical: c}
			canonical = canonical && c
		} else if canonical && !isCanonical(e) {
			canonical = false
		}
	}
	frozen.maps[identity(v)] = &frozenMap{m: v, canonical: canonical}
	frozen.count.Store(int64(len(frozen.maps)))
	return v
}

// Refreeze freezes v, the successor of old (frozen by Freeze or
// Refreeze, or nil), and thaws old. The maps directly inside v that old
// also held stay registered as they were, with what was remembered of
// them, and are not walked again; old's other maps are thawed. For an
// owner that replaces a value by one sharing most of it (a write that
// changed one field of an object).
func Refreeze(old, v map[string]any) map[string]any {
	if v == nil {
		Thaw(old)
		return v
	}
	frozen.mu.Lock()
	defer frozen.mu.Unlock()
	if frozen.maps == nil || len(frozen.maps) >= maxFrozen {
		frozen.maps = make(map[unsafe.Pointer]*frozenMap, 1024)
	}
	kept := make(map[unsafe.Pointer]bool, len(v))
	canonical := true
	for _, e := range v {
		if m, ok := e.(map[string]any); ok {
			id := identity(m)
			f := frozen.maps[id]
			if f == nil {
				f = &frozenMap{m: m, canonical: isCanonical(m)}
				frozen.maps[id] = f
			}
			kept[id] = true
			canonical = canonical && f.canonical
		} else if canonical && !isCanonical(e) {
			canonical = false
		}
	}
	if old != nil && identity(old) != identity(v) {
		delete(frozen.maps, identity(old))
		for _, e := range old {
			if m, ok := e.(map[string]any); ok && !kept[identity(m)] {
				delete(frozen.maps, identity(m))
			}
		}
	}
	frozen.maps[identity(v)] = &frozenMap{m: v, canonical: canonical}
	frozen.count.Store(int64(len(frozen.maps)))
	return v
}

// Frozen reports whether v is frozen (and not thawed since).
func Frozen(v map[string]any) bool { return lookupFrozen(v) != nil }

// lookupFrozen returns the registration of v, or nil.
func lookupFrozen(v any) *frozenMap {
	if frozen.count.Load() == 0 {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok || m == nil {
		return nil
	}
	frozen.mu.RLock()
	f := frozen.maps[identity(m)]
	frozen.mu.RUnlock()
	return f
}

// Thaw takes v, and the maps directly inside it, out of the registry: its
// owner hands it out no more.
func Thaw(v map[string]any) {
	if v == nil || frozen.count.Load() == 0 {
		return
	}
	frozen.mu.Lock()
	defer frozen.mu.Unlock()
	delete(frozen.maps, identity(v))
	for _, e := range v {
		if m, ok := e.(map[string]any); ok {
			delete(frozen.maps, identity(m))
		}
	}
	frozen.count.Store(int64(len(frozen.maps)))
}

// Remember returns what compute gives for v, computing it once per frozen
// v and name: for values derived from a frozen value alone (a claims key
// from an object's metadata and spec). For a value that is not frozen it
// computes every time. compute must depend on v only.
func Remember[T any](v map[string]any, name string, compute func() T) T {
	f := lookupFrozen(v)
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
