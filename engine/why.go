package engine

import (
	"fmt"
	"sort"
	"strings"
	"time"

	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/library"
)

// Why explains one candidate transition of a step: its guard's value, the
// value of each top-level clause, the values the clauses read, and, for a
// false clause that compares now with a time, when it could next pass.
type Why struct {
	Transition string
	Fired      bool
	Guard      string // the guard's source ("" when it has none)
	Value      bool
	Err        error
	Clauses    []ClauseWhy
}

// ClauseWhy is the value of one top-level clause of a guard.
type ClauseWhy struct {
	Text  string
	Op    string // "&&", "||" or ""
	Value string // the clause's value as CEL prints it ("error: ..." on error)
	Bool  *bool  // set when the value is a bool
	// Reads lists the sub-expressions the clause reads (identifiers,
	// field selections) with their values, as "expr = value".
	Reads []string
	// Opens is when a false time comparison (now >= T, now - T >= D, ...)
	// in the clause, or in a let it reads, would next hold; zero when none.
	Opens time.Time
	// OpensWhat names the comparison Opens is about.
	OpensWhat string
}

// Explain evaluates, with CEL state tracking, the guards of the candidates
// Step tried for d in snap (those that did not fire and the one that did).
// It costs several times a Step and is meant for `sim --why`, Events and
// coverage, never for deciding: d is not changed.
func Explain(m *fsm.Machine, snap Snapshot, d *Decision) []Why {
	if d == nil || d.Problem != nil {
		return nil
	}
	v, _ := newVars(m, snap.Object, snap.Memory, snap.Observations, snap.Now)
	var out []Why
	for _, g := range d.Guards {
		var t *fsm.Transition
		for _, c := range m.Candidates(d.From) {
			if c.Name == g.Transition {
				t = c
				break
			}
		}
		if t == nil {
			continue
		}
		w := Why{Transition: t.Name, Fired: d.Transition == t, Value: g.Value, Err: g.Err}
		if t.When != nil {
			w.Guard = t.When.Expr.Source
			w.Clauses = explainClauses(m, v, t.When, 0)
		}
		out = append(out, w)
	}
	return out
}

// ClauseValues evaluates p in snap with state tracking and returns each
// top-level clause's bool value (nil when it is not a bool or failed). For
// coverage.
func ClauseValues(m *fsm.Machine, snap Snapshot, p *fsm.Program) []*bool {
	if p == nil {
		return nil
	}
	v, _ := newVars(m, snap.Object, snap.Memory, snap.Observations, snap.Now)
	var out []*bool
	for _, c := range explainClauses(m, v, p, 2) {
		out = append(out, c.Bool)
	}
	return out
}

// explainClauses: depth 2 skips reads and time windows (coverage only).
func explainClauses(m *fsm.Machine, v *vars, p *fsm.Program, depth int) []ClauseWhy {
	tr, err := p.EvalTracked(v)
	clauses := p.Clauses()
	out := make([]ClauseWhy, 0, len(clauses))
	for _, c := range clauses {
		cw := ClauseWhy{Text: c.Text, Op: c.Op}
		val, ok := tr.ValueOf(c.Expr.ID())
		switch {
		case !ok && err != nil:
			cw.Value = "error: " + err.Error()
		case !ok:
			cw.Value = "not evaluated"
		default:
			cw.Value = show(val)
			if b, isBool := val.(types.Bool); isBool {
				bb := bool(b)
				cw.Bool = &bb
			}
		}
		if depth < 2 {
			cw.Reads = reads(p, tr, c.Expr)
			if cw.Bool != nil && !*cw.Bool {
				cw.Opens, cw.OpensWhat = opens(m, v, p, tr, c.Expr, depth)
			}
		}
		out = append(out, cw)
	}
	return out
}

// reads lists identifiers and field selections of e with their values,
// outermost first, without repeats.
func reads(p *fsm.Program, tr *fsm.Tracked, e celast.Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(e celast.Expr)
	walk = func(e celast.Expr) {
		switch e.Kind() {
		case celast.IdentKind, celast.SelectKind:
			txt := p.Text(e)
			if v, ok := tr.ValueOf(e.ID()); ok && !seen[txt] && txt != "now" && txt != "self" && txt != "status" {
				seen[txt] = true
				out = append(out, txt+" = "+show(v))
			}
			if e.Kind() == celast.SelectKind && len(out) < 8 {
				// The outermost selection says enough: self.spec.x, not self.spec.
				return
			}
		case celast.CallKind:
			c := e.AsCall()
			if c.FunctionName() == operators.OptSelect && len(c.Args()) == 2 {
				txt := p.Text(e)
				if v, ok := tr.ValueOf(e.ID()); ok && !seen[txt] {
					seen[txt] = true
					out = append(out, txt+" = "+show(v))
				}
				return
			}
			if c.IsMemberFunction() {
				walk(c.Target())
			}
			for _, a := range c.Args() {
				walk(a)
			}
		case celast.ListKind:
			for _, x := range e.AsList().Elements() {
				walk(x)
			}
		}
	}
	walk(e)
	if len(out) > 8 {
		out = out[:8]
	}
	return out
}

// opens finds, in a false clause, a comparison of now with a time (now >= T,
// now > T, T <= now, now - T >= D, now - T > D) and returns when it would
// hold. A clause that is a let is looked into once.
func opens(m *fsm.Machine, v *vars, p *fsm.Program, tr *fsm.Tracked, e celast.Expr, depth int) (time.Time, string) {
	var at time.Time
	what := ""
	var walk func(e celast.Expr)
	walk = func(e celast.Expr) {
		if !at.IsZero() {
			return
		}
		switch e.Kind() {
		case celast.IdentKind:
			if l := m.Let(e.AsIdent()); l != nil && l.Value != nil && depth == 0 {
				if val, _ := tr.ValueOf(e.ID()); val != types.True {
					ltr, _ := l.Value.EvalTracked(v)
					if t, w := opens(m, v, l.Value, ltr, l.Value.Root(), depth+1); !t.IsZero() {
						at, what = t, w
					}
				}
			}
		case celast.CallKind:
			c := e.AsCall()
			args := c.Args()
			if len(args) == 2 {
				if t, ok := timeGate(p, tr, v.now, c.FunctionName(), args[0], args[1]); ok {
					if val, _ := tr.ValueOf(e.ID()); val != types.True {
						at, what = t, p.Text(e)
					}
					return
				}
			}
			for _, a := range args {
				walk(a)
			}
		}
	}
	walk(e)
	return at, what
}

func isNow(e celast.Expr) bool { return e.Kind() == celast.IdentKind && e.AsIdent() == "now" }

// timeGate recognises now OP T and now - T OP D and returns the earliest
// time they hold (only for the operators that become true as time passes).
func timeGate(p *fsm.Program, tr *fsm.Tracked, now time.Time, fn string, l, r celast.Expr) (time.Time, bool) {
	// Normalise to "left grows with time": T <= now is now >= T.
	switch fn {
	case operators.LessEquals, operators.Less:
		if isNow(r) || isNowMinus(r) {
			l, r = r, l
			if fn == operators.LessEquals {
				fn = operators.GreaterEquals
			} else {
				fn = operators.Greater
			}
		}
	}
	if fn != operators.GreaterEquals && fn != operators.Greater {
		return time.Time{}, false
	}
	rv, ok := tr.ValueOf(r.ID())
	if !ok {
		return time.Time{}, false
	}
	eps := time.Duration(0)
	if fn == operators.Greater {
		eps = time.Nanosecond
	}
	switch {
	case isNow(l):
		if ts, ok := rv.(types.Timestamp); ok {
			return ts.Time.Add(eps), true
		}
	case isNowMinus(l):
		sub := l.AsCall().Args()[1]
		sv, ok := tr.ValueOf(sub.ID())
		d, okd := rv.(types.Duration)
		ts, okt := sv.(types.Timestamp)
		if ok && okd && okt {
			return ts.Time.Add(d.Duration).Add(eps), true
		}
		// now - list[0]: the index's value.
	}
	_ = now
	return time.Time{}, false
}

func isNowMinus(e celast.Expr) bool {
	return e.Kind() == celast.CallKind && e.AsCall().FunctionName() == operators.Subtract &&
		len(e.AsCall().Args()) == 2 && isNow(e.AsCall().Args()[0])
}

// show renders a CEL value briefly.
func show(v ref.Val) string {
	if v == nil {
		return "absent"
	}
	if types.IsError(v) {
		return "error: " + fmt.Sprint(v)
	}
	if types.IsUnknown(v) {
		return "unknown"
	}
	if o, ok := v.(*types.Optional); ok {
		if !o.HasValue() {
			return "none"
		}
		return show(o.GetValue())
	}
	switch x := v.(type) {
	case types.String:
		return clip(fmt.Sprintf("%q", string(x)))
	case types.Timestamp:
		return x.Time.UTC().Format(time.RFC3339)
	case types.Duration:
		return x.Duration.String()
	case types.Bool, types.Int, types.Uint, types.Double:
		return fmt.Sprint(x)
	case types.Null:
		return "null"
	}
	g := library.ToGo(v)
	switch x := g.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return clip(fmt.Sprintf("map{%s}", strings.Join(keys, ", ")))
	case []any:
		return fmt.Sprintf("list of %d", len(x))
	}
	return clip(fmt.Sprint(g))
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}
