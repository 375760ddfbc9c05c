package engine

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
)

// params resolves m's params for the object self: defaults, the overrides
// self carries, and each param's check. A param whose override is invalid
// yields a Problem. The result is shared: callers must not change it.
//
// Every step of every object resolves them, while the overrides rarely
// change: when every check reads only the param's value, results are
// remembered by machine and override values.
func params(m *fsm.Machine, self map[string]any, v *vars) (map[string]any, *Problem) {
	// When every override lies in the spec, a frozen spec (the one every
	// micro-step of a reconcile shares) keeps the result itself.
	if pm := paramsMemoOf(m); pm.underSpec {
		frozen := m.Memory.Frozen()
		if spec, ok := self["spec"].(map[string]any); ok && frozen.Frozen(spec) {
			r := jsonvalue.Remember(frozen, spec, pm.name, func() resolved {
				var r resolved
				r.params, r.problem = paramsByKey(m, self, v)
				return r
			})
			return r.params, r.problem
		}
	}
	return paramsByKey(m, self, v)
}

// paramsMemo says how m's params may be remembered on an object's spec.
type paramsMemo struct {
	name      string // the jsonvalue.Remember name, one per compiled machine
	underSpec bool   // every override path starts with "spec."; no check reads more than the value
}

func paramsMemoOf(m *fsm.Machine) paramsMemo {
	return m.Memory.Memo(m, "engine.paramsMemo", func() any {
		// Named by the machine itself: machines of one name compiled with
		// other defaults (--param, a scenario's params) must not share.
		pm := paramsMemo{name: fmt.Sprintf("engine.params/%s/%p", m.Name, m), underSpec: true}
		for _, p := range m.Params {
			if p.Valid != nil && !p.ValidReadsValueOnly || p.Override != "" && !strings.HasPrefix(p.Override, "spec.") {
				pm.underSpec = false
			}
		}
		return pm
	}).(paramsMemo)
}

func paramsByKey(m *fsm.Machine, self map[string]any, v *vars) (map[string]any, *Problem) {
	key, ok := paramsKey(m, self)
	if !ok {
		return resolveParams(m, self, v)
	}
	r := m.Memory.Memo(m, key, func() any {
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
		raw, ok := jsonvalue.Lookup(self, p.OverridePath)
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
			if raw, ok := jsonvalue.Lookup(self, p.OverridePath); ok && raw != nil {
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
