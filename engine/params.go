package engine

import (
	"encoding/binary"
	"fmt"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/jsonvalue"
)

// params resolves m's params for the object self: defaults, the overrides
// self carries, and each param's check. A param whose override is invalid
// yields a Problem. The result is shared: callers must not change it.
//
// Every step of every object resolves them, while the overrides rarely
// change: when every check reads only the param's value, results are
// remembered by machine and override values.
func params(m *fsm.Machine, self map[string]any, v *vars) (map[string]any, *Problem) {
	key, ok := paramsKey(m, self)
	if !ok {
		return resolveParams(m, self, v)
	}
	r := m.Memo(key, func() any {
		var r resolved
		r.params, r.problem = resolveParams(m, self, v)
		return r
	}).(resolved)
	return r.params, r.problem
}

type resolved struct {
	params  map[string]any
	problem *Problem
}

// paramsKey keys m's params for self by the fingerprints of its override
// values, in param order; false when a check reads more than the param's
// value.
func paramsKey(m *fsm.Machine, self map[string]any) (string, bool) {
	b := append(make([]byte, 0, 8+17*len(m.Params)), "params:"...)
	for _, p := range m.Params {
		if p.Valid != nil && !p.ValidReadsValueOnly {
			return "", false
		}
		if p.Override == "" {
			continue
		}
		raw, ok := lookup(self, p.Override)
		if !ok || raw == nil {
			b = append(b, 0)
			continue
		}
		f := jsonvalue.Hash(raw)
		b = append(b, 1)
		b = binary.LittleEndian.AppendUint64(b, f[0])
		b = binary.LittleEndian.AppendUint64(b, f[1])
	}
	return string(b), true
}

// resolveParams fills v.params in declaration order: a check sees the
// params declared before it.
func resolveParams(m *fsm.Machine, self map[string]any, v *vars) (map[string]any, *Problem) {
	out := make(map[string]any, len(m.Params))
	v.params = out
	var problem *Problem
	for _, p := range m.Params {
		val, _ := fsm.ParamValue(p.Type, p.Default)
		if p.Override != "" {
			if raw, ok := lookup(self, p.Override); ok && raw != nil {
				ov, err := fsm.ParamValue(p.Type, raw)
				if err != nil {
					if problem == nil {
						problem = &Problem{Reason: p.Reason, Message: fmt.Sprintf("%s: %v", p.Override, err)}
					}
				} else {
					val = ov
				}
			}
		}
		if p.Valid != nil {
			ok, err := v.with(map[string]any{"value": val}).evalBool(p.Valid)
			if (err != nil || !ok) && problem == nil {
				what := p.Override
				if what == "" {
					what = "param " + p.Name
				}
				problem = &Problem{Reason: p.Reason, Message: fmt.Sprintf("%s: %v is not valid (%s)", what, display(val), p.Valid.Expr.Source)}
			}
		}
		out["param."+p.Name] = val
	}
	return out, problem
}
