package sim

import (
	"encoding/json"
	"fmt"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonparse"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Objects are stored as canonical JSON values (package jsonvalue), as a
// client decodes what kube-apiserver sends: map[string]any, []any, string,
// bool, nil, int64 for integral numbers and float64 for the others (the
// server prints a float64 that is a whole number without a fraction, so 2.0
// comes back as 2).

// decodeObject parses a JSON object into the canonical representation.
func decodeObject(data []byte) (map[string]any, error) {
	v, err := jsonparse.Parse(data, jsonparse.Options{})
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the body is not a JSON object")
	}
	return canonicalObject(m)
}

// canonicalObject returns a canonical deep copy of obj.
func canonicalObject(obj map[string]any) (map[string]any, error) {
	v, err := jsonvalue.Normalize(obj)
	if err != nil {
		return nil, err
	}
	return v.(map[string]any), nil
}

// normalize converts any JSON-marshalable object (for example one written
// as a Go literal with int values) into the canonical representation.
func normalize(obj map[string]any) (map[string]any, error) { return canonicalObject(obj) }

// bodyObject returns the object a create, update or apply request carries,
// as a canonical copy the simulator may keep.
func bodyObject(req adapters.Request) (map[string]any, error) {
	obj, ok := req.Body.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the body is not a JSON object")
	}
	return canonicalObject(obj)
}

func copyObject(obj map[string]any) map[string]any {
	if obj == nil {
		return nil
	}
	return jsonvalue.DeepCopy(obj).(map[string]any)
}

func mustJSON(obj any) []byte {
	data, err := json.Marshal(obj)
	if err != nil {
		// Canonical values always marshal.
		panic(fmt.Sprintf("sim: marshal: %v", err))
	}
	return data
}

// metadata returns obj.metadata, creating it when absent.
func metadata(obj map[string]any) map[string]any {
	if m, ok := obj["metadata"].(map[string]any); ok {
		return m
	}
	m := map[string]any{}
	obj["metadata"] = m
	return m
}

func metaString(obj map[string]any, field string) string {
	m, _ := obj["metadata"].(map[string]any)
	s, _ := m[field].(string)
	return s
}

func stringList(v any) []string {
	l, _ := v.([]any)
	out := make([]string, 0, len(l))
	for _, e := range l {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	out := make(map[string]string, len(m))
	for k, e := range m {
		if s, ok := e.(string); ok {
			out[k] = s
		}
	}
	return out
}

func toAnyList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// withoutKeys returns a shallow copy of obj without the named top-level keys
// and without the named metadata fields.
func withoutKeys(obj map[string]any, top []string, meta []string) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	for _, k := range top {
		delete(out, k)
	}
	if m, ok := out["metadata"].(map[string]any); ok && len(meta) > 0 {
		mc := make(map[string]any, len(m))
		for k, v := range m {
			mc[k] = v
		}
		for _, k := range meta {
			delete(mc, k)
		}
		out["metadata"] = mc
	}
	return out
}

// diffLeaves walks old and new together and reports, as JSON pointers, the
// leaves (see leaves) of old that new no longer has and the leaves of new
// that are new or changed.
func diffLeaves(old, new any, prefix string, removed, changed func(p string)) {
	om, oldMap := old.(map[string]any)
	nm, newMap := new.(map[string]any)
	if oldMap && newMap && len(om) > 0 && sameMap(om, nm) {
		return // one map: a write shares what it did not change (candidate)
	}
	oldBranch := oldMap && (len(om) > 0 || prefix == "")
	newBranch := newMap && (len(nm) > 0 || prefix == "")
	switch {
	case oldBranch && newBranch:
		diffMembers(om, nm, prefix, nil, removed, changed)
	case oldBranch:
		eachLeaf(old, prefix, removed)
		changed(prefix)
	case newBranch:
		removed(prefix)
		eachLeaf(new, prefix, changed)
	default:
		if !jsonvalue.Equal(old, new) {
			changed(prefix)
		}
	}
}

// diffMembers is diffLeaves for the members of two maps at prefix, those
// keep accepts (nil: all). A member path is only built where something may
// differ: most members of a written object are the same values.
func diffMembers(om, nm map[string]any, prefix string, keep func(string) bool, removed, changed func(p string)) {
	for k, ov := range om {
		if keep != nil && !keep(k) {
			continue
		}
		nv, has := nm[k]
		if !has {
			eachLeaf(ov, prefix+"/"+jsonvalue.EscapeToken(k), removed)
			continue
		}
		if scalarEqual(ov, nv) {
			continue
		}
		diffLeaves(ov, nv, prefix+"/"+jsonvalue.EscapeToken(k), removed, changed)
	}
	for k, nv := range nm {
		if keep != nil && !keep(k) {
			continue
		}
		if _, had := om[k]; !had {
			eachLeaf(nv, prefix+"/"+jsonvalue.EscapeToken(k), changed)
		}
	}
}

// diffPatched is diffMembers of old and new, where new is old merged with
// the RFC 7386 patch: only the members the patch names can differ (the
// merge shares the others), so only they are compared.
func diffPatched(om, nm, patch map[string]any, prefix string, keep func(string) bool, removed, changed func(p string)) {
	for k, pv := range patch {
		if keep != nil && !keep(k) {
			continue
		}
		ov, had := om[k]
		nv, has := nm[k]
		switch {
		case !had && !has:
		case !has:
			eachLeaf(ov, prefix+"/"+jsonvalue.EscapeToken(k), removed)
		case !had:
			eachLeaf(nv, prefix+"/"+jsonvalue.EscapeToken(k), changed)
		case scalarEqual(ov, nv):
		default:
			pm, patchMap := pv.(map[string]any)
			oc, oldMap := ov.(map[string]any)
			nc, newMap := nv.(map[string]any)
			if patchMap && oldMap && newMap && len(oc) > 0 && len(nc) > 0 {
				diffPatched(oc, nc, pm, prefix+"/"+jsonvalue.EscapeToken(k), nil, removed, changed)
			} else {
				diffLeaves(ov, nv, prefix+"/"+jsonvalue.EscapeToken(k), removed, changed)
			}
		}
	}
}

// scalarEqual reports whether a and b are equal values that are not maps
// (a leaf diffLeaves would find unchanged).
func scalarEqual(a, b any) bool {
	if _, isMap := a.(map[string]any); isMap {
		return false
	}
	if _, isMap := b.(map[string]any); isMap {
		return false
	}
	return jsonvalue.Equal(a, b)
}

func eachLeaf(v any, prefix string, f func(p string)) {
	m, ok := v.(map[string]any)
	if !ok || (len(m) == 0 && prefix != "") {
		f(prefix)
		return
	}
	for k, e := range m {
		eachLeaf(e, prefix+"/"+jsonvalue.EscapeToken(k), f)
	}
}

// Field paths are JSON pointers (RFC 6901): "/metadata/labels/app".

// getPath returns the value at pointer p inside obj.
func getPath(obj map[string]any, p string) (any, bool) {
	return jsonvalue.Lookup(obj, jsonvalue.PointerPath(p))
}

// setPath sets the value at pointer p, creating (or replacing non-map)
// intermediate values with maps.
func setPath(obj map[string]any, p string, v any) {
	toks := jsonvalue.PointerPath(p)
	cur := obj
	for _, tok := range toks[:len(toks)-1] {
		next, ok := cur[tok].(map[string]any)
		if !ok {
			next = map[string]any{}
			cur[tok] = next
		}
		cur = next
	}
	cur[toks[len(toks)-1]] = v
}

// deletePath removes the value at pointer p and reports whether it existed.
func deletePath(obj map[string]any, p string) bool {
	toks := jsonvalue.PointerPath(p)
	cur := obj
	for _, tok := range toks[:len(toks)-1] {
		next, ok := cur[tok].(map[string]any)
		if !ok {
			return false
		}
		cur = next
	}
	last := toks[len(toks)-1]
	_, ok := cur[last]
	delete(cur, last)
	return ok
}

// leaves flattens v into pointer → value for every leaf: scalars, lists
// (lists are atomic) and empty maps.
func leaves(v any, prefix string, out map[string]any) {
	m, ok := v.(map[string]any)
	if !ok || (len(m) == 0 && prefix != "") {
		out[prefix] = v
		return
	}
	for k, e := range m {
		leaves(e, prefix+"/"+jsonvalue.EscapeToken(k), out)
	}
}

// overlaps reports whether one pointer is equal to or an ancestor of the other.
func overlaps(a, b string) bool {
	if len(a) < len(b) {
		a, b = b, a
	}
	// a == b, or a continues b past a "/" (built without concatenating).
	return a[:len(b)] == b && (len(a) == len(b) || a[len(b)] == '/')
}

// pathValue returns the value at pointer p inside obj, nil when absent.
func pathValue(obj map[string]any, p string) any {
	v, _ := getPath(obj, p)
	return v
}

func labelMap(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["labels"].(map[string]any)
	return l
}
