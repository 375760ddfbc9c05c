package fsm

import (
	"fmt"
	"strings"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"

	"github.com/statecraft/statecraft/library"
)

// RestProfile says, for one state, how the decision of an object resting
// there depends on time and on what it observes. A runner uses it (through
// engine.Certify) to know that stepping the object again would decide the
// same without stepping it: with the same inputs, the same expressions give
// the same values as long as no time gate opens or closes.
//
// The expressions evaluated at rest are the params' valid checks, every
// observation's when, get and list, the guards of the transitions that may
// fire from the state, the state's recheck, and the lets they read, however
// deeply. Actions, routes and assignments are evaluated only when a
// transition fires, and a firing ends any rest.
type RestProfile struct {
	// Certifiable is false when an expression evaluated at rest reads now
	// other than in a TimeGate; Why then says which.
	Certifiable bool
	Why         string
	// Gates are the comparisons with now that expressions evaluated at
	// rest make, without repeats.
	Gates []*TimeGate
	// ReadsVersion is set when an expression evaluated at rest mentions
	// resourceVersion, which every write changes.
	ReadsVersion bool
	// StatusBlind names the list observations of which no expression
	// evaluated at rest reads an item's status (or anything a status write
	// changes): only outcome, exists, scope and message, or items handed
	// to a library function that reads no status (library.StatusBlind).
	StatusBlind map[string]bool
}

// TimeGate is a comparison of now with a value that does not depend on
// now: now OP Bound, or now - Since OP Bound (either side), where OP is any
// of < <= > >= == !=. Its value can change only where now passes one
// point, so an evaluation tells until when it holds.
type TimeGate struct {
	Text string // the comparison, as CEL prints it
	// Op is the comparison with now on the left: now OP Bound (or
	// now - Since OP Bound), one of operators.Less ... NotEquals.
	Op    string
	Bound *Program // the side without now
	Since *Program // S of now - S; nil for a plain now OP Bound
}

// Rest returns the rest profile of the named state (nil for an unknown
// state). Profiles are computed once per machine, on first use.
func (m *Machine) Rest(state string) *RestProfile {
	m.restOnce.Do(func() {
		m.rest = map[string]*RestProfile{}
		for _, s := range m.States {
			m.rest[s.Name] = restProfile(m, s)
		}
	})
	return m.rest[state]
}

// restWalk collects, over the expressions evaluated at rest, the time gates,
// the first read of now outside a gate, and the list observations read in a
// way that may see status.
type restWalk struct {
	m         *Machine
	prof      *RestProfile
	gates     map[string]bool
	lets      map[string]bool // lets already walked
	obs       map[string]bool // observation names
	sensitive map[string]bool // observations read beyond what StatusBlind allows
}

func restProfile(m *Machine, s *State) *RestProfile {
	w := &restWalk{
		m:     m,
		prof:  &RestProfile{Certifiable: true, StatusBlind: map[string]bool{}},
		gates: map[string]bool{}, lets: map[string]bool{}, obs: map[string]bool{}, sensitive: map[string]bool{},
	}
	for _, o := range m.Observes {
		w.obs[o.Name] = true
	}
	for _, p := range m.Params {
		w.program(p.Valid)
	}
	for _, o := range m.Observes {
		w.program(o.When)
		w.program(o.ForEach)
		w.program(o.Get)
		w.program(o.List)
	}
	for _, t := range m.Candidates(s.Name) {
		w.program(t.When)
	}
	w.program(s.Recheck)
	w.program(s.Jitter)
	for _, o := range m.Observes {
		if o.List != nil && !w.sensitive[o.Name] {
			w.prof.StatusBlind[o.Name] = true
		}
	}
	return w.prof
}

func (w *restWalk) fail(p *Program, format string, args ...any) {
	if w.prof.Certifiable {
		w.prof.Certifiable = false
		w.prof.Why = fmt.Sprintf("%s: %s", p.Expr.Range, fmt.Sprintf(format, args...))
	}
}

func (w *restWalk) program(p *Program) {
	if p == nil {
		return
	}
	root := p.Root()
	if root == nil {
		w.fail(p, "no checked expression")
		return
	}
	if strings.Contains(p.Expr.Source, "resourceVersion") {
		w.prof.ReadsVersion = true
	}
	w.expr(p, root, nil)
}

// expr walks e; bound holds the comprehension variables in scope.
func (w *restWalk) expr(p *Program, e celast.Expr, bound map[string]bool) {
	switch e.Kind() {
	case celast.IdentKind:
		name := e.AsIdent()
		switch {
		case bound[name]:
		case name == "now":
			w.fail(p, "%s reads now other than in a comparison with a time", p.Expr.Source)
		case w.obs[name]:
			w.sensitive[name] = true
		default:
			if l := w.m.Let(name); l != nil && !w.lets[name] {
				w.lets[name] = true
				w.program(l.Value)
			}
		}
	case celast.SelectKind:
		sel := e.AsSelect()
		if op := sel.Operand(); op.Kind() == celast.IdentKind && w.obs[op.AsIdent()] && !bound[op.AsIdent()] {
			switch sel.FieldName() {
			case "outcome", "exists", "scope", "message":
				return
			}
		}
		w.expr(p, sel.Operand(), bound)
	case celast.CallKind:
		c := e.AsCall()
		if w.gate(p, e, bound) {
			return
		}
		blind := library.StatusBlind[c.FunctionName()]
		if c.IsMemberFunction() {
			w.expr(p, c.Target(), bound)
		}
		for _, a := range c.Args() {
			if blind && w.itemsOf(a, bound) {
				continue
			}
			w.expr(p, a, bound)
		}
	case celast.ListKind:
		for _, x := range e.AsList().Elements() {
			w.expr(p, x, bound)
		}
	case celast.MapKind:
		for _, x := range e.AsMap().Entries() {
			me := x.AsMapEntry()
			w.expr(p, me.Key(), bound)
			w.expr(p, me.Value(), bound)
		}
	case celast.StructKind:
		for _, x := range e.AsStruct().Fields() {
			w.expr(p, x.AsStructField().Value(), bound)
		}
	case celast.ComprehensionKind:
		cp := e.AsComprehension()
		w.expr(p, cp.IterRange(), bound)
		w.expr(p, cp.AccuInit(), bound)
		inner := map[string]bool{cp.IterVar(): true, cp.AccuVar(): true}
		if cp.HasIterVar2() {
			inner[cp.IterVar2()] = true
		}
		for k := range bound {
			inner[k] = true
		}
		w.expr(p, cp.LoopCondition(), inner)
		w.expr(p, cp.LoopStep(), inner)
		w.expr(p, cp.Result(), inner)
	}
}

// itemsOf reports whether e is OBS.items of an observation.
func (w *restWalk) itemsOf(e celast.Expr, bound map[string]bool) bool {
	if e.Kind() != celast.SelectKind || e.AsSelect().FieldName() != "items" {
		return false
	}
	op := e.AsSelect().Operand()
	return op.Kind() == celast.IdentKind && w.obs[op.AsIdent()] && !bound[op.AsIdent()]
}

var comparisons = map[string]bool{
	operators.Less: true, operators.LessEquals: true, operators.Greater: true,
	operators.GreaterEquals: true, operators.Equals: true, operators.NotEquals: true,
}

// mirrored turns T OP now into now OP' T.
var mirrored = map[string]string{
	operators.Less: operators.Greater, operators.LessEquals: operators.GreaterEquals,
	operators.Greater: operators.Less, operators.GreaterEquals: operators.LessEquals,
	operators.Equals: operators.Equals, operators.NotEquals: operators.NotEquals,
}

// gate recognises a time gate at e and records it; false when e is not
// one (the caller then walks e as any call).
func (w *restWalk) gate(p *Program, e celast.Expr, bound map[string]bool) bool {
	c := e.AsCall()
	args := c.Args()
	if !comparisons[c.FunctionName()] || len(args) != 2 {
		return false
	}
	op := c.FunctionName()
	nowSide, other := args[0], args[1]
	if !isNowExpr(nowSide) && !isNowMinusExpr(nowSide) {
		nowSide, other, op = other, nowSide, mirrored[op]
	}
	if !isNowExpr(nowSide) && !isNowMinusExpr(nowSide) {
		return false
	}
	var since celast.Expr
	if isNowMinusExpr(nowSide) {
		since = nowSide.AsCall().Args()[1]
	}
	text := p.Text(e)
	if w.gates[text] {
		return true
	}
	g := &TimeGate{Text: text, Op: op}
	var ok bool
	if g.Bound, ok = w.operand(p, other, bound); !ok {
		return true
	}
	if since != nil {
		if g.Since, ok = w.operand(p, since, bound); !ok {
			return true
		}
	}
	w.gates[text] = true
	w.prof.Gates = append(w.prof.Gates, g)
	return true
}

// operand compiles one side of a gate on its own, so that it can be
// evaluated apart from the comparison; it may read lets (walked like any
// read) but neither now nor a comprehension variable.
func (w *restWalk) operand(p *Program, e celast.Expr, bound map[string]bool) (*Program, bool) {
	for name := range freeIdents(e) {
		switch {
		case bound[name]:
			w.fail(p, "%s compares now with a value computed per list element", p.Text(e))
			return nil, false
		case name == "now":
			w.fail(p, "%s compares now with a value that depends on now", p.Text(e))
			return nil, false
		}
	}
	w.expr(p, e, bound)
	src := p.Text(e)
	ast, iss := p.env.Compile(src)
	if iss != nil && iss.Err() != nil {
		w.fail(p, "%s cannot be evaluated on its own: %v", src, iss.Err())
		return nil, false
	}
	prg, err := p.env.Program(ast, cel.CostLimit(DefaultCostLimit), cel.InterruptCheckFrequency(100))
	if err != nil {
		w.fail(p, "%s cannot be evaluated on its own: %v", src, err)
		return nil, false
	}
	return &Program{Expr: p.Expr, Out: ast.OutputType(), prg: prg, env: p.env, ast: ast}, true
}

// freeIdents returns the identifiers e reads, comprehension variables of
// comprehensions inside e aside.
func freeIdents(e celast.Expr) map[string]bool {
	out := map[string]bool{}
	var walk func(e celast.Expr, bound map[string]bool)
	walk = func(e celast.Expr, bound map[string]bool) {
		switch e.Kind() {
		case celast.IdentKind:
			if !bound[e.AsIdent()] {
				out[e.AsIdent()] = true
			}
		case celast.SelectKind:
			walk(e.AsSelect().Operand(), bound)
		case celast.CallKind:
			c := e.AsCall()
			if c.IsMemberFunction() {
				walk(c.Target(), bound)
			}
			for _, a := range c.Args() {
				walk(a, bound)
			}
		case celast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x, bound)
			}
		case celast.MapKind:
			for _, x := range e.AsMap().Entries() {
				walk(x.AsMapEntry().Key(), bound)
				walk(x.AsMapEntry().Value(), bound)
			}
		case celast.StructKind:
			for _, x := range e.AsStruct().Fields() {
				walk(x.AsStructField().Value(), bound)
			}
		case celast.ComprehensionKind:
			cp := e.AsComprehension()
			walk(cp.IterRange(), bound)
			walk(cp.AccuInit(), bound)
			inner := map[string]bool{cp.IterVar(): true, cp.AccuVar(): true}
			if cp.HasIterVar2() {
				inner[cp.IterVar2()] = true
			}
			for k := range bound {
				inner[k] = true
			}
			walk(cp.LoopCondition(), inner)
			walk(cp.LoopStep(), inner)
			walk(cp.Result(), inner)
		}
	}
	walk(e, nil)
	return out
}

func isNowExpr(e celast.Expr) bool { return e.Kind() == celast.IdentKind && e.AsIdent() == "now" }

func isNowMinusExpr(e celast.Expr) bool {
	return e.Kind() == celast.CallKind && e.AsCall().FunctionName() == operators.Subtract &&
		len(e.AsCall().Args()) == 2 && isNowExpr(e.AsCall().Args()[0])
}
