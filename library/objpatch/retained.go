package objpatch

import (
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/statecraft/statecraft/jsonvalue"
)

// Retained reports whether obj, an object as an API server stores it,
// holds what the plan of patch and ops asks for, judged as the server
// renders a patch rather than letter by letter: the server defaults what a
// patch writes (a container in a list the patch replaced gets its
// imagePullPolicy, an HPA's new behavior its policies) and writes
// quantities in canonical form ("0.5" as "500m"). So the merge patch holds
// when every field it sets has its value (quantities compared as
// quantities), every field it removes is absent, and the elements of every
// list it sets hold the patch's elements, fields the server added aside;
// the selector operations hold when replanning them on obj changes
// nothing. Errors are Plan's.
//
// What this cannot tell apart from a default: a field another writer adds
// inside an element of a list the patch set, or inside a map the patch
// added. Only the server knows its defaults.
func Retained(obj map[string]any, patch any, ops []Op) (bool, error) {
	if err := Validate(patch, patch != nil, ops); err != nil {
		return false, err
	}
	np, _ := jsonvalue.Canonical(patch)
	if np != nil && !holds(obj, np, false) {
		return false, nil
	}
	if len(ops) == 0 {
		return true, nil
	}
	res, err := Plan(obj, nil, ops, Options{})
	if err != nil {
		return false, err
	}
	return !res.Changed, nil
}

// holds reports whether v, a stored value, holds what the merge patch p
// sets: a map patch merges key by key (null removes), anything else is
// the value. inList is true inside an element of a list the patch set,
// where the patch's values are literal (RFC 7386 does not merge into
// lists) and the server's decoding makes a null field absent or default.
func holds(v, p any, inList bool) bool {
	switch pv := p.(type) {
	case map[string]any:
		vm, ok := v.(map[string]any)
		if !ok {
			// Absent, a map that only removes is held: the server drops
			// a map emptied by the removals (the last annotation of
			// metadata.annotations removed leaves no annotations at all).
			return v == nil && !inList && removesOnly(pv)
		}
		for k, pe := range pv {
			ve, has := vm[k]
			switch {
			case pe == nil && inList:
				// a null field in a list element: decoded as absent, or
				// defaulted
			case pe == nil:
				if has {
					return false
				}
			case !has:
				if m, ok := pe.(map[string]any); !ok || inList || !removesOnly(m) {
					return false
				}
			case !holds(ve, pe, inList):
				return false
			}
		}
		return true
	case []any:
		vl, ok := v.([]any)
		if !ok || len(vl) != len(pv) {
			return false
		}
		for i := range pv {
			if !holds(vl[i], pv[i], true) {
				return false
			}
		}
		return true
	case string:
		if vs, ok := v.(string); ok && vs != pv {
			return sameQuantity(vs, pv)
		}
	}
	return jsonvalue.Equal(v, p)
}

// removesOnly reports whether the merge patch map p only removes: each of
// its values is null or a map that only removes.
func removesOnly(p map[string]any) bool {
	for _, pe := range p {
		if pe == nil {
			continue
		}
		m, ok := pe.(map[string]any)
		if !ok || !removesOnly(m) {
			return false
		}
	}
	return true
}

// sameQuantity reports whether two strings are the same Kubernetes
// quantity, as the server canonicalizes them ("1000m" is stored as "1").
func sameQuantity(a, b string) bool {
	qa, err := resource.ParseQuantity(a)
	if err != nil {
		return false
	}
	qb, err := resource.ParseQuantity(b)
	if err != nil {
		return false
	}
	return qa.Cmp(qb) == 0
}
