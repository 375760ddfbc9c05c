package engine

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/rules"
)

// ActionResult is what became of one planned action.
type ActionResult struct {
	Action  string
	Outcome string // an adapters.Outcome or a domain outcome such as not_retained
	Message string
	Object  map[string]any
	// Ignored, on a best-effort action that did not end ok, is the outcome
	// and message it ended in; Outcome is then ok, for routing.
	Ignored string
}

// bestEffort returns ar as a best-effort action's result routes it: ok,
// with what it really ended in kept in Ignored.
func bestEffort(a *fsm.Action, ar ActionResult) ActionResult {
	if !a.BestEffort || ar.Outcome == string(adapters.OK) {
		return ar
	}
	return ActionResult{Action: ar.Action, Outcome: string(adapters.OK), Ignored: ar.Outcome + ": " + ar.Message}
}

// classify turns the result of request i of a planned action into the
// action's outcome, applying the action's expect (with item bound for
// for_each actions) in v, the activation of the step that planned it.
func classify(v *vars, pa PlannedAction, i int, res adapters.Result) ActionResult {
	ar := ActionResult{Action: pa.Action.Name, Outcome: string(res.Outcome), Message: res.Message, Object: res.Object}
	if pa.Err != nil {
		ar.Outcome, ar.Message = string(adapters.Invalid), pa.Err.Error()
		return ar
	}
	if res.Outcome == adapters.OK && pa.Action.Expect != nil {
		lib := libraryOf(v.m)
		bind := map[string]any{"last": lastValue(lib, ar), "result": lib.Canonical(res.Object)}
		if pa.Items != nil {
			bind["item"], bind["index"] = pa.Items[i], int64(i)
		}
		ok, err := v.with(bind).evalBool(pa.Action.Expect)
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

func lastValue(lib *library.Memory, ar ActionResult) map[string]any {
	obj := map[string]any{}
	if ar.Object != nil {
		obj = lib.Canonical(ar.Object).(map[string]any)
	}
	return map[string]any{"action": ar.Action, "outcome": ar.Outcome, "message": ar.Message, "object": obj}
}

// next reports whether, after results[0..i], the action sequence continues
// with the next action (true), or has reached a route.
func next(d *Decision, results []ActionResult) (cont bool) {
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

// resolve picks the route for the action results (the success route when
// all ended ok) and computes the object's new status, in step's activation
// step. Pure, like Step.
func resolve(m *fsm.Machine, d *Decision, step *vars, results []ActionResult) (*Result, error) {
	t := d.Transition
	route := t.Done
	var last *ActionResult
	v := step
	if len(results) > 0 {
		l := results[len(results)-1]
		last = &l
		v = step.with(map[string]any{"last": lastValue(libraryOf(m), l)})
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
	// The move enters the destination: its set blocks and condition blocks
	// are the entry work looplab/fsm's callback does; the route's follow
	// (and win). All are computed from the values before the transition.
	w := &entryWork{v: v, t: t, more: len(route.Set)}
	to, err := m.Move(d.From, route.Event, w.enter)
	if err != nil {
		return nil, err
	}
	w.add(route.Set, route.Computed)
	if w.err != nil {
		return nil, w.err
	}
	res := &Result{Transition: t.Name, From: d.From, To: to, Event: route.Event, Reason: route.Reason, Last: last}
	if route.ComputedReason != nil {
		reason, err := v.eval(route.ComputedReason)
		if err != nil {
			return nil, fmt.Errorf("transition %q reason: %w", t.Name, err)
		}
		res.Reason, _ = reason.(string)
		if !slices.Contains(route.Reasons, res.Reason) {
			return nil, fmt.Errorf("transition %q: reason %q is not one of its declared reasons (%s)", t.Name, res.Reason, strings.Join(route.Reasons, ", "))
		}
	}
	if route.Message != nil {
		msg, err := v.eval(route.Message)
		if err != nil {
			return nil, fmt.Errorf("transition %q message: %w", t.Name, err)
		}
		res.Message, _ = msg.(string)
	} else if last != nil && last.Outcome != string(adapters.OK) {
		res.Message = last.Message
	}
	sets, computed := w.sets, w.conditions
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
	if gen, ok := jsonvalue.Lookup(v.self, generationPath); ok {
		st["observedGeneration"] = gen
	}
	dst := m.State(to)
	if dst.Outcome != "" {
		st["outcome"] = dst.Outcome
	} else {
		delete(st, "outcome")
	}
	for _, c := range append(append([]rules.Assignment(nil), dst.Conditions...), route.Conditions...) {
		st["conditions"] = setCondition(st["conditions"], c.Path, c.Lit, reason, message, st["observedGeneration"], step.now)
	}
	for _, c := range computed {
		r, msg := c.reason, c.message
		if c.Reason == nil {
			r = reason
		}
		if c.Message == nil {
			msg = message
		}
		st["conditions"] = setCondition(st["conditions"], c.Type, c.status, r, msg, st["observedGeneration"], step.now)
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

// entryWork computes the set blocks and condition blocks a move applies:
// the destination state's (enter, looplab/fsm's enter_state callback),
// then the route's (add).
type entryWork struct {
	v          *vars
	t          *fsm.Transition
	sets       []assignment
	conditions []conditionValue
	err        error
	more       int // the sets added after the destination's (the route's)
}

type assignment struct {
	path string
	val  any
}

type conditionValue struct {
	fsm.Condition
	status, reason, message string
}

func (w *entryWork) enter(to *fsm.State) { w.add(to.Set, to.Computed) }

func (w *entryWork) add(sets []fsm.Assign, conds []fsm.Condition) {
	if w.err != nil {
		return
	}
	for _, a := range sets {
		val, err := w.v.eval(a.Value)
		if err != nil {
			w.err = fmt.Errorf("transition %q set %s: %w", w.t.Name, a.Path, err)
			return
		}
		if w.sets == nil {
			w.sets = make([]assignment, 0, len(sets)+w.more)
		}
		w.sets = append(w.sets, assignment{a.Path, val})
	}
	for _, c := range conds {
		cv := conditionValue{Condition: c}
		for _, f := range []struct {
			p   *fsm.Program
			dst *string
		}{{c.Status, &cv.status}, {c.Reason, &cv.reason}, {c.Message, &cv.message}} {
			if f.p == nil {
				continue
			}
			val, err := w.v.eval(f.p)
			if err != nil {
				w.err = fmt.Errorf("transition %q condition %s: %w", w.t.Name, c.Type, err)
				return
			}
			*f.dst, _ = val.(string)
		}
		if cv.status != "True" && cv.status != "False" && cv.status != "Unknown" {
			w.err = fmt.Errorf("transition %q condition %s: status %q is not True, False or Unknown", w.t.Name, c.Type, cv.status)
			return
		}
		w.conditions = append(w.conditions, cv)
	}
}
