package fsm

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types/ref"
	lfsm "github.com/looplab/fsm"

	"github.com/statecraft/statecraft/rules"
)

// Wildcard in a transition's from list stands for every state.
const Wildcard = "*"

// Machine is a compiled, immutable machine: states, transitions in
// declaration order per state, and type-checked CEL programs. One Machine is
// shared by every object it drives and is safe for concurrent use.
type Machine struct {
	Name        string
	Source      *rules.Machine
	StateField  string
	MaxSteps    int
	Resources   []*rules.Resource
	States      []*State
	Initial     *State
	Params      []*Param
	Observes    []*Observe
	Lets        []*Let
	Transitions []*Transition

	// Memory is what the machine remembers between steps, shared with the
	// machines compiled with it (CompileIn): not part of its meaning.
	Memory *Memory

	macros     []cel.Macro // the rule file's functions (functions.go)
	parseEnv   *cel.Env    // with macros: an environment that parses as compile did
	stateIndex map[string]*State
	bindings   map[string]Binding // the observations and lets, by name
	byState    map[string][]*Transition
	events     lfsm.Events
	restOnce   sync.Once
	rest       map[string]*RestProfile // by state; see rest.go
}

// State is a compiled state.
type State struct {
	*rules.State
	Recheck  *Program
	Jitter   *Program
	Set      []Assign
	Computed []Condition
}

// Condition is a compiled condition block.
type Condition struct {
	*rules.Condition
	Status, Reason, Message *Program
}

// Param is a compiled param.
type Param struct {
	*rules.Param
	// OverridePath is Override split into its tokens (jsonvalue.Lookup).
	OverridePath []string
	Valid        *Program
	// ValidReadsValueOnly is set when Valid reads nothing but value, so
	// that a param's check depends on its value alone.
	ValidReadsValueOnly bool
}

// Observe is a compiled observation.
type Observe struct {
	*rules.Observe
	Get, List, When, ForEach *Program
	// Wave is when the observation is made: 0 when its expressions read no
	// observation, else one more than the latest wave of those it reads
	// (directly or through lets). The engine makes each wave's reads
	// before it computes the next wave's.
	Wave int
	// Reads are the observations it reads, in declaration order.
	Reads []string
	// SelfRef is set when its reference (Get or List) reads nothing but
	// self and params, directly or through lets, and its params' checks
	// read nothing else either: one object always gives the same
	// reference, which the engine may then remember on a frozen object.
	SelfRef bool
}

// Let is a compiled let.
type Let struct {
	*rules.Let
	Value *Program
}

// Transition is a compiled transition.
type Transition struct {
	*rules.Transition
	Index   int // declaration order in the machine
	When    *Program
	Actions []*Action
	Done    *Route
	Routes  []*Route
	// Event is the looplab/fsm event name of the success route.
	Event string
}

// Action is a compiled action with the outcomes its verb can end in.
type Action struct {
	*rules.Action
	Target, Body, Identity, Expect *Program
	ForEach, When                  *Program
	// Note, Regarding, Related and EventName are an event action's.
	Note, Regarding, Related, EventName *Program
	Outcomes                            []string
}

// Route is a compiled outcome route.
type Route struct {
	*rules.Route
	When, Message, After, At *Program
	Computed                 []Condition
	// ComputedReason computes the route's reason when the rule declares a set of
	// reasons (rules.Route.Reasons); nil for a literal reason.
	ComputedReason *Program
	Set            []Assign
	Event          string
}

// Assign is a compiled status assignment.
type Assign struct {
	Path  string
	Value *Program
}

// Program is one type-checked CEL expression.
type Program struct {
	Expr *rules.Expr
	Out  *cel.Type
	// Cost is the static estimate of one evaluation's cost (CEL cost
	// units); Max is math.MaxUint64 when an input's size is unbounded.
	Cost checker.CostEstimate
	prg  cel.Program

	// env and ast rebuild a state-tracking variant on demand (why.go);
	// the normal program above never tracks.
	env     *cel.Env
	ast     *cel.Ast
	tracked tracking
}

// Programs lists every expression of the machine in declaration order.
func (m *Machine) Programs() []*Program {
	var out []*Program
	add := func(ps ...*Program) {
		for _, p := range ps {
			if p != nil {
				out = append(out, p)
			}
		}
	}
	for _, p := range m.Params {
		add(p.Valid)
	}
	for _, o := range m.Observes {
		add(o.Get, o.List, o.When, o.ForEach)
	}
	for _, l := range m.Lets {
		add(l.Value)
	}
	for _, s := range m.States {
		add(s.Recheck, s.Jitter)
		for _, a := range s.Set {
			add(a.Value)
		}
		for _, c := range s.Computed {
			add(c.Status, c.Reason, c.Message)
		}
	}
	route := func(r *Route) {
		if r == nil {
			return
		}
		add(r.When, r.ComputedReason, r.Message, r.After, r.At)
		for _, a := range r.Set {
			add(a.Value)
		}
		for _, c := range r.Computed {
			add(c.Status, c.Reason, c.Message)
		}
	}
	for _, t := range m.Transitions {
		add(t.When)
		for _, a := range t.Actions {
			add(a.When, a.ForEach, a.Target, a.Body, a.Identity, a.Expect, a.Note, a.Regarding, a.Related, a.EventName)
		}
		route(t.Done)
		for _, r := range t.Routes {
			route(r)
		}
	}
	return out
}

// Eval evaluates the program against vars (a cel activation).
func (p *Program) Eval(vars any) (ref.Val, error) {
	v, _, err := p.prg.Eval(vars)
	return v, err
}

// EvalContext evaluates the program, honouring ctx cancellation.
func (p *Program) EvalContext(ctx context.Context, vars any) (ref.Val, error) {
	v, _, err := p.prg.ContextEval(ctx, vars)
	return v, err
}

// State returns the named state, or nil.
func (m *Machine) State(name string) *State { return m.stateIndex[name] }

// A Binding is what a name of the machine's expressions other than self,
// status, now and param.NAME stands for: an observation (Observes[Index])
// or a let (Lets[Index]). An observation and a let never share a name.
type Binding struct {
	Let   bool // a let; else an observation
	Index int
}

// Binding returns what name is bound to, if it names an observation or a
// let.
func (m *Machine) Binding(name string) (Binding, bool) {
	b, ok := m.bindings[name]
	return b, ok
}

// Candidates returns, in declaration order, the transitions that may fire
// from state.
func (m *Machine) Candidates(state string) []*Transition { return m.byState[state] }

// Entry is the work of entering a state (its set blocks and conditions,
// computed by the engine), which the move's enter_state callback does.
type Entry func(to *State)

// Move carries a move through the machine's looplab/fsm: the event leads
// from state to its destination, whose enter_state callback calls enter
// (nil: nothing to do) with the state entered. A move back to the state it
// leaves enters it again: looplab/fsm treats it as no transition and calls
// no callback, so Move calls enter itself.
func (m *Machine) Move(state, event string, enter Entry) (string, error) {
	pool := m.Memory.moves(m)
	f, _ := pool.Get().(*lfsm.FSM)
	if f == nil {
		f = m.newFSM(state)
	} else {
		f.SetState(state)
	}
	defer pool.Put(f)
	if err := f.Event(context.Background(), event, enter); err != nil {
		if _, ok := err.(lfsm.NoTransitionError); !ok {
			return "", fmt.Errorf("machine %s: event %q from %s: %w", m.Name, event, state, err)
		}
		if enter != nil {
			enter(m.State(f.Current()))
		}
	}
	return f.Current(), nil
}

// newFSM builds a looplab/fsm instance of the machine's event table whose
// enter_state callback does a move's entry work.
func (m *Machine) newFSM(state string) *lfsm.FSM {
	return lfsm.NewFSM(state, m.events, lfsm.Callbacks{
		"enter_state": func(_ context.Context, e *lfsm.Event) {
			if len(e.Args) > 0 {
				if enter, ok := e.Args[0].(Entry); ok && enter != nil {
					enter(m.State(e.Dst))
				}
			}
		},
	})
}

// Events returns the looplab/fsm event table: one event per transition
// success route and per outcome route.
func (m *Machine) Events() lfsm.Events { return m.events }
