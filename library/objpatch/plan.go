package objpatch

import (
	"fmt"
	"strconv"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/google/cel-go/cel"
)

// Options tune Plan.
type Options struct {
	// CostLimit is the runtime CEL cost limit of one selector evaluation
	// against one element; exceeding it is an error. 0 means
	// DefaultCostLimit.
	CostLimit uint64
	// Selectors, when set, remembers compiled selectors across plans.
	Selectors *Selectors
}

// Result is a computed plan.
type Result struct {
	// Object is the desired target: the merge patch applied to the target,
	// then every operation in declaration order.
	Object map[string]any `json:"object"`
	// Changed reports whether Object differs from the target.
	Changed bool `json:"changed"`
	// MergePatch is the merge patch as canonical JSON (sorted keys), or nil
	// when there is no merge patch or applying it changes nothing.
	MergePatch []byte `json:"mergePatch,omitempty"`
	// Merge is MergePatch as a canonical value (shared with the plan: not
	// to be changed), nil with it.
	Merge map[string]any `json:"-"`
	// JSONPatch is an RFC 6902 patch, to be applied after MergePatch, that
	// performs the selector operations with concrete indices. Every
	// operation is preceded by a "test" operation that pins the selected
	// element, so that a concurrent reorder or edit fails the request
	// instead of modifying the wrong element. Operations that change
	// nothing are omitted; nil when none remain.
	JSONPatch []byte `json:"jsonPatch,omitempty"`
	// Matches lists, per operation, the JSON Pointers of the elements its
	// selector matched when it ran.
	Matches [][]string `json:"matches,omitempty"`
}

// Plan computes the desired state of target under a merge patch (nil: none)
// and selector operations, and the requests that produce it.
//
// The merge patch (RFC 7386) is applied first. Then each operation, in
// declaration order: the value at the path before "@" must exist and be an
// array; the selector is evaluated with item bound to each element;
// ExactlyOne requires exactly one match and All at least one (an All
// operation that matches nothing would enforce nothing, so it is an error
// too); replace requires its path to exist under each selected element;
// add requires each selected element to be an object and creates or
// replaces the member; remove requires an object and makes the member
// absent (already absent is fine). Elements are never inserted, appended or
// removed, so unmatched elements and their order are preserved.
//
// After every operation, each selector that has run so far must still be
// true for every element it selected. Finally the complete plan is replayed
// on its own result and must succeed without any further change. Errors are
// *Error values; Validate's checks run first.
func Plan(target map[string]any, patch any, ops []Op, opts Options) (*Result, error) {
	if err := Validate(patch, patch != nil, ops); err != nil {
		return nil, err
	}
	limit := opts.CostLimit
	if limit == 0 {
		limit = DefaultCostLimit
	}
	orig, err := jsonvalue.Canonical(target) // copied below before anything is written
	if err != nil {
		return nil, &Error{Index: -1, Field: "target", Message: err.Error()}
	}
	if orig == nil {
		orig = map[string]any{}
	}
	np, _ := jsonvalue.Canonical(patch) // checked by Validate; never written
	r := &runner{ops: ops, parsed: make([]parsedPath, len(ops)), values: make([]any, len(ops)),
		prgs: make([]cel.Program, len(ops)), pins: make([]pin, len(ops)), patch: np}
	for i, op := range ops {
		r.parsed[i], _ = parsePath(op.Path)
		r.values[i], _ = jsonvalue.Canonical(op.Value) // copied before use
		p, msg := opts.Selectors.selectorProgram(op.Selector, limit)
		if msg != "" {
			return nil, opErr(i, "selector", "%s", msg)
		}
		r.prgs[i] = p
		if f, lit, ok := opts.Selectors.keyLiteral(op.Selector); ok {
			r.pins[i] = pin{field: f, literal: lit, ok: true}
		}
	}

	out, err := r.run(orig.(map[string]any), true)
	if err != nil {
		return nil, err
	}
	again, err := r.run(out.object, false)
	if err != nil {
		if e, ok := err.(*Error); ok {
			return nil, &Error{Index: e.Index, Field: e.Field,
				Message: "the plan does not replay on its own result: " + e.Message}
		}
		return nil, err
	}
	if !jsonvalue.Equal(out.object, again.object) {
		return nil, &Error{Index: -1, Field: "jsonPatch", Message: fmt.Sprintf(
			"the plan is not idempotent: replaying it on its own result changes %s",
			firstDiff("", out.object, again.object))}
	}

	res := &Result{Object: out.object, Changed: !jsonvalue.Equal(orig, out.object), Matches: out.matches}
	if !res.Changed {
		return res, nil
	}
	if np != nil && out.mergeChanged {
		if res.MergePatch, err = jsonvalue.CanonicalJSON(np); err != nil {
			return nil, &Error{Index: -1, Field: "patch", Message: err.Error()}
		}
		res.Merge, _ = np.(map[string]any)
	}
	if len(out.jsonOps) > 0 {
		if res.JSONPatch, err = jsonvalue.CanonicalJSON(out.jsonOps); err != nil {
			return nil, &Error{Index: -1, Field: "jsonPatch", Message: err.Error()}
		}
	}
	return res, nil
}

// Satisfied reports whether applying the plan to target would change
// nothing: the target already matches (drift detection, and an
// already-matching target counts as applied). Errors are Plan's.
func Satisfied(target map[string]any, patch any, ops []Op) (bool, error) {
	res, err := Plan(target, patch, ops, Options{})
	if err != nil {
		return false, err
	}
	return !res.Changed, nil
}

// pin says how a JSON Patch test operation pins a selected element: by
// its key field when the selector is `item.field == "literal"`, else by the
// element's whole value.
type pin struct {
	field, literal string
	ok             bool
}

type runner struct {
	ops    []Op
	parsed []parsedPath
	values []any
	prgs   []cel.Program
	pins   []pin
	patch  any
}

type runOutput struct {
	object       map[string]any
	mergeChanged bool
	jsonOps      []any
	matches      [][]string
}

// run applies the merge patch and the operations to a copy of start.
func (r *runner) run(start map[string]any, emit bool) (*runOutput, error) {
	out := &runOutput{}
	var obj map[string]any
	// Selector operations change obj in place, so they get a copy of their
	// own; a merge patch alone shares what it does not change with start.
	if r.patch != nil {
		obj = jsonvalue.MergePatch(start, r.patch).(map[string]any)
		out.mergeChanged = !jsonvalue.Equal(start, obj)
	} else {
		obj = start
	}
	if len(r.ops) > 0 {
		obj = jsonvalue.DeepCopy(obj).(map[string]any)
	}
	selected := make([][]int, len(r.ops))
	if len(r.ops) > 0 {
		out.matches = make([][]string, len(r.ops))
	}
	for i, op := range r.ops {
		pp := r.parsed[i]
		arrPtr := pointer(pp.prefix)
		arr, msg := resolveArray(obj, pp.prefix)
		if msg != "" {
			return nil, opErr(i, "path", "%s", msg)
		}
		var matches []int
		for k, el := range arr {
			ok, err := evalSelector(r.prgs[i], el)
			if err != nil {
				return nil, opErr(i, "selector", "evaluating against %s/%d: %v", arrPtr, k, err)
			}
			if ok {
				matches = append(matches, k)
			}
		}
		switch op.policy() {
		case MatchExactlyOne:
			if len(matches) != 1 {
				return nil, opErr(i, "selector", "matchPolicy ExactlyOne requires exactly one matching element of %s: %d of %d elements match%s",
					arrPtr, len(matches), len(arr), listIndices(matches))
			}
		case MatchAll:
			if len(matches) == 0 {
				return nil, opErr(i, "selector", "matchPolicy All requires at least one matching element of %s: none of %d elements match",
					arrPtr, len(arr))
			}
		}
		selected[i] = matches
		out.matches[i] = make([]string, len(matches))
		for n, k := range matches {
			elemPtr := arrPtr + "/" + strconv.Itoa(k)
			out.matches[i][n] = elemPtr
			jops, err := r.apply(i, arr, k, elemPtr, emit)
			if err != nil {
				return nil, err
			}
			out.jsonOps = append(out.jsonOps, jops...)
		}
		// Selectors must remain true after every operation.
		for j := 0; j <= i; j++ {
			if err := r.recheck(obj, j, i, selected[j]); err != nil {
				return nil, err
			}
		}
	}
	out.object = obj
	return out, nil
}

// apply performs operation i on element k of arr and returns the JSON Patch
// operations (test + op) that reproduce it, if it changed anything.
func (r *runner) apply(i int, arr []any, k int, elemPtr string, emit bool) ([]any, error) {
	op, pp := r.ops[i], r.parsed[i]
	before := arr[k]
	var snap any
	if emit && !r.pins[i].ok {
		snap = jsonvalue.DeepCopy(before)
	}
	var (
		path     string
		old      any
		existed  bool
		newValue = jsonvalue.DeepCopy(r.values[i])
	)
	switch op.Op {
	case OpReplace:
		if len(pp.rest) == 0 {
			path, old, existed = elemPtr, before, true
			arr[k] = newValue
			break
		}
		last := pp.rest[len(pp.rest)-1]
		parent, ok, where := lookup(before, elemPtr, pp.rest[:len(pp.rest)-1])
		path = elemPtr + pointer(pp.rest)
		if !ok {
			return nil, opErr(i, "path", "%s does not exist: replace requires an existing path below the selected element", where)
		}
		switch c := parent.(type) {
		case map[string]any:
			if old, existed = c[last]; !existed {
				return nil, opErr(i, "path", "%s does not exist: replace requires an existing path below the selected element", path)
			}
			c[last] = newValue
		case []any:
			idx, ok := arrayIndex(last, len(c))
			if !ok {
				return nil, opErr(i, "path", "%s does not exist: replace requires an existing path below the selected element", path)
			}
			old, existed = c[idx], true
			c[idx] = newValue
		default:
			return nil, opErr(i, "path", "%s does not exist: its parent is %s", path, describe(parent))
		}
	case OpAdd, OpRemove:
		member := pp.rest[0]
		path = elemPtr + "/" + jsonvalue.EscapeToken(member)
		m, ok := before.(map[string]any)
		if !ok {
			return nil, opErr(i, "path", "%s requires the selected element %s to be an object, it is %s", op.Op, elemPtr, describe(before))
		}
		old, existed = m[member]
		if op.Op == OpAdd {
			m[member] = newValue
		} else {
			delete(m, member)
		}
	}
	if !emit {
		return nil, nil
	}
	if op.Op == OpRemove {
		if !existed {
			return nil, nil
		}
	} else if existed && jsonvalue.Equal(old, newValue) {
		return nil, nil
	}
	var test map[string]any
	if p := r.pins[i]; p.ok {
		test = map[string]any{"op": "test", "path": elemPtr + "/" + jsonvalue.EscapeToken(p.field), "value": p.literal}
	} else {
		// The element as it was before this operation modified it.
		test = map[string]any{"op": "test", "path": elemPtr, "value": snap}
	}
	jop := map[string]any{"op": op.Op, "path": path}
	if op.Op != OpRemove {
		jop["value"] = jsonvalue.DeepCopy(newValue)
	}
	return []any{test, jop}, nil
}

// recheck verifies, after operation i ran, that operation j's selector is
// still true for every element it selected.
func (r *runner) recheck(obj map[string]any, j, i int, sel []int) error {
	pp := r.parsed[j]
	arrPtr := pointer(pp.prefix)
	after := "after it ran"
	if i != j {
		after = fmt.Sprintf("after jsonPatch[%d] ran", i)
	}
	arr, msg := resolveArray(obj, pp.prefix)
	if msg != "" {
		return opErr(j, "selector", "%s, %s; selectors must remain true", after, msg)
	}
	for _, k := range sel {
		if k >= len(arr) {
			return opErr(j, "selector", "%s, the selected element %s/%d no longer exists; selectors must remain true", after, arrPtr, k)
		}
		ok, err := evalSelector(r.prgs[j], arr[k])
		if err != nil {
			return opErr(j, "selector", "%s, evaluating against the selected element %s/%d failed: %v; selectors must remain true", after, arrPtr, k, err)
		}
		if !ok {
			return opErr(j, "selector", "no longer selects %s/%d %s; selectors must remain true after every operation", arrPtr, k, after)
		}
	}
	return nil
}

// resolveArray returns the array at prefix, or a message saying why not.
func resolveArray(obj map[string]any, prefix []string) ([]any, string) {
	v, ok, where := lookup(obj, "", prefix)
	if !ok {
		if where == pointer(prefix) {
			return nil, fmt.Sprintf("the array %s does not exist", where)
		}
		return nil, fmt.Sprintf("the array %s does not exist (%s is missing)", pointer(prefix), where)
	}
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Sprintf("%s is %s, not an array", pointer(prefix), describe(v))
	}
	return arr, ""
}

func listIndices(ks []int) string {
	if len(ks) == 0 {
		return ""
	}
	s := " (indices"
	for n, k := range ks {
		if n > 0 {
			s += ","
		}
		s += " " + strconv.Itoa(k)
	}
	return s + ")"
}
