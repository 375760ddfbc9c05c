package scenario

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
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
	m := r.machines[ref.APIVersion+"/"+ref.Kind]
	if m != nil {
		st = r.memory(m, ref, obj)
	}
	if e.State != nil {
		field := "state"
		if m != nil {
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
		if rest, ok := strings.CutPrefix(f.Path, "memory."); ok {
			got, present = lookupPath(st, rest)
		}
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

// lookupPath reads a dotted path (jsonvalue.DottedPath: a number indexes
// a list, `\.` is a dot inside a key); a token Key[Type] selects, in the
// list under Key, the condition (or any element) whose "type" is Type:
// status.conditions[Ready].status.
func lookupPath(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, tok := range jsonvalue.DottedPath(path) {
		key, sel, selects := strings.Cut(tok, "[")
		if !selects || !strings.HasSuffix(sel, "]") {
			key, sel = tok, ""
		}
		var ok bool
		if cur, ok = jsonvalue.Lookup(cur, []string{key}); !ok {
			return nil, false
		}
		if sel == "" {
			continue
		}
		typ := strings.TrimSuffix(sel, "]")
		list, _ := cur.([]any)
		found := false
		for _, it := range list {
			if im, ok := it.(map[string]any); ok && im["type"] == typ {
				cur, found = im, true
				break
			}
		}
		if !found {
			return nil, false
		}
	}
	return cur, true
}

// memory returns the memory of the object obj of machine m, wherever the
// machine keeps it (engine.MemoryOf, or its companion ConfigMap).
func (r *runner) memory(m *fsm.Machine, ref adapters.Ref, obj map[string]any) map[string]any {
	if m.Source.MemoryIn != "companion" {
		return engine.MemoryOf(m, obj)
	}
	cm, ok := r.cluster.Object(engine.CompanionRef(m, ref))
	if !ok {
		return map[string]any{}
	}
	return engine.CompanionMemory(cm)
}
