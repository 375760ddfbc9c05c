package fsm

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/hashicorp/hcl/v2"

	"github.com/statecraft/statecraft/library"
)

// maxCycles bounds the elementary cycles Analyze enumerates per machine, so
// that a pathological machine cannot make check slow.
const maxCycles = 10000

// Analyze looks for likely mistakes in a compiled machine and returns them as
// warnings (never errors): unreachable states, non-final states with no way
// out, shadowed transitions and duplicate guards, unused params, lets and
// observations, and cycles that can repeat forever with neither a counter
// bound nor a wait. The exact rules are in spec/language.md, "Static
// analysis". Analyze does not change m.
func Analyze(m *Machine) hcl.Diagnostics {
	if m == nil {
		return nil
	}
	a := &analyzer{m: m, info: map[*Program]*exprInfo{}}
	a.collect()
	reach := a.reachable()
	a.unreachable(reach)
	a.deadEnds(reach)
	a.shadowed()
	a.unused()
	a.cycles()
	return a.diags
}

type analyzer struct {
	m     *Machine
	diags hcl.Diagnostics
	info  map[*Program]*exprInfo
	all   []*Program // every program of the machine except let values
	lets  map[string]*Let
	obs   map[string]bool
}

func (a *analyzer) warn(rng hcl.Range, summary, format string, args ...any) {
	a.diags = append(a.diags, &hcl.Diagnostic{
		Severity: hcl.DiagWarning,
		Summary:  summary,
		Detail:   fmt.Sprintf(format, args...),
		Subject:  rng.Ptr(),
	})
}

// ---------------------------------------------------------------- states

// sources returns the states a transition can fire from, in declaration
// order ("*" expanded).
func (a *analyzer) sources(t *Transition) []*State {
	var out []*State
	for _, s := range a.m.States {
		if fromIncludes(t, s.Name) {
			out = append(out, s)
		}
	}
	return out
}

// routes returns a transition's routes: the success route first, then the
// on routes in declaration order.
func routes(t *Transition) []*Route {
	var out []*Route
	if t.Done != nil {
		out = append(out, t.Done)
	}
	return append(out, t.Routes...)
}

func (a *analyzer) reachable() map[string]bool {
	reach := map[string]bool{}
	if a.m.Initial == nil {
		return reach
	}
	reach[a.m.Initial.Name] = true
	for changed := true; changed; {
		changed = false
		for _, t := range a.m.Transitions {
			fires := false
			for _, s := range a.sources(t) {
				if reach[s.Name] {
					fires = true
					break
				}
			}
			if !fires {
				continue
			}
			for _, r := range routes(t) {
				if r.To != "" && a.m.State(r.To) != nil && !reach[r.To] {
					reach[r.To] = true
					changed = true
				}
			}
		}
	}
	return reach
}

func (a *analyzer) unreachable(reach map[string]bool) {
	if a.m.Initial == nil {
		return
	}
	for _, s := range a.m.States {
		if !reach[s.Name] {
			a.warn(s.DeclRange, "Unreachable state", "No transition leads to state %q from the initial state %q; an object can never be in it.", s.Name, a.m.Initial.Name)
		}
	}
}

// deadEnds reports reachable non-final states that no transition can leave:
// every route of every transition that may fire there goes back to it.
func (a *analyzer) deadEnds(reach map[string]bool) {
	for _, s := range a.m.States {
		if s.Final || !reach[s.Name] {
			continue
		}
		out := false
		for _, t := range a.m.Candidates(s.Name) {
			for _, r := range routes(t) {
				if r.To != "" && r.To != s.Name {
					out = true
				}
			}
		}
		if !out {
			a.warn(s.DeclRange, "State with no way out", "State %q is not final, but no transition leads out of it (self-loops aside); mark it final = true or add a transition from it.", s.Name)
		}
	}
}

// covers reports whether every state t2 may fire from is one t1 may fire
// from.
func (a *analyzer) covers(t1, t2 *Transition) bool {
	for _, s := range a.sources(t2) {
		if !fromIncludes(t1, s.Name) {
			return false
		}
	}
	return true
}

func (a *analyzer) alwaysTrue(t *Transition) bool {
	if t.When == nil {
		return true
	}
	i := a.info[t.When]
	if i == nil || i.root == nil || i.root.Kind() != celast.LiteralKind {
		return false
	}
	b, ok := i.root.AsLiteral().(types.Bool)
	return ok && bool(b)
}

func (a *analyzer) shadowed() {
	for j, t2 := range a.m.Transitions {
		src := a.sources(t2)
		if len(src) == 0 {
			continue
		}
		// Shadowed state by state: from each state t2 fires from, an
		// earlier transition without a guard fires first.
		var by []string
		for _, s := range src {
			var first *Transition
			for _, t1 := range a.m.Transitions[:j] {
				if fromIncludes(t1, s.Name) && a.alwaysTrue(t1) {
					first = t1
					break
				}
			}
			if first == nil {
				by = nil
				break
			}
			if !slices.Contains(by, first.Name) {
				by = append(by, first.Name)
			}
		}
		if by != nil {
			a.warn(t2.DeclRange, "Shadowed transition", "Transition %q can never fire: from every state it fires from, the earlier transition %s, whose guard is always true, fires first.", t2.Name, quoteJoin(by))
			continue
		}
		if t2.When == nil {
			continue
		}
		for _, t1 := range a.m.Transitions[:j] {
			if t1.When != nil && a.covers(t1, t2) && a.guardText(t1.When) == a.guardText(t2.When) {
				a.warn(t2.When.Expr.Range, "Duplicate guard", "Transition %q has the same guard as the earlier transition %q, which fires from every state %q fires from; %q can never fire.", t2.Name, t1.Name, t2.Name, t2.Name)
				break
			}
		}
	}
}

// quoteJoin renders names as "a", "a" or "b", "a", "b" or "c".
func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func (a *analyzer) guardText(p *Program) string {
	if i := a.info[p]; i != nil && i.text != "" {
		return i.text
	}
	return strings.Join(strings.Fields(p.Expr.Source), " ")
}

// ---------------------------------------------------------------- names

// unused reports params, lets and observations no expression references.
// A let referenced only by its own value, or by nothing, is unused; a let
// referenced by another let counts as used.
func (a *analyzer) unused() {
	params, idents := map[string]bool{}, map[string]bool{}
	add := func(p *Program) {
		if i := a.info[p]; i != nil {
			for n := range i.params {
				params[n] = true
			}
			for n := range i.idents {
				idents[n] = true
			}
		}
	}
	for _, p := range a.all {
		add(p)
	}
	for _, l := range a.m.Lets {
		add(l.Value)
	}
	for _, p := range a.m.Params {
		if !params[p.Name] {
			a.warn(p.DeclRange, "Unused param", "No expression reads param.%s; remove the param or use it.", p.Name)
		}
	}
	for _, o := range a.m.Observes {
		if !idents[o.Name] {
			a.warn(o.DeclRange, "Unused observation", "No expression reads observation %q, yet the engine makes it before every step; remove it or use it.", o.Name)
		}
	}
	for _, l := range a.m.Lets {
		if !idents[l.Name] {
			a.warn(l.DeclRange, "Unused let", "No expression reads let %q; remove it or use it.", l.Name)
		}
	}
}

// ---------------------------------------------------------------- cycles

type edge struct {
	from, to int
	t        *Transition
	r        *Route
}

// cycles reports elementary cycles of non-waiting routes that nothing
// bounds. See spec/language.md, "Static analysis", for the rule.
func (a *analyzer) cycles() {
	idx := map[string]int{}
	for i, s := range a.m.States {
		idx[s.Name] = i
	}
	adj := make([][]edge, len(a.m.States))
	for _, t := range a.m.Transitions {
		for _, s := range a.sources(t) {
			for _, r := range routes(t) {
				to, ok := idx[r.To]
				if !ok || r.After != nil || r.At != nil {
					continue
				}
				from := idx[s.Name]
				if from == to && a.restingLoop(t, r) {
					continue // the second time round it changes nothing: a rest
				}
				adj[from] = append(adj[from], edge{from: from, to: to, t: t, r: r})
			}
		}
	}
	seen := map[string]bool{}
	count := 0
	var path []edge
	onPath := make([]bool, len(a.m.States))
	var dfs func(start, at int)
	dfs = func(start, at int) {
		for _, e := range adj[at] {
			if count >= maxCycles {
				return
			}
			if e.to == start {
				count++
				a.checkCycle(append(append([]edge(nil), path...), e), seen)
				continue
			}
			if e.to < start || onPath[e.to] {
				continue
			}
			onPath[e.to] = true
			path = append(path, e)
			dfs(start, e.to)
			path = path[:len(path)-1]
			onPath[e.to] = false
		}
	}
	for s := range a.m.States {
		onPath[s] = true
		dfs(s, s)
		onPath[s] = false
	}
}

func (a *analyzer) checkCycle(cyc []edge, seen map[string]bool) {
	// The fields the cycle's routes write.
	written := map[string]bool{}
	for _, e := range cyc {
		for f := range a.writes(e.r) {
			written[f] = true
		}
	}
	var conj []conjunct
	for _, e := range cyc {
		for _, p := range []*Program{e.t.When, e.r.When} {
			if p == nil {
				continue
			}
			for f := range a.statusReads(p) {
				if written[f] {
					return // a counter or memory bound
				}
			}
			conj = append(conj, a.conjuncts(p)...)
		}
	}
	if contradictory(conj) || a.orderBound(cyc, written) || a.worldBound(cyc) {
		return
	}
	// Report each set of transitions once, at the first declared.
	var ids []int
	first := cyc[0].t
	for _, e := range cyc {
		ids = append(ids, e.t.Index)
		if e.t.Index < first.Index {
			first = e.t
		}
	}
	sort.Ints(ids)
	key := fmt.Sprint(slices.Compact(ids))
	if seen[key] {
		return
	}
	seen[key] = true
	var steps []string
	for _, e := range cyc {
		steps = append(steps, fmt.Sprintf("%s → %s by %q", a.m.States[e.from].Name, a.m.States[e.to].Name, e.t.Name))
	}
	a.warn(first.DeclRange, "Unbounded cycle", "The cycle %s can repeat without end within one reconcile: none of its routes waits (after, at), none of its guards reads a status field the cycle writes, and no two of its guards contradict; it can run into max_steps. Add a wait or a counter in status.", strings.Join(steps, ", "))
}

// orderBound reports whether the cycle is bounded by the order of its
// transitions: none of them has actions, each leaves every state of the
// cycle, and no guard of theirs reads a status field the cycle writes, the
// state field or outcome. Then the reconcile's observations stay as they
// are, every guard has one value in all the cycle's states, and the first
// of the cycle's transitions that holds is the one taken in each of them:
// a cycle of two or more transitions cannot go round (and one transition's
// self-loop is a rest or is reported as such).
func (a *analyzer) orderBound(cyc []edge, written map[string]bool) bool {
	for _, e := range cyc {
		if len(e.t.Actions) > 0 {
			return false
		}
		for _, c := range cyc {
			if !fromIncludes(e.t, a.m.States[c.from].Name) {
				return false
			}
		}
		for f := range a.statusReads(e.t.When) {
			if written[f] || f == a.m.StateField || f == "outcome" {
				return false
			}
		}
	}
	first := cyc[0].t
	for _, e := range cyc {
		if e.t != first {
			return true
		}
	}
	return false // one transition all round: its own routes decide
}

// writes returns the top-level status fields a route writes that can bound
// a cycle: message and observedGeneration always; reason when the route has
// one; conditions when the destination declares some; and the first segment
// of every set path. The state field and outcome are left out: around a
// cycle they only take the values of its own states again.
func (a *analyzer) writes(r *Route) map[string]bool {
	w := map[string]bool{"message": true, "observedGeneration": true}
	if r.HasReason() {
		w["reason"] = true
	}
	if s := a.m.State(r.To); s != nil && len(s.Conditions) > 0 {
		w["conditions"] = true
	}
	for _, s := range r.Set {
		w[strings.SplitN(s.Path, ".", 2)[0]] = true
	}
	return w
}

// worldBound tells a cycle one of whose transitions writes to the world
// (an action other than get, event or a dry run) and guards on an
// observation: the engine observes again before each micro-step, so the
// write changes what the guard is evaluated on (adopting the objects a
// guard lists empties the list). Whether the write reaches what is
// observed is not checked.
func (a *analyzer) worldBound(cyc []edge) bool {
	for _, e := range cyc {
		if e.t.When == nil || len(a.observationReads(e.t.When)) == 0 {
			continue
		}
		for _, act := range e.t.Actions {
			if act.Verb != "get" && act.Verb != "event" && !act.DryRun {
				return true
			}
		}
	}
	return false
}

// observationReads lists the observations p reads, directly or through
// the lets it reads.
func (a *analyzer) observationReads(p *Program) map[string]bool {
	out := map[string]bool{}
	a.throughLets(p, func(i *exprInfo) {
		for n := range i.idents {
			if a.obs[n] {
				out[n] = true
			}
		}
	})
	return out
}

// statusReads returns the top-level status fields an expression reads,
// directly or through the lets it uses.
func (a *analyzer) statusReads(p *Program) map[string]bool {
	out := map[string]bool{}
	a.throughLets(p, func(i *exprInfo) {
		for f := range i.status {
			out[f] = true
		}
	})
	return out
}

// throughLets calls see with what p reads and with what each let it reads
// reads, transitively (a let read by several is seen once per path, the
// depth bounded by the number of lets).
func (a *analyzer) throughLets(p *Program, see func(*exprInfo)) {
	var visit func(p *Program, depth int)
	visit = func(p *Program, depth int) {
		i := a.info[p]
		if i == nil || depth > len(a.m.Lets)+1 {
			return
		}
		see(i)
		for n := range i.idents {
			if l := a.lets[n]; l != nil && l.Value != nil && l.Value != p {
				visit(l.Value, depth+1)
			}
		}
	}
	visit(p, 0)
}

// conjunct is one operand of a guard's top-level &&, with negations
// stripped. eq is set for E == L and E != L with L a literal.
type conjunct struct {
	text    string // the operand without leading !, as CEL prints it
	neg     bool
	lhs     string // for comparisons with a literal: the other side
	lit     string // the literal, as CEL prints it
	eq, cmp bool   // cmp: a comparison with a literal; eq: == (else !=)
	exists  string // for OBS.exists: the observation
	outcome string // for OBS.outcome == L / != L: the observation
}

// conjuncts splits a guard at its top-level && and, for a conjunct that is
// a let name, adds the let's own conjuncts.
func (a *analyzer) conjuncts(p *Program) []conjunct {
	i := a.info[p]
	if i == nil || i.root == nil {
		return nil
	}
	var out []conjunct
	var split func(e celast.Expr, depth int)
	split = func(e celast.Expr, depth int) {
		if e.Kind() == celast.CallKind && e.AsCall().FunctionName() == operators.LogicalAnd && len(e.AsCall().Args()) == 2 {
			split(e.AsCall().Args()[0], depth)
			split(e.AsCall().Args()[1], depth)
			return
		}
		c := a.conjunct(e, i)
		out = append(out, c)
		if !c.neg && e.Kind() == celast.IdentKind && depth <= len(a.m.Lets) {
			if l := a.lets[e.AsIdent()]; l != nil && l.Value != nil {
				if li := a.info[l.Value]; li != nil && li.root != nil {
					sub := i
					i = li
					split(li.root, depth+1)
					i = sub
				}
			}
		}
	}
	split(i.root, 0)
	return out
}

func (a *analyzer) conjunct(e celast.Expr, i *exprInfo) conjunct {
	var c conjunct
	for e.Kind() == celast.CallKind && e.AsCall().FunctionName() == operators.LogicalNot && len(e.AsCall().Args()) == 1 {
		c.neg = !c.neg
		e = e.AsCall().Args()[0]
	}
	c.text = i.print(e)
	if e.Kind() == celast.SelectKind && e.AsSelect().FieldName() == "exists" && !e.AsSelect().IsTestOnly() {
		if op := e.AsSelect().Operand(); op.Kind() == celast.IdentKind && a.obs[op.AsIdent()] {
			c.exists = op.AsIdent()
		}
	}
	if e.Kind() == celast.CallKind {
		call := e.AsCall()
		fn := call.FunctionName()
		if (fn == operators.Equals || fn == operators.NotEquals) && len(call.Args()) == 2 {
			l, r := call.Args()[0], call.Args()[1]
			if l.Kind() == celast.LiteralKind {
				l, r = r, l
			}
			if r.Kind() == celast.LiteralKind {
				c.cmp, c.eq = true, (fn == operators.Equals) != c.neg
				c.lhs, c.lit = i.print(l), i.print(r)
				if l.Kind() == celast.SelectKind && l.AsSelect().FieldName() == "outcome" {
					if op := l.AsSelect().Operand(); op.Kind() == celast.IdentKind && a.obs[op.AsIdent()] {
						c.outcome = op.AsIdent()
					}
				}
			}
		}
	}
	return c
}

// contradictory reports whether two conjuncts cannot both hold on the same
// inputs: X and !X; E == L1 and E == L2 (L1 ≠ L2); E == L and E != L; and,
// for an observation O, O.exists and O.outcome == L (L ≠ 'ok'), or !O.exists
// and O.outcome == 'ok'.
func contradictory(cs []conjunct) bool {
	for i, x := range cs {
		for _, y := range cs[i+1:] {
			if x.text == y.text && x.neg != y.neg {
				return true
			}
			if x.cmp && y.cmp && x.lhs == y.lhs {
				if x.eq && y.eq && x.lit != y.lit {
					return true
				}
				if x.eq != y.eq && x.lit == y.lit {
					return true
				}
			}
			for _, p := range [][2]conjunct{{x, y}, {y, x}} {
				ex, oc := p[0], p[1]
				if ex.exists != "" && ex.exists == oc.outcome && oc.eq {
					if !ex.neg && oc.lit != "'ok'" && oc.lit != `"ok"` {
						return true
					}
					if ex.neg && (oc.lit == "'ok'" || oc.lit == `"ok"`) {
						return true
					}
				}
			}
		}
	}
	return false
}

// ---------------------------------------------------------------- CEL ASTs

// exprInfo is what Analyze learns from one expression's CEL AST.
type exprInfo struct {
	root   celast.Expr
	src    *celast.SourceInfo
	text   string          // the expression as CEL prints it
	idents map[string]bool // free identifiers (comprehension variables aside)
	params map[string]bool // NAME of every param.NAME read
	status map[string]bool // top-level status fields read
}

func (i *exprInfo) print(e celast.Expr) string {
	s, err := cel.ExprToString(e, i.src)
	if err != nil {
		return fmt.Sprintf("#%d", e.ID())
	}
	return s
}

var (
	parseEnvOnce sync.Once
	parseEnv     *cel.Env
)

// parse parses a compiled expression again: the Program keeps only the
// evaluable form. The names are resolved by walking the AST with the
// comprehension scopes.
func parse(m *Machine, src string) *exprInfo {
	parseEnvOnce.Do(func() {
		parseEnv, _ = cel.NewEnv(library.EnvOptions(nil)...) // parsing only: nothing is evaluated
	})
	env := parseEnv
	if m.parseEnv != nil {
		env = m.parseEnv // the machine's functions expand as they did when it compiled
	}
	if env == nil {
		return nil
	}
	ast, iss := env.Parse(src)
	if iss != nil && iss.Err() != nil {
		return nil
	}
	native := ast.NativeRep()
	i := &exprInfo{root: native.Expr(), src: native.SourceInfo(), idents: map[string]bool{}, params: map[string]bool{}, status: map[string]bool{}}
	i.text, _ = cel.AstToString(ast)
	i.walk(native.Expr(), nil)
	return i
}

func (i *exprInfo) walk(e celast.Expr, bound map[string]bool) {
	if e == nil {
		return
	}
	free := func(x celast.Expr, name string) bool {
		return x.Kind() == celast.IdentKind && x.AsIdent() == name && !bound[name]
	}
	switch e.Kind() {
	case celast.IdentKind:
		if !bound[e.AsIdent()] {
			i.idents[e.AsIdent()] = true
		}
	case celast.SelectKind:
		s := e.AsSelect()
		if free(s.Operand(), "param") {
			i.params[s.FieldName()] = true
		}
		if free(s.Operand(), "status") {
			i.status[s.FieldName()] = true
		}
		i.walk(s.Operand(), bound)
	case celast.CallKind:
		c := e.AsCall()
		args := c.Args()
		fn := c.FunctionName()
		if (fn == operators.OptSelect || fn == operators.Index || fn == operators.OptIndex) && len(args) == 2 && args[1].Kind() == celast.LiteralKind {
			if f, ok := args[1].AsLiteral().Value().(string); ok {
				if free(args[0], "status") {
					i.status[f] = true
				}
				if free(args[0], "param") {
					i.params[f] = true
				}
			}
		}
		if c.IsMemberFunction() {
			i.walk(c.Target(), bound)
		}
		for _, x := range args {
			i.walk(x, bound)
		}
	case celast.ComprehensionKind:
		c := e.AsComprehension()
		i.walk(c.IterRange(), bound)
		i.walk(c.AccuInit(), bound)
		inner := map[string]bool{c.IterVar(): true, c.AccuVar(): true}
		if c.HasIterVar2() {
			inner[c.IterVar2()] = true
		}
		for k := range bound {
			inner[k] = true
		}
		i.walk(c.LoopCondition(), inner)
		i.walk(c.LoopStep(), inner)
		i.walk(c.Result(), inner)
	case celast.ListKind:
		for _, x := range e.AsList().Elements() {
			i.walk(x, bound)
		}
	case celast.MapKind:
		for _, en := range e.AsMap().Entries() {
			i.walk(en.AsMapEntry().Key(), bound)
			i.walk(en.AsMapEntry().Value(), bound)
		}
	case celast.StructKind:
		for _, f := range e.AsStruct().Fields() {
			i.walk(f.AsStructField().Value(), bound)
		}
	}
}

// collect parses every expression of the machine once.
func (a *analyzer) collect() {
	m := a.m
	a.lets = map[string]*Let{}
	a.obs = map[string]bool{}
	add := func(ps ...*Program) {
		for _, p := range ps {
			if p == nil || p.Expr == nil {
				continue
			}
			if _, ok := a.info[p]; !ok {
				a.info[p] = parse(m, p.Expr.Source)
			}
			a.all = append(a.all, p)
		}
	}
	for _, p := range m.Params {
		add(p.Valid)
	}
	for _, o := range m.Observes {
		a.obs[o.Name] = true
		add(o.Get, o.List, o.When, o.ForEach)
	}
	for _, l := range m.Lets {
		a.lets[l.Name] = l
		if l.Value != nil {
			a.info[l.Value] = parse(m, l.Value.Expr.Source)
		}
	}
	for _, s := range m.States {
		add(s.Recheck, s.Jitter)
	}
	for _, t := range m.Transitions {
		add(t.When)
		for _, ac := range t.Actions {
			add(ac.Target, ac.Body, ac.Identity, ac.Expect, ac.ForEach)
		}
		for _, r := range routes(t) {
			add(r.When, r.Message, r.After, r.At)
			for _, s := range r.Set {
				add(s.Value)
			}
		}
	}
}

// restingLoop reports whether a self-loop route of t is a rest the second
// time it is taken in one reconcile: t makes no request, so the
// reconcile's observations are what they were (a read it already made is
// not made again), and nothing the route writes reads the memory (status)
// or last, so it writes the same again, and a transition that changes
// nothing is a rest.
func (a *analyzer) restingLoop(t *Transition, r *Route) bool {
	if len(t.Actions) > 0 {
		return false
	}
	var ps []*Program
	ps = append(ps, r.Message, r.ComputedReason)
	for _, s := range r.Set {
		ps = append(ps, s.Value)
	}
	for _, c := range r.Computed {
		ps = append(ps, c.Status, c.Reason, c.Message)
	}
	if st := a.m.State(r.To); st != nil {
		for _, s := range st.Set {
			ps = append(ps, s.Value)
		}
		for _, c := range st.Computed {
			ps = append(ps, c.Status, c.Reason, c.Message)
		}
	}
	for _, p := range ps {
		if p == nil {
			continue
		}
		if p.Root() == nil {
			return false
		}
		for name := range a.reads(p.Root(), map[string]bool{}) {
			if name == "status" || name == "last" {
				return false
			}
		}
	}
	return true
}

// reads returns the free identifiers of e, through the lets it reads.
func (a *analyzer) reads(e celast.Expr, seen map[string]bool) map[string]bool {
	out := freeIdents(e)
	for name := range freeIdents(e) {
		if l := a.lets[name]; l != nil && !seen[name] && l.Value != nil && l.Value.Root() != nil {
			seen[name] = true
			for n := range a.reads(l.Value.Root(), seen) {
				out[n] = true
			}
		}
	}
	return out
}
