package fsm

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/parser"

	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/rules"
)

// A rule file's functions are CEL macros: a call NAME(a, b) is replaced,
// when the calling expression is parsed, by the function's body with its
// parameters replaced by the arguments. So the expanded expression is
// type-checked, costed and analysed where it is used, as if written there;
// a body may call the functions declared before it.

// functionMacros parses the machine's function bodies and returns a macro
// for each; a body that does not parse is reported and left out.
func (c *compiler) functionMacros(fs []*rules.Function) []cel.Macro {
	var macros []cel.Macro
	for _, f := range fs {
		if f.Value == nil {
			continue
		}
		env, err := cel.NewEnv(append(library.EnvOptions(nil), cel.Macros(macros...))...)
		if err != nil {
			c.errf(f.DeclRange, "CEL environment error", "%v", err)
			continue
		}
		if env.HasFunction(f.Name) || isMacro(f.Name) {
			c.errf(f.DeclRange, "Function shadows a built-in", "%q is already a CEL function; name the function otherwise.", f.Name)
			continue
		}
		parsed, iss := env.Parse(f.Value.Source)
		if iss != nil && iss.Err() != nil {
			for _, e := range iss.Errors() {
				c.errAt(f.Value, e.Location.Column(), "Invalid expression", "%s", e.Message)
			}
			continue
		}
		body := parsed.NativeRep().Expr()
		params := map[string]int{}
		for i, p := range f.Params {
			params[p] = i
		}
		macros = append(macros, cel.GlobalMacro(f.Name, len(f.Params), expander(body, params)))
	}
	return macros
}

// isMacro reports whether name is one of CEL's own macros (has, all, ...).
func isMacro(name string) bool {
	for _, m := range parser.AllMacros {
		if m.Function() == name {
			return true
		}
	}
	return false
}

// expander returns the macro expander of a function: a copy of body in
// which every free identifier naming a parameter is the call's argument.
func expander(body celast.Expr, params map[string]int) parser.MacroExpander {
	return func(eh parser.ExprHelper, _ celast.Expr, args []celast.Expr) (celast.Expr, *common.Error) {
		out := eh.Copy(body)
		substitute(eh, out, params, args, nil)
		return out, nil
	}
}

// substitute replaces, in place, the parameters in e by copies of args;
// bound holds the comprehension variables in scope, which shadow them.
func substitute(eh parser.ExprHelper, e celast.Expr, params map[string]int, args []celast.Expr, bound map[string]bool) {
	switch e.Kind() {
	case celast.IdentKind:
		if i, ok := params[e.AsIdent()]; ok && !bound[e.AsIdent()] {
			e.SetKindCase(eh.Copy(args[i]))
		}
	case celast.SelectKind:
		substitute(eh, e.AsSelect().Operand(), params, args, bound)
	case celast.CallKind:
		call := e.AsCall()
		if call.IsMemberFunction() {
			substitute(eh, call.Target(), params, args, bound)
		}
		for _, a := range call.Args() {
			substitute(eh, a, params, args, bound)
		}
	case celast.ListKind:
		for _, x := range e.AsList().Elements() {
			substitute(eh, x, params, args, bound)
		}
	case celast.MapKind:
		for _, x := range e.AsMap().Entries() {
			substitute(eh, x.AsMapEntry().Key(), params, args, bound)
			substitute(eh, x.AsMapEntry().Value(), params, args, bound)
		}
	case celast.StructKind:
		for _, x := range e.AsStruct().Fields() {
			substitute(eh, x.AsStructField().Value(), params, args, bound)
		}
	case celast.ComprehensionKind:
		comp := e.AsComprehension()
		substitute(eh, comp.IterRange(), params, args, bound)
		substitute(eh, comp.AccuInit(), params, args, bound)
		inner := map[string]bool{comp.IterVar(): true, comp.AccuVar(): true}
		if comp.HasIterVar2() {
			inner[comp.IterVar2()] = true
		}
		for k := range bound {
			inner[k] = true
		}
		substitute(eh, comp.LoopCondition(), params, args, inner)
		substitute(eh, comp.LoopStep(), params, args, inner)
		substitute(eh, comp.Result(), params, args, inner)
	}
}

// errAt reports an error at a column (1-based, of the CEL source) of e.
func (c *compiler) errAt(e *rules.Expr, column int, summary, format string, args ...any) {
	rng := e.Range
	if column > 0 {
		rng = e.RangeAt(column-1, 1)
	}
	c.errf(rng, summary, "%s", fmt.Sprintf(format, args...))
}
