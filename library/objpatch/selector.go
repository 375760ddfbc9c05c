package objpatch

import (
	"fmt"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/ext"
)

// DefaultCostLimit is the runtime CEL cost limit of one selector evaluation
// (one element) when Options.CostLimit is zero.
const DefaultCostLimit uint64 = 1_000_000

// selectorEnv declares the single variable a selector sees: item, the
// current array element, of dynamic type. The standard library and the
// strings extension are available.
var selectorEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("item", cel.DynType),
		ext.Strings(),
	)
})

// maxCached bounds each table of a Selectors; a full table is cleared
// wholesale.
const maxCached = 512

// Selectors remembers compiled selectors, their programs and the key
// literals recognised in them, for one run (library.Memory keeps one). It
// never affects a result, only speed. A nil *Selectors remembers nothing.
type Selectors struct {
	mu  sync.Mutex
	ast map[string]*cel.Ast
	prg map[prgKey]cel.Program
	lit map[string]keyLit
}

// NewSelectors returns an empty cache of compiled selectors.
func NewSelectors() *Selectors {
	return &Selectors{ast: map[string]*cel.Ast{}, prg: map[prgKey]cel.Program{}, lit: map[string]keyLit{}}
}

// remember stores v under k in m, clearing m first when it is full.
func remember[K comparable, V any](s *Selectors, m map[K]V, k K, v V) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if len(m) >= maxCached {
		clear(m)
	}
	m[k] = v
	s.mu.Unlock()
}

// recall returns what m holds under k.
func recall[K comparable, V any](s *Selectors, m map[K]V, k K) (V, bool) {
	if s == nil {
		var zero V
		return zero, false
	}
	s.mu.Lock()
	v, ok := m[k]
	s.mu.Unlock()
	return v, ok
}

type keyLit struct {
	field, literal string
	ok             bool
}

type prgKey struct {
	expr  string
	limit uint64
}

// compileSelector parses and type-checks a selector. The result type must
// be bool, or dyn (checked again per evaluation). It returns a message
// suitable for the "selector" field on failure.
func (s *Selectors) compileSelector(expr string) (*cel.Ast, string) {
	if a, ok := recall(s, s.asts(), expr); ok {
		return a, ""
	}
	env, err := selectorEnv()
	if err != nil {
		return nil, "CEL environment: " + err.Error()
	}
	a, iss := env.Compile(expr)
	if iss != nil && iss.Err() != nil {
		return nil, "does not compile: " + strings.TrimSpace(iss.Err().Error())
	}
	out := a.OutputType()
	if !out.IsExactType(types.BoolType) && !out.IsExactType(types.DynType) {
		return nil, fmt.Sprintf("must be a bool expression, has type %s", out)
	}
	remember(s, s.asts(), expr, a)
	return a, ""
}

// selectorProgram returns a program for a selector with the given runtime
// cost limit.
func (s *Selectors) selectorProgram(expr string, limit uint64) (cel.Program, string) {
	key := prgKey{expr, limit}
	if p, ok := recall(s, s.prgs(), key); ok {
		return p, ""
	}
	a, msg := s.compileSelector(expr)
	if msg != "" {
		return nil, msg
	}
	env, err := selectorEnv()
	if err != nil {
		return nil, "CEL environment: " + err.Error()
	}
	p, err := env.Program(a, cel.CostLimit(limit))
	if err != nil {
		return nil, "cannot build program: " + err.Error()
	}
	remember(s, s.prgs(), key, p)
	return p, ""
}

// evalSelector evaluates a selector program against one element.
func evalSelector(p cel.Program, item any) (bool, error) {
	v, _, err := p.Eval(map[string]any{"item": item})
	if err != nil {
		return false, err
	}
	b, ok := v.(types.Bool)
	if !ok {
		return false, fmt.Errorf("evaluated to %s, not bool", v.Type().TypeName())
	}
	return bool(b), nil
}

// keyLiteral recognises the selector shapes `item.f == "lit"`,
// `"lit" == item.f`, and the same with item["f"]. It returns the field and
// the literal.
func (s *Selectors) keyLiteral(expr string) (field, literal string, ok bool) {
	k, hit := recall(s, s.lits(), expr)
	if !hit {
		k.field, k.literal, k.ok = parseKeyLiteral(expr)
		remember(s, s.lits(), expr, k)
	}
	return k.field, k.literal, k.ok
}

func (s *Selectors) asts() map[string]*cel.Ast {
	if s == nil {
		return nil
	}
	return s.ast
}

func (s *Selectors) prgs() map[prgKey]cel.Program {
	if s == nil {
		return nil
	}
	return s.prg
}

func (s *Selectors) lits() map[string]keyLit {
	if s == nil {
		return nil
	}
	return s.lit
}

func parseKeyLiteral(expr string) (field, literal string, ok bool) {
	env, err := selectorEnv()
	if err != nil {
		return "", "", false
	}
	a, iss := env.Parse(expr)
	if iss != nil && iss.Err() != nil {
		return "", "", false
	}
	root := a.NativeRep().Expr()
	if root.Kind() != ast.CallKind {
		return "", "", false
	}
	call := root.AsCall()
	if call.FunctionName() != operators.Equals || call.IsMemberFunction() || len(call.Args()) != 2 {
		return "", "", false
	}
	l, r := call.Args()[0], call.Args()[1]
	if f, ok := itemField(l); ok {
		if s, ok := stringLiteral(r); ok {
			return f, s, true
		}
	}
	if f, ok := itemField(r); ok {
		if s, ok := stringLiteral(l); ok {
			return f, s, true
		}
	}
	return "", "", false
}

func itemField(e ast.Expr) (string, bool) {
	switch e.Kind() {
	case ast.SelectKind:
		s := e.AsSelect()
		if s.IsTestOnly() || s.Operand().Kind() != ast.IdentKind || s.Operand().AsIdent() != "item" {
			return "", false
		}
		return s.FieldName(), true
	case ast.CallKind:
		c := e.AsCall()
		if c.FunctionName() != operators.Index || c.IsMemberFunction() || len(c.Args()) != 2 {
			return "", false
		}
		obj, idx := c.Args()[0], c.Args()[1]
		if obj.Kind() != ast.IdentKind || obj.AsIdent() != "item" {
			return "", false
		}
		return stringLiteral(idx)
	}
	return "", false
}

func stringLiteral(e ast.Expr) (string, bool) {
	if e.Kind() != ast.LiteralKind {
		return "", false
	}
	s, ok := e.AsLiteral().(types.String)
	return string(s), ok
}
