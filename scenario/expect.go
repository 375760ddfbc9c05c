package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/statecraft/statecraft/library"
)

func (r *runner) check(e *Expect) {
	r.res.Expects++
	fail := func(format string, args ...any) {
		r.res.Failures = append(r.res.Failures, fmt.Sprintf("%s: at %s, %s: %s", e.Range, Stamp(e.At), e.Object, fmt.Sprintf(format, args...)))
	}
	for i := range e.Writes {
		w := &e.Writes[i]
		if got := r.counts[w]; got != w.Count {
			fail("want %d %s, got %d", w.Count, w, got)
		}
	}
	if e.Object.Kind == "" {
		return
	}
	ref, err := r.target(e.Object)
	if err != nil {
		fail("%v", err)
		return
	}
	obj, ok := r.cluster.Object(ref)
	if e.Absent {
		if ok {
			fail("want the object absent; it exists")
		}
		return
	}
	if !ok {
		fail("the object does not exist")
		return
	}
	obj = library.Normalize(obj).(map[string]any)
	st, _ := obj["status"].(map[string]any)
	if e.State != nil {
		field := "state"
		if m := r.machines[ref.APIVersion+"/"+ref.Kind]; m != nil {
			field = m.StateField
		}
		if got, _ := st[field].(string); got != *e.State {
			fail("want state %q, got %q", *e.State, got)
		}
	}
	if e.Reason != nil {
		if got, _ := st["reason"].(string); got != *e.Reason {
			fail("want reason %q, got %q", *e.Reason, got)
		}
	}
	for _, f := range e.Fields {
		got, present := lookupPath(obj, f.Path)
		switch {
		case f.Value == nil && present:
			fail("want %s absent, got %s", f.Path, jsonText(got))
		case f.Value != nil && !reflect.DeepEqual(library.Normalize(f.Value), got):
			fail("want %s = %s, got %s", f.Path, jsonText(f.Value), jsonText(got))
		}
	}
}

func jsonText(v any) string {
	if v == nil {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// lookupPath reads a dotted path; a segment [Type] selects the condition
// (or any list element) whose "type" is Type: status.conditions[Ready].status.
// A segment that is a number indexes a list (metadata.ownerReferences.0.uid);
// `\.` is a dot inside a key (metadata.labels.app\.kubernetes\.io/name).
func lookupPath(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, seg := range splitPath(path) {
		sel := ""
		if i := strings.Index(seg, "["); i >= 0 && strings.HasSuffix(seg, "]") {
			seg, sel = seg[:i], seg[i+1:len(seg)-1]
		}
		if list, isList := cur.([]any); isList {
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(list) || sel != "" {
				return nil, false
			}
			cur = list[n]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
		if sel != "" {
			list, _ := cur.([]any)
			found := false
			for _, it := range list {
				if im, ok := it.(map[string]any); ok && im["type"] == sel {
					cur, found = im, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
	}
	return cur, true
}

// splitPath splits a dotted path at the dots not escaped as `\.`.
func splitPath(path string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] == '\\' && i+1 < len(path) && path[i+1] == '.':
			cur.WriteByte('.')
			i++
		case path[i] == '.':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(path[i])
		}
	}
	return append(out, cur.String())
}
