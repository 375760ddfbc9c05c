package fsm

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/checker"
	"github.com/google/cel-go/common/types"
	"github.com/hashicorp/hcl/v2"
	lfsm "github.com/looplab/fsm"
	k8slib "k8s.io/apiserver/pkg/cel/library"

	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/rules"
)

// DefaultCostLimit is the runtime CEL cost limit of every expression.
const DefaultCostLimit = 1_000_000

// VerbOutcomes lists, per action verb, the outcomes an action can end in
// besides ok. Every one must be routed.
var VerbOutcomes = map[string][]string{
	"get":    {"not_found", "forbidden", "transient", "unsupported"},
	"create": {"conflict", "forbidden", "invalid", "transient", "unsupported"},
	"update": {"not_found", "conflict", "forbidden", "invalid", "transient", "unsupported"},
	"patch":  {"not_found", "conflict", "forbidden", "invalid", "transient", "unsupported"},
	"apply":  {"conflict", "forbidden", "invalid", "transient", "unsupported"},
	"status": {"not_found", "conflict", "forbidden", "invalid", "transient", "unsupported"},
	"delete": {"not_found", "conflict", "forbidden", "transient", "unsupported"},
	"event":  {"conflict", "forbidden", "invalid", "transient", "unsupported"},
}

// NotRetained is the domain outcome of an action whose expect is false.
const NotRetained = "not_retained"

// Compile turns every machine of the files into a Machine.
//
// The machines share a new Memory, with a registry of frozen values of its
// own (Memory.Frozen) for the adapter to freeze what it hands them in (a
// controller's informers, the simulator's shared reads): what the library
// derives from a frozen object (a claimant's fingerprint, a plan) is then
// computed once per version of it, not at every read. CompileIn gives them
// one of the run's.
func Compile(files ...*rules.File) ([]*Machine, hcl.Diagnostics) {
	return CompileIn(NewMemory(jsonvalue.NewRegistry()), files...)
}

// CompileIn is Compile with the machines remembering in mem, the run's
// memory (a simulation's, a controller's), which they then share.
func CompileIn(mem *Memory, files ...*rules.File) ([]*Machine, hcl.Diagnostics) {
	var out []*Machine
	var diags hcl.Diagnostics
	for _, f := range files {
		for _, sm := range f.Machines {
			m, d := compileMachine(mem, sm)
			diags = append(diags, d...)
			if m != nil {
				out = append(out, m)
			}
		}
	}
	return out, diags
}

// CompileMachine compiles one machine, with a Memory (and registry of
// frozen values) of its own. It returns nil when there are errors.
func CompileMachine(sm *rules.Machine) (*Machine, hcl.Diagnostics) {
	return compileMachine(NewMemory(jsonvalue.NewRegistry()), sm)
}

func compileMachine(mem *Memory, sm *rules.Machine) (*Machine, hcl.Diagnostics) {
	c := &compiler{src: sm, mem: mem}
	m := c.compile()
	if c.diags.HasErrors() {
		return nil, c.diags
	}
	return m, c.diags
}

type compiler struct {
	src      *rules.Machine
	mem      *Memory
	diags    hcl.Diagnostics
	env      *cel.Env // base: self, status, now, params, observations, lets
	routeEnv *cel.Env // + last
	exp      *cel.Env // + result
	// compiled shares the work of identical expressions compiled in the
	// same environment (rule files repeat "now", a param, a counter step).
	compiled map[compiledKey]*Program
}

type compiledKey struct {
	env    *cel.Env
	source string
}

func (c *compiler) errf(rng hcl.Range, summary, format string, args ...any) {
	c.diags = append(c.diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: fmt.Sprintf(format, args...), Subject: rng.Ptr()})
}

func (c *compiler) compile() *Machine {
	sm := c.src
	m := &Machine{
		Name: sm.Name, Source: sm, StateField: sm.StateField, MaxSteps: sm.MaxSteps, Resources: sm.Resources, Memory: c.mem,
		stateIndex: map[string]*State{}, bindings: map[string]Binding{}, byState: map[string][]*Transition{},
	}
	m.macros = c.functionMacros(sm.Functions)
	if len(m.macros) > 0 {
		m.parseEnv, _ = cel.NewEnv(append(library.EnvOptions(nil), cel.Macros(m.macros...))...)
	}
	lib, err := cel.NewEnv(append(library.EnvOptions(c.mem.Library), cel.Macros(m.macros...))...)
	if err != nil {
		c.errf(sm.DeclRange, "CEL environment error", "%v", err)
		return nil
	}
	// self is typed by the first resource that names a CRD schema, and is
	// a dynamic map otherwise.
	self := cel.MapType(cel.StringType, cel.DynType)
	var typeOpts []cel.EnvOption
	for _, r := range sm.Resources {
		if r.SchemaSource == nil {
			continue
		}
		t, opts, err := selfType(r, lib.CELTypeProvider())
		if err != nil {
			c.errf(r.SchemaRange, "Invalid schema", "The schema of %s cannot type self: %v.", r.Kind, err)
			return nil
		}
		self, typeOpts = t, opts
		break
	}
	base, err := lib.Extend(append(typeOpts,
		cel.Variable("self", self),
		cel.Variable("status", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("now", cel.TimestampType),
	)...)
	if err != nil {
		c.errf(sm.DeclRange, "CEL environment error", "%v", err)
		return nil
	}
	c.env = base

	// Params: each is a typed variable param.NAME.
	for _, p := range sm.Params {
		t := paramType(p.Type)
		if _, err := ParamValue(p.Type, p.Default); err != nil {
			c.errf(p.DefaultRange, "Invalid default", "The default of param %q is not a valid %s: %v.", p.Name, p.Type, err)
		}
		c.extend(cel.Variable("param."+p.Name, t))
		cp := &Param{Param: p}
		if p.Override != "" {
			cp.OverridePath = jsonvalue.DottedPath(p.Override)
		}
		if p.Valid != nil {
			venv, err := c.env.Extend(cel.Variable("value", t))
			if err == nil {
				cp.Valid = c.program(venv, p.Valid, cel.BoolType)
			}
			if cp.Valid != nil && cp.Valid.Root() != nil {
				ids := freeIdents(cp.Valid.Root())
				cp.ValidReadsValueOnly = len(ids) == 0 || (len(ids) == 1 && ids["value"])
			}
		}
		m.Params = append(m.Params, cp)
	}
	obsType := cel.MapType(cel.StringType, cel.DynType)
	for _, o := range sm.Observes {
		t := obsType
		if o.ForEach != nil {
			t = cel.ListType(obsType)
		}
		c.extend(cel.Variable(o.Name, t))
	}
	// Lets: each sees the ones declared before it, with their inferred type.
	for _, l := range sm.Lets {
		cl := &Let{Let: l, Value: c.program(c.env, l.Value, nil)}
		t := cel.DynType
		if cl.Value != nil {
			t = cl.Value.Out
		}
		c.extend(cel.Variable(l.Name, t))
		if _, ok := m.bindings[l.Name]; !ok {
			m.bindings[l.Name] = Binding{Let: true, Index: len(m.Lets)}
		}
		m.Lets = append(m.Lets, cl)
	}
	// Observations see the lets and the observations made before them
	// (observeWaves checks which they read).
	for _, o := range sm.Observes {
		co := &Observe{Observe: o}
		co.When = c.program(c.env, o.When, cel.BoolType)
		env := c.env
		if o.ForEach != nil {
			co.ForEach = c.program(c.env, o.ForEach, nil)
			if co.ForEach != nil && !co.ForEach.Out.IsExactType(cel.DynType) && co.ForEach.Out.Kind() != types.ListKind {
				c.errf(o.ForEach.Range, "Wrong expression type", "for_each must give a list; it gives a %s.", co.ForEach.Out)
			}
			var err error
			if env, err = c.env.Extend(cel.Variable("item", cel.DynType), cel.Variable("index", cel.IntType)); err != nil {
				c.errf(o.DeclRange, "CEL environment error", "%v", err)
				continue
			}
		}
		co.Get = c.program(env, o.Get, nil)
		co.List = c.program(env, o.List, nil)
		m.bindings[o.Name] = Binding{Index: len(m.Observes)}
		m.Observes = append(m.Observes, co)
	}
	c.observeWaves(m)
	var err2 error
	if c.routeEnv, err2 = c.env.Extend(cel.Variable("last", cel.MapType(cel.StringType, cel.DynType))); err2 != nil {
		c.errf(sm.DeclRange, "CEL environment error", "%v", err2)
		return nil
	}
	if c.exp, err2 = c.routeEnv.Extend(cel.Variable("result", cel.MapType(cel.StringType, cel.DynType))); err2 != nil {
		c.errf(sm.DeclRange, "CEL environment error", "%v", err2)
		return nil
	}

	// States.
	for _, s := range sm.States {
		cs := &State{State: s, Recheck: c.program(c.env, s.Recheck, nil), Jitter: c.program(c.env, s.Jitter, cel.DurationType)}
		for _, a := range s.Set {
			cs.Set = append(cs.Set, Assign{Path: a.Path, Value: c.program(c.routeEnv, a.Value, nil)})
		}
		cs.Computed = c.conditions(s.Computed)
		if cs.Recheck != nil && !isOneOf(cs.Recheck.Out, cel.DurationType, cel.TimestampType) {
			c.errf(s.Recheck.Range, "Invalid recheck", "recheck is a duration (wait this long) or a timestamp (wait until then); this expression is %s.", cs.Recheck.Out)
		}
		m.States = append(m.States, cs)
		m.stateIndex[s.Name] = cs
		if s.Initial {
			if m.Initial != nil {
				c.errf(s.DeclRange, "Several initial states", "States %q and %q are both initial; a machine has exactly one.", m.Initial.Name, s.Name)
			}
			m.Initial = cs
		}
	}
	if m.Initial == nil && len(sm.States) > 0 {
		c.errf(sm.DeclRange, "No initial state", "Mark one state of machine %q with initial = true.", sm.Name)
	}
	if len(sm.States) == 0 {
		c.errf(sm.DeclRange, "No states", "Machine %q declares no state.", sm.Name)
	}

	// Transitions.
	allStates := make([]string, 0, len(m.States))
	for _, s := range m.States {
		allStates = append(allStates, s.Name)
	}
	for i, t := range sm.Transitions {
		ct := c.transition(m, t, i, allStates)
		m.Transitions = append(m.Transitions, ct)
	}
	for _, s := range m.States {
		for _, t := range m.Transitions {
			for _, f := range t.From {
				if f == Wildcard || f == s.Name {
					m.byState[s.Name] = append(m.byState[s.Name], t)
					break
				}
			}
		}
	}
	c.checkAccepts(m)
	if c.diags.HasErrors() {
		return nil
	}
	init := ""
	if m.Initial != nil {
		init = m.Initial.Name
	}
	// The event table is checked once here, and the first instance kept.
	c.mem.moves(m).Put(m.newFSM(init))
	return m
}

func (c *compiler) extend(opts ...cel.EnvOption) {
	e, err := c.env.Extend(opts...)
	if err != nil {
		c.errf(c.src.DeclRange, "CEL environment error", "%v", err)
		return
	}
	c.env = e
}

func (c *compiler) transition(m *Machine, t *rules.Transition, idx int, allStates []string) *Transition {
	ct := &Transition{Transition: t, Index: idx, Event: t.Name}
	ct.When = c.program(c.env, t.When, cel.BoolType)
	var src []string
	for _, f := range t.From {
		if f == Wildcard {
			src = append([]string(nil), allStates...)
			break
		}
	}
	wild := src != nil
	for _, f := range t.From {
		if f == Wildcard {
			continue
		}
		s := m.State(f)
		if s == nil {
			c.errf(t.FromRange, "Unknown state", "Transition %q starts from %q, which is not a state of machine %q%s.", t.Name, f, m.Name, suggest(f, allStates))
			continue
		}
		if s.Final {
			c.errf(t.FromRange, "Transition from a final state", "State %q is final: only transitions from \"*\" (spec change, reapply, deletion) leave it.", f)
		}
		if !wild {
			src = append(src, f)
		}
	}
	// Actions.
	actionNames := map[string]*Action{}
	for _, a := range t.Actions {
		ca := &Action{Action: a}
		ca.When = c.program(c.env, a.When, cel.BoolType)
		env, exp := c.env, c.exp
		if a.ForEach != nil {
			ca.ForEach = c.program(c.env, a.ForEach, nil)
			if ca.ForEach != nil && !ca.ForEach.Out.IsExactType(cel.DynType) && ca.ForEach.Out.Kind() != types.ListKind {
				c.errf(a.ForEach.Range, "Wrong expression type", "for_each must give a list; it gives a %s.", ca.ForEach.Out)
			}
			item := []cel.EnvOption{cel.Variable("item", cel.DynType), cel.Variable("index", cel.IntType)}
			var err error
			if env, err = c.env.Extend(item...); err == nil {
				exp, err = c.exp.Extend(item...)
			}
			if err != nil {
				c.errf(a.DeclRange, "CEL environment error", "%v", err)
				continue
			}
		}
		ca.Target = c.program(env, a.Target, nil)
		ca.Body = c.program(env, a.Body, nil)
		ca.Identity = c.program(env, a.Identity, cel.StringType)
		ca.Expect = c.program(exp, a.Expect, cel.BoolType)
		if ev := a.Event; ev != nil {
			ca.Note = c.program(env, ev.Note, cel.StringType)
			ca.Regarding = c.program(env, ev.Regarding, nil)
			ca.Related = c.program(env, ev.Related, nil)
			ca.EventName = c.program(env, ev.Name, cel.StringType)
		}
		ca.Outcomes = append([]string(nil), VerbOutcomes[a.Verb]...)
		if a.Expect != nil {
			ca.Outcomes = append(ca.Outcomes, NotRetained)
		}
		ct.Actions = append(ct.Actions, ca)
		actionNames[a.Name] = ca
	}
	// Routes.
	done := t.Done
	if done == nil {
		// No success route written: the object stays where it is.
		done = &rules.Route{DeclRange: t.DeclRange}
	}
	ct.Done = c.route(m, t, done, t.Name, src)
	eventCount := map[string]int{}
	for _, r := range t.Routes {
		if r.Action != Wildcard && actionNames[r.Action] == nil {
			c.errf(r.DeclRange, "Unknown action", "This route handles action %q, which transition %q does not declare.", r.Action, t.Name)
		}
		if r.Outcome != Wildcard && !knownOutcome(r.Outcome, t.Actions, r.Action) {
			c.errf(r.DeclRange, "Unknown outcome", "Action %q cannot end in %q; it can end in ok, %s.", r.Action, r.Outcome, strings.Join(outcomesOf(actionNames, r.Action), ", "))
		}
		// Event names must be unique: several routes may share an outcome
		// (guarded retries, then a fallback).
		ev := t.Name + " / " + r.Action + " " + r.Outcome
		if n := eventCount[ev]; n > 0 {
			eventCount[ev] = n + 1
			ev = fmt.Sprintf("%s #%d", ev, n+1)
		} else {
			eventCount[ev] = 1
		}
		ct.Routes = append(ct.Routes, c.route(m, t, r, ev, src))
	}
	// Every outcome an action can produce needs a route with no guard; a
	// best-effort action's failures take none.
	for _, a := range ct.Actions {
		if a.BestEffort {
			continue
		}
		for _, o := range a.Outcomes {
			if !hasUnguardedRoute(t.Routes, a.Name, o) {
				c.errf(a.DeclRange, "Outcome without route", "Action %q can end in %q but no route handles it: add on %q %q { to = STATE } (or a wildcard route without when).", a.Name, o, a.Name, o)
			}
		}
	}
	return ct
}

func (c *compiler) route(m *Machine, t *rules.Transition, r *rules.Route, event string, src []string) *Route {
	cr := &Route{Route: r, Event: event}
	cr.When = c.program(c.routeEnv, r.When, cel.BoolType)
	cr.Message = c.program(c.routeEnv, r.Message, cel.StringType)
	cr.ComputedReason = c.program(c.routeEnv, r.ReasonExpr, cel.StringType)
	cr.After = c.program(c.routeEnv, r.After, cel.DurationType)
	cr.At = c.program(c.routeEnv, r.At, cel.TimestampType)
	for _, a := range r.Set {
		cr.Set = append(cr.Set, Assign{Path: a.Path, Value: c.program(c.routeEnv, a.Value, nil)})
	}
	cr.Computed = c.conditions(r.Computed)
	if r.To != "" && m.State(r.To) == nil {
		names := make([]string, 0, len(m.States))
		for _, s := range m.States {
			names = append(names, s.Name)
		}
		c.errf(r.ToRange, "Unknown state", "Transition %q goes to %q, which is not a state of machine %q%s.", t.Name, r.To, m.Name, suggest(r.To, names))
		return cr
	}
	switch {
	case len(src) > 0 && r.To != "":
		m.events = append(m.events, lfsm.EventDesc{Name: event, Src: src, Dst: r.To})
	case r.To == "":
		// A route without a destination stays: one self-loop per source.
		for _, s := range src {
			m.events = append(m.events, lfsm.EventDesc{Name: event, Src: []string{s}, Dst: s})
		}
	}
	return cr
}

func hasUnguardedRoute(routes []*rules.Route, action, outcome string) bool {
	for _, r := range routes {
		if (r.Action == action || r.Action == Wildcard) && (r.Outcome == outcome || r.Outcome == Wildcard) && r.When == nil {
			return true
		}
	}
	return false
}

func knownOutcome(o string, actions []*rules.Action, action string) bool {
	if o == "ok" {
		return true
	}
	for _, a := range actions {
		if action != Wildcard && a.Name != action {
			continue
		}
		for _, x := range VerbOutcomes[a.Verb] {
			if x == o {
				return true
			}
		}
		if a.Expect != nil && o == NotRetained {
			return true
		}
	}
	return false
}

func outcomesOf(actions map[string]*Action, name string) []string {
	if a := actions[name]; a != nil {
		return a.Outcomes
	}
	return nil
}

// program compiles and type-checks one expression. want, when set, is the
// type the result must have (dyn is accepted and checked at run time).
func (c *compiler) program(env *cel.Env, e *rules.Expr, want *cel.Type) *Program {
	if e == nil || env == nil {
		return nil
	}
	key := compiledKey{env, e.Source}
	if done, ok := c.compiled[key]; ok {
		out := done.Out
		if want != nil && !out.IsExactType(cel.DynType) && !out.IsAssignableType(want) {
			c.errf(e.Range, "Wrong expression type", "This expression must give a %s; it gives a %s.", want, out)
			return nil
		}
		return &Program{Expr: e, Out: out, Cost: done.Cost, prg: done.prg, env: done.env, ast: done.ast}
	}
	ast, iss := env.Compile(e.Source)
	if iss != nil && iss.Err() != nil {
		for _, ce := range iss.Errors() {
			off := celOffset(e.Source, ce.Location.Line(), ce.Location.Column())
			rng := e.RangeAt(off, 1)
			c.diags = append(c.diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Invalid expression",
				Detail:   celMessage(ce.Message),
				Subject:  &rng,
				Context:  e.Range.Ptr(),
			})
		}
		return nil
	}
	out := ast.OutputType()
	if want != nil && !out.IsExactType(cel.DynType) && !out.IsAssignableType(want) {
		c.errf(e.Range, "Wrong expression type", "This expression must give a %s; it gives a %s.", want, out)
		return nil
	}
	est, estErr := env.EstimateCost(ast, costEstimator)
	prg, err := env.Program(ast, runtimeLimits(est, estErr)...)
	if err != nil {
		c.errf(e.Range, "Invalid expression", "%v", err)
		return nil
	}
	p := &Program{Expr: e, Out: out, prg: prg, env: env, ast: ast}
	if estErr == nil {
		p.Cost = est
	}
	if c.compiled == nil {
		c.compiled = map[compiledKey]*Program{}
	}
	c.compiled[key] = p
	return p
}

// runtimeLimits are the program options that bound an evaluation. The
// cost limit is enforced at run time by tracking the cost of every step,
// which is itself a cost; an expression whose static estimate (an upper
// bound of its actual cost) is within the limit cannot exceed it and is
// not tracked.
func runtimeLimits(est checker.CostEstimate, err error) []cel.ProgramOption {
	// OptOptimize folds what is constant when the program is planned:
	// literal lists and maps, and calls on constants, are built once, not
	// at each evaluation.
	opts := []cel.ProgramOption{cel.InterruptCheckFrequency(100), cel.EvalOptions(cel.OptOptimize)}
	if err != nil || est.Max > DefaultCostLimit {
		opts = append(opts, cel.CostLimit(DefaultCostLimit))
	}
	return opts
}

// costEstimator prices the Kubernetes library functions as the API server
// does, and bounds sizes as it does for a field without maxLength or
// maxItems (objectSizes).
var costEstimator = &k8slib.CostEstimator{SizeEstimator: objectSizes{}}

// maxRequestBytes is the largest request the API server accepts (3 MiB).
const maxRequestBytes = 3 * 1024 * 1024

// objectSizes bounds what the checker cannot know from types: nothing in
// an object can outgrow the largest request the API server accepts, so no
// string is longer than maxRequestBytes and no list or map holds more
// entries (the bound kube-apiserver assumes for CRD fields without
// maxLength or maxItems). A string comparison is then bounded; a
// comprehension over a list of unknown length still is not, and is
// tracked at run time.
type objectSizes struct{}

func (objectSizes) EstimateSize(checker.AstNode) *checker.SizeEstimate {
	return &checker.SizeEstimate{Min: 0, Max: maxRequestBytes}
}
func (objectSizes) EstimateCallCost(string, string, *checker.AstNode, []checker.AstNode) *checker.CallEstimate {
	return nil
}

// celOffset turns a CEL location (1-based line, 0-based column in code
// points) into a byte offset into src.
func celOffset(src string, line, col int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	for n := 0; n < col && off < len(src); n++ {
		_, size := utf8.DecodeRuneInString(src[off:])
		off += size
	}
	return off
}

func celMessage(msg string) string {
	msg = strings.TrimSpace(strings.ReplaceAll(msg, " (in container '')", ""))
	if msg == "" {
		return "The expression is not valid CEL."
	}
	r, size := utf8.DecodeRuneInString(msg)
	return strings.ToUpper(string(r)) + msg[size:] + "."
}

func isOneOf(t *cel.Type, types ...*cel.Type) bool {
	if t.IsExactType(cel.DynType) {
		return true
	}
	for _, x := range types {
		if t.IsAssignableType(x) {
			return true
		}
	}
	return false
}

func paramType(t string) *cel.Type {
	switch t {
	case "duration":
		return cel.DurationType
	case "int":
		return cel.IntType
	case "bool":
		return cel.BoolType
	case "string":
		return cel.StringType
	}
	return cel.DynType
}

// suggest returns ` (did you mean "x"?)` for the closest name, or "".
func suggest(name string, names []string) string {
	best, bestD := "", 3
	for _, n := range names {
		if d := levenshtein(strings.ToLower(name), strings.ToLower(n)); d < bestD {
			best, bestD = n, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %q?)", best)
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// observeWaves orders the observations: each may read, directly or through
// lets, only observations declared before it, which are made in an earlier
// wave.
func (c *compiler) observeWaves(m *Machine) {
	index := map[string]int{}
	for i, o := range m.Observes {
		index[o.Name] = i
	}
	lets := map[string]*Let{}
	for _, l := range m.Lets {
		lets[l.Name] = l
	}
	// reads returns the observations p reads, through lets too.
	var readsOf func(p *Program, seen map[string]bool, out map[string]bool)
	readsOf = func(p *Program, seen map[string]bool, out map[string]bool) {
		if p == nil || p.Root() == nil {
			return
		}
		for name := range freeIdents(p.Root()) {
			if _, ok := index[name]; ok {
				out[name] = true
			}
			if l := lets[name]; l != nil && !seen[name] {
				seen[name] = true
				readsOf(l.Value, seen, out)
			}
		}
	}
	// Params are of the object alone when no check reads more than the
	// value, the object and other params.
	ofSelf := func(name string) bool { return name == "self" }
	paramsOfSelf := true
	for _, p := range m.Params {
		if p.Valid != nil && !readsOnly(p.Valid, lets, func(n string) bool { return n == "value" || n == "self" || strings.HasPrefix(n, "param.") }) {
			paramsOfSelf = false
		}
	}
	if paramsOfSelf {
		ofSelf = func(name string) bool { return name == "self" || strings.HasPrefix(name, "param.") }
	}
	for i, o := range m.Observes {
		ref := o.Get
		if ref == nil {
			ref = o.List
		}
		o.SelfRef = o.ForEach == nil && ref != nil && readsOnly(ref, lets, ofSelf)
		reads := map[string]bool{}
		for _, p := range []*Program{o.When, o.ForEach, o.Get, o.List} {
			readsOf(p, map[string]bool{}, reads)
		}
		for _, name := range sortedNames(reads) {
			j := index[name]
			if j >= i {
				c.errf(o.DeclRange, "Observation reads a later observation", "Observation %q reads observation %q (directly or through a let), which is made after it; declare %q first.", o.Name, name, name)
				continue
			}
			o.Reads = append(o.Reads, name)
			o.Wave = max(o.Wave, m.Observes[j].Wave+1)
		}
	}
}

// readsOnly reports whether p reads no free identifier but those allowed,
// directly or through the lets it reads. A param is read as the
// identifier "param.NAME".
func readsOnly(p *Program, lets map[string]*Let, allowed func(string) bool) bool {
	seen := map[string]bool{}
	var only func(p *Program) bool
	only = func(p *Program) bool {
		if p == nil || p.Root() == nil {
			return false // not compiled: nothing is known of what it reads
		}
		for name := range freeIdents(p.Root()) {
			if allowed(name) {
				continue
			}
			l := lets[name]
			if l == nil {
				return false
			}
			if !seen[name] {
				seen[name] = true
				if !only(l.Value) {
					return false
				}
			}
		}
		return true
	}
	return only(p)
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// conditions compiles condition blocks, evaluated as a route's values are
// (last bound).
func (c *compiler) conditions(cs []*rules.Condition) []Condition {
	var out []Condition
	for _, rc := range cs {
		out = append(out, Condition{Condition: rc,
			Status:  c.program(c.routeEnv, rc.Status, cel.StringType),
			Reason:  c.program(c.routeEnv, rc.Reason, cel.StringType),
			Message: c.program(c.routeEnv, rc.Message, cel.StringType)})
	}
	return out
}
