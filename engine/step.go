package engine

import (
	"fmt"
	"time"

	"github.com/google/cel-go/common/types/ref"

	"github.com/statecraft/statecraft/fsm"
)

// Snapshot is everything one step sees: the object, what was observed, and
// the time. Step never reads anything else. Values are canonical JSON
// values (package jsonvalue), as every adapters.API returns them; Step also
// accepts others and converts them.
type Snapshot struct {
	Object       map[string]any
	Observations map[string]Observation
	Now          time.Time
	// Memory is the machine's memory, which rules read as status; nil
	// reads it from Object (its status, or its annotation).
	Memory map[string]any
	// Reads, when set, are the reads that made Observations (a
	// Reconciliation sets them; Step does not look at them).
	Reads []Read
}

// GuardResult records how one candidate transition's guard evaluated.
type GuardResult struct {
	Transition string
	Value      bool
	Err        error
}

// Decision is the result of Step, plain data: which transition fires, if
// any, the requests its actions make, and the guards tried on the way.
type Decision struct {
	From       string
	Transition *fsm.Transition // nil when nothing fires
	Actions    []PlannedAction
	Guards     []GuardResult // candidates tried, in order, up to the one that fired
	// Wake, when nothing fires, is when the object must be stepped again
	// (its state's recheck, delayed by its jitter; zero: only when
	// something changes).
	Wake time.Time
	// Problem, when set, is a reason and message to report instead of
	// stepping: an invalid param override or a failing guard.
	Problem *Problem
}

// Problem is a condition the engine reports on the object's status instead
// of taking a transition.
type Problem struct {
	Reason  string
	Message string
}

// CurrentState returns the state recorded in obj's memory (its status,
// unless the machine keeps its memory elsewhere), or the initial state when
// there is none (or it names no state of m).
func CurrentState(m *fsm.Machine, obj map[string]any) string {
	return stateIn(m, memoryOf(m, obj))
}

// stateIn returns the state recorded in a memory.
func stateIn(m *fsm.Machine, mem map[string]any) string {
	if s, ok := mem[m.StateField].(string); ok && m.State(s) != nil {
		return s
	}
	return m.Initial.Name
}

// newVars builds the activation for obj at now, resolving params. A param
// whose override is invalid yields a Problem.
func newVars(m *fsm.Machine, obj, mem map[string]any, obs map[string]Observation, now time.Time) (*vars, *Problem) {
	return newVarsOf(m, obj, mem, false, obs, now)
}

// newVarsOf is newVars for an obj known to be canonical or not.
//
// mem is the machine's memory, which rules read as status; nil reads it
// from obj.
func newVarsOf(m *fsm.Machine, obj, mem map[string]any, canonical bool, obs map[string]Observation, now time.Time) (*vars, *Problem) {
	v, problem := newVarsUnobserved(m, obj, mem, canonical, now)
	v.observe(obs)
	return v, problem
}

// newVarsUnobserved is newVarsOf binding no observation at all (not even
// as skipped): the activation of the reads of a micro-step's first wave,
// which read none (fsm.Observe.Wave), for a Reconciliation, which binds
// them with observing before it steps.
func newVarsUnobserved(m *fsm.Machine, obj, mem map[string]any, canonical bool, now time.Time) (*vars, *Problem) {
	self := obj
	if !canonical {
		self, _ = libraryOf(m).Canonical(obj).(map[string]any)
	}
	if mem == nil {
		mem = memoryOf(m, self)
	} else if !canonical {
		mem, _ = libraryOf(m).Canonical(mem).(map[string]any)
	}
	v := &vars{m: m, self: self, status: mem, now: now}
	var problem *Problem
	v.params, problem = params(m, self, v)
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
	v.obs = make([]any, len(v.m.Observes))
	for i, o := range v.m.Observes {
		switch got, ok := obs[o.Name]; {
		case ok:
			v.obs[i] = got.value(libraryOf(v.m))
		case o.ForEach != nil:
			v.obs[i] = emptyItems
		default:
			v.obs[i] = skipped
		}
	}
}

func display(v any) string {
	if d, ok := v.(time.Duration); ok {
		return d.String()
	}
	return fmt.Sprint(v)
}

// Step decides, from the object's current state, which transition fires:
// candidates are tried in declaration order and the first whose guard is
// true fires. It computes the requests of that transition's actions but
// carries none out. Step is pure: same snapshot, same Decision. A rest it
// decides again for the same frozen inputs is answered from the last one
// (again.go); the Guards of such a decision are shared with it, not to be
// changed.
func Step(m *fsm.Machine, snap Snapshot) *Decision {
	if d := restAgain(m, snap); d != nil {
		return d
	}
	v, problem := newVars(m, snap.Object, snap.Memory, snap.Observations, snap.Now)
	d := step(m, snap, v, problem)
	rememberRest(m, snap, d, v)
	return d
}

// step is Step in the activation v built for snap (problem: the params'
// problem, if any). v evaluates the lets the guards read and keeps them,
// for the planning and routing that follow.
func step(m *fsm.Machine, snap Snapshot, v *vars, problem *Problem) *Decision {
	from := stateIn(m, v.status)
	d := &Decision{From: from}
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
			// Retried at the state's recheck, as a rest would be: what
			// the guard read may change without the object changing (an
			// observed object).
			d.Wake, _ = restWake(m, from, snap, v)
			d.Problem = &Problem{Reason: "EvaluationError", Message: fmt.Sprintf("transition %q: %v", guardErr.Transition, guardErr.Err)}
			return d
		}
		d.Wake, d.Problem = restWake(m, from, snap, v)
		return d
	}
	for _, a := range d.Transition.Actions {
		d.Actions = append(d.Actions, planAction(v, a))
	}
	return d
}

func errNotBool(v ref.Val) error {
	return fmt.Errorf("guard gave %v (%s), not a bool", v, v.Type().TypeName())
}

func errNotTime(v ref.Val) error {
	return fmt.Errorf("gave %v (%s), not a duration or timestamp", v, v.Type().TypeName())
}

// restWake returns when an object resting in state from must be stepped
// again: the state's recheck (at least a second from now), delayed by its
// jitter; zero when the state has no recheck.
func restWake(m *fsm.Machine, from string, snap Snapshot, v *vars) (time.Time, *Problem) {
	s := m.State(from)
	if s.Recheck == nil {
		return time.Time{}, nil
	}
	t, err := v.evalTime(s.Recheck)
	if err != nil {
		return time.Time{}, &Problem{Reason: "EvaluationError", Message: fmt.Sprintf("state %q recheck: %v", from, err)}
	}
	if !t.After(snap.Now) {
		t = snap.Now.Add(time.Second)
	}
	if s.Jitter != nil {
		j, err := v.evalTime(s.Jitter)
		if err != nil {
			return time.Time{}, &Problem{Reason: "EvaluationError", Message: fmt.Sprintf("state %q jitter: %v", from, err)}
		}
		t = t.Add(JitterOffset(jitterKey(snap.Object), t, j.Sub(snap.Now)))
	}
	return t, nil
}
