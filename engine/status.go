package engine

import (
	"strings"
	"time"
)

func statusOf(obj map[string]any) map[string]any {
	st, _ := obj["status"].(map[string]any)
	if st == nil {
		return map[string]any{}
	}
	return st
}

// setCondition upserts a metav1.Condition-shaped entry, keeping
// lastTransitionTime unless the status changes, and the list ordered as
// it was (new types appended).
func setCondition(list any, typ, status, reason, message string, gen any, now time.Time) []any {
	items, _ := list.([]any)
	out := make([]any, 0, len(items)+1)
	found := false
	for _, it := range items {
		c, _ := it.(map[string]any)
		if c == nil || c["type"] != typ {
			out = append(out, it)
			continue
		}
		found = true
		nc := map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": c["lastTransitionTime"]}
		if c["status"] != status || c["lastTransitionTime"] == nil {
			nc["lastTransitionTime"] = now.UTC().Format(time.RFC3339)
		}
		if gen != nil {
			nc["observedGeneration"] = gen
		}
		out = append(out, nc)
	}
	if !found {
		nc := map[string]any{"type": typ, "status": status, "reason": reason, "message": message, "lastTransitionTime": now.UTC().Format(time.RFC3339)}
		if gen != nil {
			nc["observedGeneration"] = gen
		}
		out = append(out, nc)
	}
	return out
}

// generationPath is metadata.generation, which status.observedGeneration
// reports.
var generationPath = []string{"metadata", "generation"}

// setPath assigns a dotted path; nil removes the field.
func setPath(obj map[string]any, path string, val any) {
	segs := strings.Split(path, ".")
	cur := obj
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			if val == nil {
				return
			}
			next = map[string]any{}
		} else {
			next = shallowCopy(next) // obj's maps below the top may be shared
		}
		cur[s] = next
		cur = next
	}
	if val == nil {
		delete(cur, segs[len(segs)-1])
		return
	}
	cur[segs[len(segs)-1]] = val
}

// shallowCopy returns a copy of m's top level (an empty map for nil).
func shallowCopy(m map[string]any) map[string]any {
	c := make(map[string]any, len(m)+2)
	for k, v := range m {
		c[k] = v
	}
	return c
}

func withStatus(obj, status map[string]any) map[string]any {
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	c["status"] = status
	return c
}
