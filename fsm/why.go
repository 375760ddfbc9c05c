package fsm

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types/ref"
)

// tracking is a program variant that records the value of every
// sub-expression (cel.OptTrackState) and evaluates both sides of && and ||
// (cel.OptExhaustiveEval). It is compiled on first use, for explanations
// and coverage only: Eval never uses it.
type tracking struct {
	once sync.Once
	prg  cel.Program
	err  error
}

// Tracked is the result of a state-tracking evaluation.
type Tracked struct {
	Value ref.Val
	state interface {
		Value(int64) (ref.Val, bool)
	}
}

// ValueOf returns the value the sub-expression with id evaluated to.
func (t *Tracked) ValueOf(id int64) (ref.Val, bool) {
	if t == nil || t.state == nil {
		return nil, false
	}
	return t.state.Value(id)
}

// EvalTracked evaluates p recording every sub-expression's value. It costs
// more than Eval and is meant for explaining a decision, not for making it.
func (p *Program) EvalTracked(vars any) (*Tracked, error) {
	p.tracked.once.Do(func() {
		if p.env == nil || p.ast == nil {
			p.tracked.err = fmt.Errorf("expression %q has no checked AST", p.Expr.Source)
			return
		}
		p.tracked.prg, p.tracked.err = p.env.Program(p.ast,
			cel.EvalOptions(cel.OptTrackState, cel.OptExhaustiveEval),
			cel.CostLimit(DefaultCostLimit), cel.InterruptCheckFrequency(100))
	})
	if p.tracked.err != nil {
		return nil, p.tracked.err
	}
	v, det, err := p.tracked.prg.Eval(vars)
	t := &Tracked{Value: v}
	if det != nil {
		t.state = det.State()
	}
	return t, err
}

// Root returns the checked AST's root expression, or nil.
func (p *Program) Root() celast.Expr {
	if p == nil || p.ast == nil {
		return nil
	}
	return p.ast.NativeRep().Expr()
}

// Text prints a sub-expression of p as CEL.
func (p *Program) Text(e celast.Expr) string {
	s, err := cel.ExprToString(e, p.ast.NativeRep().SourceInfo())
	if err != nil {
		return fmt.Sprintf("#%d", e.ID())
	}
	return s
}

// Clause is one top-level operand of a guard: the guard split at its
// top-level && (or, when the top level is ||, at its ||).
type Clause struct {
	Expr celast.Expr
	Text string
	// Op is "&&" or "||": how the clause joins the others ("" when the
	// guard is a single clause).
	Op string
}

// Clauses splits p at its top-level && or || operator: a && b && c gives
// a, b, c; a || (b && c) gives a and b && c.
func (p *Program) Clauses() []Clause {
	root := p.Root()
	if root == nil {
		return nil
	}
	op := ""
	if root.Kind() == celast.CallKind {
		switch root.AsCall().FunctionName() {
		case operators.LogicalAnd:
			op = "&&"
		case operators.LogicalOr:
			op = "||"
		}
	}
	if op == "" {
		return []Clause{{Expr: root, Text: p.Text(root)}}
	}
	fn := operators.LogicalAnd
	if op == "||" {
		fn = operators.LogicalOr
	}
	var out []Clause
	var split func(e celast.Expr)
	split = func(e celast.Expr) {
		if e.Kind() == celast.CallKind && e.AsCall().FunctionName() == fn {
			for _, a := range e.AsCall().Args() {
				split(a)
			}
			return
		}
		out = append(out, Clause{Expr: e, Text: p.Text(e), Op: op})
	}
	split(root)
	return out
}

// Let returns the compiled let named name, or nil.
func (m *Machine) Let(name string) *Let {
	for _, l := range m.Lets {
		if l.Name == name {
			return l
		}
	}
	return nil
}
