package engine

import (
	"fmt"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/traits"
	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
)

// Observation is what the engine read for one observe block.
type Observation struct {
	Outcome adapters.Outcome
	Object  map[string]any   // for get, when it exists
	Items   []map[string]any // for list
	Scope   adapters.Scope   // how the observed kind is served
	Message string
	Skipped bool // its when was false
	// Each, for an observation with for_each, holds the observation of
	// each element, in order (empty when it was skipped); the
	// observation's value is then their list.
	Each []Observation
	// Item, in Each, is the element the observation was made for.
	Item any
	// canonical is set when Object and Items are already canonical JSON
	// values (Reconcile makes them so once per read, not once per step).
	canonical bool
	// val, when set, is value() made once for every step that sees it.
	val any
}

// withValue returns o with its CEL value made once (read-only).
func (o Observation) withValue() Observation {
	o.val = o.value(nil)
	return o
}

// withListValue is withValue for the canonical answer to the list read q,
// whose items lib makes into a CEL list once for as long as the same
// slice is answered (library.Memory.List).
func (o Observation) withListValue(lib *library.Memory, q library.ListQuery) Observation {
	o.val = o.valueOf(lib, lib.List(q, o.Items))
	return o
}

// value is the observation's CEL value; values not known canonical are
// made so, answered from lib's registry for frozen ones.
func (o Observation) value(lib *library.Memory) any {
	if o.val != nil {
		return o.val
	}
	if o.Each != nil {
		out := make([]any, len(o.Each))
		for i, e := range o.Each {
			out[i] = e.value(lib)
		}
		return out
	}
	var items []any
	if o.Items != nil {
		items = make([]any, len(o.Items))
		for i, it := range o.Items {
			items[i] = it
			if !o.canonical {
				items[i] = lib.Canonical(it)
			}
		}
	}
	return o.valueOf(lib, items)
}

// valueOf is the observation's CEL value with its items made (nil: none).
func (o Observation) valueOf(lib *library.Memory, items []any) any {
	// object and items are never null: an empty map and list when the
	// observation has none. Values are read-only, so one empty map serves.
	object := emptyObject
	if o.Object != nil {
		object = o.Object
		if !o.canonical {
			object = lib.Canonical(o.Object)
		}
	}
	var list any = emptyItems
	if items != nil {
		list = items
	}
	outcome := boxed(string(o.Outcome))
	if o.Skipped {
		outcome = boxed("skipped")
	}
	v := map[string]any{
		"exists":  o.Outcome == adapters.OK && o.Object != nil,
		"outcome": outcome,
		"object":  object,
		"items":   list,
		"scope":   boxed(string(o.Scope)),
		"message": o.Message,
	}
	if o.Item != nil {
		v["item"] = o.Item
	}
	return v
}

// emptyObject and emptyItems are the object and items of an observation
// that has none.
var (
	emptyObject any = map[string]any{}
	emptyItems  any = []any{}
)

// boxed returns s in an interface; an outcome or a scope is boxed once,
// as a constant, so that making a value boxes none.
func boxed(s string) any {
	switch s {
	case string(adapters.OK):
		return string(adapters.OK)
	case string(adapters.NotFound):
		return string(adapters.NotFound)
	case string(adapters.Forbidden):
		return string(adapters.Forbidden)
	case string(adapters.Invalid):
		return string(adapters.Invalid)
	case string(adapters.Conflict):
		return string(adapters.Conflict)
	case string(adapters.Transient):
		return string(adapters.Transient)
	case string(adapters.Unsupported):
		return string(adapters.Unsupported)
	case string(adapters.Namespaced):
		return string(adapters.Namespaced)
	case string(adapters.Cluster):
		return string(adapters.Cluster)
	case "skipped":
		return "skipped"
	}
	return s
}

// Read is one observation the engine must make before a step.
type Read struct {
	Name string
	Ref  adapters.Ref
	List bool
	// LabelSelector is set for list reads.
	LabelSelector string
	Skip          bool
	Err           error // the observation's reference could not be computed
	// StatusBlind is set by Certify on a list read whose items' status the
	// decision did not read.
	StatusBlind bool
	// ScopeOnly, on a read a Reconciliation asks its driver for, says
	// that only the kind's scope is wanted: the reconcile wrote the object
	// itself and knows what it is.
	ScopeOnly bool
	// Each is set on the reads of an observation with for_each: Index is
	// the element's position and Item the element.
	Each  bool
	Index int
	Item  any
}

// skippedObservation is an observation not made, and skipped its value.
var (
	skippedObservation = Observation{Skipped: true}.withValue()
	skipped            = skippedObservation.val
)

// Reads returns the first wave of observations to make before stepping
// obj at now: those that read no other observation (fsm.Observe.Wave).
func Reads(m *fsm.Machine, obj map[string]any, now time.Time) []Read {
	v, _ := newVars(m, obj, nil, nil, now)
	return readsWith(m, v, 0)
}

// readsWith computes, in v, the reads of the observations of one wave.
func readsWith(m *fsm.Machine, v *vars, wave int) []Read {
	out := make([]Read, 0, len(m.Observes))
	for _, o := range m.Observes {
		if o.Wave != wave {
			continue
		}
		r := Read{Name: o.Name, List: o.List != nil, Each: o.ForEach != nil}
		if o.When != nil {
			ok, err := v.evalBool(o.When)
			if err != nil {
				r.Err = err
			}
			if !ok {
				r.Skip = true
				out = append(out, r)
				continue
			}
		}
		if o.ForEach == nil {
			out = append(out, readOf(o, v, r))
			continue
		}
		list, err := v.eval(o.ForEach)
		if err != nil {
			r.Err, r.Index = fmt.Errorf("for_each: %w", err), -1
			out = append(out, r)
			continue
		}
		items, _ := list.([]any)
		for i, it := range items {
			e := r
			e.Index, e.Item = i, it
			out = append(out, readOf(o, v.with(map[string]any{"item": it, "index": int64(i)}), e))
		}
		if len(items) == 0 {
			r.Skip = true // nothing to read: the observation is an empty list
			out = append(out, r)
		}
	}
	return out
}

// readOf computes the reference of one read of o in v; a reference that
// reads only the object (fsm.Observe.SelfRef) is computed once per frozen
// object.
func readOf(o *fsm.Observe, v *vars, r Read) Read {
	if o.SelfRef {
		if frozen := v.m.Memory.Frozen(); frozen.Frozen(v.self) {
			return jsonvalue.Remember(frozen, v.self, refMemoOf(v.m, o), func() Read { return refOf(o, v, r) })
		}
	}
	return refOf(o, v, r)
}

// refMemoOf is the jsonvalue.Remember name of o's reference: one per
// compiled machine and observation, as for params.
func refMemoOf(m *fsm.Machine, o *fsm.Observe) string {
	names := m.Memory.Memo(m, "engine.refMemo", func() any {
		names := make(map[*fsm.Observe]string, len(m.Observes))
		for _, o := range m.Observes {
			names[o] = fmt.Sprintf("engine.ref/%s/%p/%s", m.Name, m, o.Name)
		}
		return names
	}).(map[*fsm.Observe]string)
	return names[o]
}

// refOf evaluates the reference of one read of o in v.
func refOf(o *fsm.Observe, v *vars, r Read) Read {
	p := o.Get
	if r.List {
		p = o.List
	}
	// The reference is read from the CEL map itself: converting the
	// whole map to Go first cost more than evaluating it.
	val, err := p.Eval(v)
	if err == nil && types.IsError(val) {
		err = val.(*types.Err)
	}
	if err != nil {
		r.Err = err
		return r
	}
	m, ok := val.(traits.Mapper)
	if !ok {
		r.Err = fmt.Errorf("observe %s: want a map {apiVersion, kind, namespace, name}, got %T", o.Name, library.ToGo(val))
		return r
	}
	field := func(k string) string {
		f, found := m.Find(types.String(k))
		if !found {
			return ""
		}
		s, _ := library.ToGo(f).(string)
		return s
	}
	r.Ref = adapters.Ref{APIVersion: field("apiVersion"), Kind: field("kind"), Namespace: field("namespace"), Name: field("name")}
	r.LabelSelector = field("labelSelector")
	return r
}

func refFromMap(m map[string]any) adapters.Ref {
	s := func(k string) string { x, _ := m[k].(string); return x }
	return adapters.Ref{APIVersion: s("apiVersion"), Kind: s("kind"), Namespace: s("namespace"), Name: s("name")}
}

// libraryOf is the library memory of m's run, whose registry answers for
// frozen values (nil: none; its methods then compute).
func libraryOf(m *fsm.Machine) *library.Memory {
	if m == nil || m.Memory == nil {
		return nil
	}
	return m.Memory.Library
}
