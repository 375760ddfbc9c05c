package engine

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/rules"
)

// Observation is what the engine read for one observe block.
type Observation struct {
	Outcome adapters.Outcome
	Object  map[string]any   // for get, when it exists
	Items   []map[string]any // for list
	Scope   adapters.Scope   // how the observed kind is served
	Message string
	Skipped bool // its when was false
	// canonical is set when Object and Items are already canonical JSON
	// values (Reconcile makes them so once per read, not once per step).
	canonical bool
	// val, when set, is value() made once for every step that sees it.
	val map[string]any
}

// withValue returns o with its CEL value made once (read-only).
func (o Observation) withValue() Observation {
	o.val = o.value()
	return o
}

func (o Observation) value() map[string]any {
	if o.val != nil {
		return o.val
	}
	v := map[string]any{
		"exists":  o.Outcome == adapters.OK && o.Object != nil,
		"outcome": string(o.Outcome),
		"object":  map[string]any{},
		"items":   []any{},
		"scope":   string(o.Scope),
		"message": o.Message,
	}
	canon := library.Canonical
	if o.canonical {
		canon = func(v any) any { return v }
	}
	if o.Object != nil {
		v["object"] = canon(o.Object)
	}
	if o.Items != nil {
		items := make([]any, len(o.Items))
		for i, it := range o.Items {
			items[i] = canon(it)
		}
		v["items"] = items
	}
	if o.Skipped {
		v["outcome"] = "skipped"
	}
	return v
}

// Snapshot is everything one step sees: the object, what was observed, and
// the time. Step never reads anything else.
type Snapshot struct {
	Object       map[string]any
	Observations map[string]Observation
	Now          time.Time
	// Reads, when set, are the reads that made Observations (Reconcile
	// sets them; Step does not look at them).
	Reads []Read
	// base, when Reconcile sets it, is the activation Reads was computed
	// with (self, status, params, no observations yet): Step completes a
	// copy with the observations instead of building it again.
	base *base
}

type base struct {
	vars    *vars
	problem *Problem
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
}

// GuardResult records how one candidate transition's guard evaluated.
type GuardResult struct {
	Transition string
	Value      bool
	Err        error
}

// PlannedAction is an action with its requests computed: one request, or
// one per element of its for_each list.
type PlannedAction struct {
	Action   *fsm.Action
	Requests []adapters.Request
	// Items are the for_each elements, one per request (nil without
	// for_each).
	Items []any
	// Skipped is set when the action's when was false: it sends nothing
	// and ends ok.
	Skipped bool
	Err     error // a request could not be built (becomes outcome invalid)
}

// Decision is the result of Step: which transition fires, if any, the
// requests it makes, and why.
type Decision struct {
	From       string
	Transition *fsm.Transition // nil when nothing fires
	Actions    []PlannedAction
	Guards     []GuardResult // candidates tried, in order, up to the one that fired
	// Rest is set when nothing fires: the object rests in From until Wake
	// (zero: until something changes).
	Wake time.Time
	// Problem, when set, is a reason and message to report instead of
	// stepping: an invalid param override or a failing guard.
	Problem *Problem

	vars *vars
}

// Problem is a condition the engine reports on the object's status instead
// of taking a transition.
type Problem struct {
	Reason  string
	Message string
}

// CurrentState returns the state recorded in obj's status, or the initial
// state when there is none (or it names no state of m).
func CurrentState(m *fsm.Machine, obj map[string]any) string {
	st, _ := obj["status"].(map[string]any)
	if s, ok := st[m.StateField].(string); ok && m.State(s) != nil {
		return s
	}
	return m.Initial.Name
}

func statusOf(obj map[string]any) map[string]any {
	st, _ := obj["status"].(map[string]any)
	if st == nil {
		return map[string]any{}
	}
	return st
}

// newVars builds the activation for obj at now, resolving params. A param
// whose override is invalid yields a Problem.
func newVars(m *fsm.Machine, obj map[string]any, obs map[string]Observation, now time.Time) (*vars, *Problem) {
	return newVarsOf(m, obj, false, obs, now)
}

// newVarsOf is newVars for an obj known to be canonical or not.
func newVarsOf(m *fsm.Machine, obj map[string]any, canonical bool, obs map[string]Observation, now time.Time) (*vars, *Problem) {
	self := obj
	if !canonical {
		self, _ = library.Canonical(obj).(map[string]any)
	}
	v := &vars{m: m, self: self, status: statusOf(self), now: now}
	var problem *Problem
	v.params, problem = params(m, self, v)
	v.observe(obs)
	return v, problem
}

// observing returns a copy of v (made without observations) that sees obs;
// lets evaluated in v are not kept (they may have read observations).
func (v *vars) observing(obs map[string]Observation) *vars {
	c := *v
	c.lets, c.extra = nil, nil
	c.observe(obs)
	return &c
}

// observe binds obs, and every observation of the machine obs lacks as
// skipped.
func (v *vars) observe(obs map[string]Observation) {
	v.obs = make(map[string]any, len(v.m.Observes))
	for name, o := range obs {
		v.obs[name] = o.value()
	}
	for _, o := range v.m.Observes {
		if _, ok := v.obs[o.Name]; !ok {
			v.obs[o.Name] = skipped
		}
	}
}

// skipped is the value of an observation not made.
var skipped = Observation{Skipped: true}.value()

func display(v any) string {
	if d, ok := v.(time.Duration); ok {
		return d.String()
	}
	return fmt.Sprint(v)
}

// Reads returns the observations to make before stepping obj at now.
func Reads(m *fsm.Machine, obj map[string]any, now time.Time) []Read {
	v, _ := newVars(m, obj, nil, now)
	return readsWith(m, v)
}

func readsWith(m *fsm.Machine, v *vars) []Read {
	out := make([]Read, 0, len(m.Observes))
	for _, o := range m.Observes {
		r := Read{Name: o.Name, List: o.List != nil}
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
			out = append(out, r)
			continue
		}
		m, ok := val.(traits.Mapper)
		if !ok {
			r.Err = fmt.Errorf("observe %s: want a map {apiVersion, kind, namespace, name}, got %T", o.Name, library.ToGo(val))
			out = append(out, r)
			continue
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
		out = append(out, r)
	}
	return out
}

func refFromMap(m map[string]any) adapters.Ref {
	s := func(k string) string { x, _ := m[k].(string); return x }
	return adapters.Ref{APIVersion: s("apiVersion"), Kind: s("kind"), Namespace: s("namespace"), Name: s("name")}
}

// Step decides, from the object's current state, which transition fires:
// candidates are tried in declaration order and the first whose guard is
// true fires. It computes the requests of that transition's actions but
// carries none out. Step is pure: same snapshot, same Decision.
func Step(m *fsm.Machine, snap Snapshot) *Decision {
	from := CurrentState(m, snap.Object)
	var v *vars
	var problem *Problem
	if b := snap.base; b != nil {
		v, problem = b.vars.observing(snap.Observations), b.problem
	} else {
		v, problem = newVars(m, snap.Object, snap.Observations, snap.Now)
	}
	d := &Decision{From: from, vars: v}
	if problem != nil {
		d.Problem = problem
		return d
	}
	var guardErr *GuardResult
	cands := m.Candidates(from)
	d.Guards = make([]GuardResult, 0, len(cands))
	for _, t := range cands {
		g := GuardResult{Transition: t.Name, Value: true}
		if t.When != nil {
			g.Value, g.Err = v.evalBool(t.When)
		}
		d.Guards = append(d.Guards, g)
		if g.Err != nil && guardErr == nil {
			guardErr = &d.Guards[len(d.Guards)-1]
		}
		if g.Value && g.Err == nil {
			d.Transition = t
			break
		}
	}
	if d.Transition == nil {
		if guardErr != nil {
			d.Problem = &Problem{Reason: "EvaluationError", Message: fmt.Sprintf("transition %q: %v", guardErr.Transition, guardErr.Err)}
			return d
		}
		if s := m.State(from); s.Recheck != nil {
			t, err := v.evalTime(s.Recheck)
			if err != nil {
				d.Problem = &Problem{Reason: "EvaluationError", Message: fmt.Sprintf("state %q recheck: %v", from, err)}
				return d
			}
			if !t.After(snap.Now) {
				t = snap.Now.Add(time.Second)
			}
			if s.Jitter != nil {
				j, err := v.evalTime(s.Jitter)
				if err != nil {
					d.Problem = &Problem{Reason: "EvaluationError", Message: fmt.Sprintf("state %q jitter: %v", from, err)}
					return d
				}
				t = t.Add(JitterOffset(jitterKey(snap.Object), t, j.Sub(snap.Now)))
			}
			d.Wake = t
		}
		return d
	}
	for _, a := range d.Transition.Actions {
		d.Actions = append(d.Actions, planAction(v, a))
	}
	return d
}

func planAction(v *vars, a *fsm.Action) PlannedAction {
	pa := PlannedAction{Action: a}
	if a.When != nil {
		ok, err := v.evalBool(a.When)
		if err != nil {
			pa.Err = fmt.Errorf("when: %w", err)
			return pa
		}
		if !ok {
			pa.Skipped = true
			return pa
		}
	}
	if a.ForEach == nil {
		req, err := planRequest(v, a)
		pa.Err = err
		pa.Requests = []adapters.Request{req}
		return pa
	}
	list, err := v.eval(a.ForEach)
	if err != nil {
		pa.Err = fmt.Errorf("for_each: %w", err)
		return pa
	}
	items, _ := list.([]any)
	for i, it := range items {
		req, err := planRequest(v.with(map[string]any{"item": it, "index": int64(i)}), a)
		if err != nil {
			pa.Err = fmt.Errorf("for_each[%d]: %w", i, err)
			pa.Requests, pa.Items = nil, nil
			return pa
		}
		pa.Requests = append(pa.Requests, req)
		pa.Items = append(pa.Items, it)
	}
	return pa
}

func planRequest(v *vars, a *fsm.Action) (adapters.Request, error) {
	target, err := v.eval(a.Target)
	if err != nil {
		return adapters.Request{}, fmt.Errorf("target: %w", err)
	}
	tm, ok := target.(map[string]any)
	if !ok {
		return adapters.Request{}, fmt.Errorf("target: want a reference map, got %T", target)
	}
	req := adapters.Request{Ref: refFromMap(tm), DryRun: a.DryRun, Propagation: a.Propagation, FieldManager: "statecraft"}
	switch a.Verb {
	case "get":
		req.Verb = adapters.Get
	case "create":
		req.Verb = adapters.Create
	case "update":
		req.Verb = adapters.Update
	case "delete":
		req.Verb = adapters.Delete
	case "patch", "status":
		req.Verb = adapters.Patch
		req.PatchType = adapters.MergePatch
		if a.PatchType == "json" {
			req.PatchType = adapters.JSONPatch
		}
		if a.Verb == "status" {
			req.Subresource = "status"
		}
	case "apply":
		req.Verb = adapters.Patch
		req.PatchType = adapters.ApplyPatch
		req.Force = true
	}
	if a.Body != nil {
		body, err := v.eval(a.Body)
		if err != nil {
			return req, fmt.Errorf("body: %w", err)
		}
		req.Body = body
		if s, isString := body.(string); isString && req.PatchType == adapters.JSONPatch {
			// A pre-rendered RFC 6902 document.
			if req.Body, err = jsonvalue.Decode([]byte(s)); err != nil {
				return req, fmt.Errorf("body: %w", err)
			}
		}
	}
	if a.Identity != nil {
		id, err := v.eval(a.Identity)
		if err != nil {
			return req, fmt.Errorf("identity: %w", err)
		}
		req.Identity, _ = id.(string)
	}
	return req, nil
}

// ActionResult is what became of one planned action.
type ActionResult struct {
	Action  string
	Outcome string // an adapters.Outcome or a domain outcome such as not_retained
	Message string
	Object  map[string]any
}

// Outcome classifies the result of request i of a planned action, applying
// the action's expect (with item bound for for_each actions).
func Outcome(d *Decision, pa PlannedAction, i int, res adapters.Result) ActionResult {
	ar := ActionResult{Action: pa.Action.Name, Outcome: string(res.Outcome), Message: res.Message, Object: res.Object}
	if pa.Err != nil {
		ar.Outcome, ar.Message = string(adapters.Invalid), pa.Err.Error()
		return ar
	}
	if res.Outcome == adapters.OK && pa.Action.Expect != nil {
		bind := map[string]any{"last": lastValue(ar), "result": library.Canonical(res.Object)}
		if pa.Items != nil {
			bind["item"], bind["index"] = pa.Items[i], int64(i)
		}
		ok, err := d.vars.with(bind).evalBool(pa.Action.Expect)
		if err != nil || !ok {
			ar.Outcome = fsm.NotRetained
			ar.Message = "the request was accepted but its result was not retained"
			if err != nil {
				ar.Message = err.Error()
			}
		}
	}
	return ar
}

func lastValue(ar ActionResult) map[string]any {
	obj := map[string]any{}
	if ar.Object != nil {
		obj = library.Canonical(ar.Object).(map[string]any)
	}
	return map[string]any{"action": ar.Action, "outcome": ar.Outcome, "message": ar.Message, "object": obj}
}

// Next reports whether, after results[0..i], the action sequence continues
// with the next action (true), or has reached a route.
func Next(d *Decision, results []ActionResult) (cont bool) {
	last := results[len(results)-1]
	if last.Outcome != string(adapters.OK) || len(results) == len(d.Actions) {
		return false
	}
	for _, r := range d.Transition.Routes {
		if r.Action == last.Action && r.Outcome == "ok" {
			return false
		}
	}
	return true
}

// Result is the outcome of one fired transition once its actions are done.
type Result struct {
	Transition string
	From, To   string
	Event      string
	Reason     string
	Message    string
	Status     map[string]any // the whole new status
	Wait       bool           // the route asked to wait
	Wake       time.Time      // when to step again (zero: on change)
	Last       *ActionResult
}

// Resolve picks the route for the action results (the success route when all
// ended ok) and computes the object's new status. Pure, like Step.
func Resolve(m *fsm.Machine, d *Decision, results []ActionResult) (*Result, error) {
	t := d.Transition
	route := t.Done
	var last *ActionResult
	v := d.vars
	if len(results) > 0 {
		l := results[len(results)-1]
		last = &l
		v = d.vars.with(map[string]any{"last": lastValue(l)})
		if l.Outcome != string(adapters.OK) || hasOKRoute(t, l.Action) {
			route = nil
			for _, r := range t.Routes {
				if !matches(r, l) {
					continue
				}
				if r.When != nil {
					ok, err := v.evalBool(r.When)
					if err != nil {
						return nil, fmt.Errorf("transition %q route %s %s: %w", t.Name, r.Action, r.Outcome, err)
					}
					if !ok {
						continue
					}
				}
				route = r
				break
			}
		}
	}
	if route == nil {
		return nil, fmt.Errorf("transition %q: no route for %s %s", t.Name, last.Action, last.Outcome)
	}
	to, err := m.Move(d.From, route.Event)
	if err != nil {
		return nil, err
	}
	res := &Result{Transition: t.Name, From: d.From, To: to, Event: route.Event, Reason: route.Reason, Last: last}
	if route.Message != nil {
		msg, err := v.eval(route.Message)
		if err != nil {
			return nil, fmt.Errorf("transition %q message: %w", t.Name, err)
		}
		res.Message, _ = msg.(string)
	} else if last != nil && last.Outcome != string(adapters.OK) {
		res.Message = last.Message
	}
	// Assignments are computed from the values before the transition: the
	// destination state's first, then the route's, which win.
	type assignment struct {
		path string
		val  any
	}
	var sets []assignment
	for _, a := range append(append([]fsm.Assign(nil), m.State(to).Set...), route.Set...) {
		val, err := v.eval(a.Value)
		if err != nil {
			return nil, fmt.Errorf("transition %q set %s: %w", t.Name, a.Path, err)
		}
		sets = append(sets, assignment{a.Path, val})
	}
	switch {
	case route.After != nil || route.At != nil:
		p := route.After
		if p == nil {
			p = route.At
		}
		wake, err := v.evalTime(p)
		if err != nil {
			return nil, fmt.Errorf("transition %q wait: %w", t.Name, err)
		}
		res.Wait, res.Wake = true, wake
	}
	// The new status shares what it does not change with the old one, which
	// nothing changes in place (setPath copies the maps on its path).
	st := shallowCopy(v.status)
	st[m.StateField] = to
	// A route with a reason replaces reason and message; one without keeps
	// them (a periodic check that finds nothing new says nothing new).
	switch {
	case res.Message != "":
		st["message"] = res.Message
	case res.Reason != "":
		delete(st, "message")
	}
	if res.Reason != "" {
		st["reason"] = res.Reason
	}
	reason, _ := st["reason"].(string)
	message, _ := st["message"].(string)
	if gen, ok := lookup(v.self, "metadata.generation"); ok {
		st["observedGeneration"] = gen
	}
	dst := m.State(to)
	if dst.Outcome != "" {
		st["outcome"] = dst.Outcome
	} else {
		delete(st, "outcome")
	}
	for _, c := range append(append([]rules.Assignment(nil), dst.Conditions...), route.Conditions...) {
		st["conditions"] = setCondition(st["conditions"], c.Path, c.Lit, reason, message, st["observedGeneration"], d.vars.now)
	}
	for _, s := range sets {
		setPath(st, s.path, s.val)
	}
	res.Status = st
	return res, nil
}

func hasOKRoute(t *fsm.Transition, action string) bool {
	for _, r := range t.Routes {
		if r.Action == action && r.Outcome == "ok" {
			return true
		}
	}
	return false
}

func matches(r *fsm.Route, l ActionResult) bool {
	if l.Outcome == string(adapters.OK) {
		return r.Action == l.Action && r.Outcome == "ok"
	}
	return (r.Action == l.Action || r.Action == fsm.Wildcard) && (r.Outcome == l.Outcome || r.Outcome == fsm.Wildcard)
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

// lookup reads a dotted path from an unstructured object.
func lookup(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for rest, more := path, true; more; {
		var seg string
		seg, rest, more = strings.Cut(rest, ".")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[seg]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

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

func errNotBool(v ref.Val) error {
	return fmt.Errorf("guard gave %v (%s), not a bool", v, v.Type().TypeName())
}

func errNotTime(v ref.Val) error {
	return fmt.Errorf("gave %v (%s), not a duration or timestamp", v, v.Type().TypeName())
}
