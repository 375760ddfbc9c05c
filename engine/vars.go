package engine

import (
	"strings"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/library"
)

// vars is the CEL activation of one step: self, status, now, params,
// observations, and lets evaluated on first use.
type vars struct {
	m      *fsm.Machine
	self   map[string]any
	status map[string]any
	now    time.Time
	nowVal ref.Val        // now as CEL sees it, made on first use
	params map[string]any // "param.NAME" -> value
	// obs holds the CEL value of each observation, at its index in
	// m.Observes (nil when none is bound: a first wave's reads).
	obs []any
	// lets holds the value of each let of m evaluated so far, at its
	// index in m.Lets (nil: not yet); made at the first.
	lets []ref.Val
	// extra holds route-scoped variables (last, result, value).
	extra map[string]any
}

var _ interpreter.Activation = (*vars)(nil)

func (v *vars) ResolveName(name string) (any, bool) {
	switch name {
	case "self":
		return v.self, true
	case "status":
		return v.status, true
	case "now":
		if v.nowVal == nil {
			v.nowVal = types.Timestamp{Time: v.now}
		}
		return v.nowVal, true
	}
	if x, ok := v.extra[name]; ok {
		return x, true
	}
	if strings.HasPrefix(name, "param.") {
		x, ok := v.params[name]
		return x, ok
	}
	b, ok := v.m.Binding(name)
	switch {
	case !ok:
		return nil, false
	case !b.Let:
		if v.obs == nil {
			return nil, false
		}
		return v.obs[b.Index], true
	}
	if v.lets != nil && v.lets[b.Index] != nil {
		return v.lets[b.Index], true
	}
	l := v.m.Lets[b.Index]
	if l.Value == nil {
		return nil, false
	}
	val, err := l.Value.Eval(v)
	if err != nil {
		val = types.NewErr("let %s: %v", name, err)
	}
	if v.lets == nil {
		v.lets = make([]ref.Val, len(v.m.Lets))
	}
	v.lets[b.Index] = val
	return val, true
}

func (v *vars) Parent() interpreter.Activation { return nil }

// with returns a copy of v with route-scoped variables bound; lets already
// evaluated are shared.
func (v *vars) with(extra map[string]any) *vars {
	c := *v
	c.extra = extra
	return &c
}

// eval evaluates p and converts the result to unstructured Go.
func (v *vars) eval(p *fsm.Program) (any, error) {
	out, err := p.Eval(v)
	if err != nil {
		return nil, err
	}
	if types.IsError(out) {
		return nil, out.(*types.Err)
	}
	return library.ToGo(out), nil
}

// evalBool evaluates a guard; a non-bool result is an error.
func (v *vars) evalBool(p *fsm.Program) (bool, error) {
	out, err := p.Eval(v)
	if err != nil {
		return false, err
	}
	b, ok := out.(types.Bool)
	if !ok {
		return false, errNotBool(out)
	}
	return bool(b), nil
}

// evalTime evaluates a duration (relative to now) or timestamp expression.
func (v *vars) evalTime(p *fsm.Program) (time.Time, error) {
	out, err := p.Eval(v)
	if err != nil {
		return time.Time{}, err
	}
	switch x := out.(type) {
	case types.Duration:
		return v.now.Add(x.Duration), nil
	case types.Timestamp:
		return x.Time, nil
	case types.String:
		if t, err := time.Parse(time.RFC3339, string(x)); err == nil {
			return t, nil
		}
		if d, err := time.ParseDuration(string(x)); err == nil {
			return v.now.Add(d), nil
		}
	}
	return time.Time{}, errNotTime(out)
}
