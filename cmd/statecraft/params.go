package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/scenario"
)

// paramOverride is one --param MACHINE.NAME=VALUE.
type paramOverride struct {
	flag, machine, name, value string
}

// parseParams parses --param flags: MACHINE.NAME=VALUE, the value taken
// verbatim (commas included).
func parseParams(flags []string) ([]paramOverride, error) {
	var out []paramOverride
	for _, f := range flags {
		key, value, ok := strings.Cut(f, "=")
		machine, name, dotted := strings.Cut(key, ".")
		if !ok || !dotted || machine == "" || name == "" {
			return nil, fmt.Errorf("--param %q: want MACHINE.NAME=VALUE, e.g. autopatch.auto_patch=true", f)
		}
		out = append(out, paramOverride{flag: f, machine: machine, name: name, value: value})
	}
	return out, nil
}

// loadMachinesWithParams is loadMachines with each param override set as
// the param's default before compiling: the value every object sees unless
// its own override field says otherwise. A machine or param that no loaded
// file declares, a value not of the param's type, and a value its valid
// check refuses are errors.
func loadMachinesWithParams(refs []string, params []paramOverride) ([]*fsm.Machine, hcl.Diagnostics, error) {
	if len(params) == 0 {
		ms, _, diags := loadMachines(refs)
		return ms, diags, nil
	}
	var files []*rules.File
	var diags hcl.Diagnostics
	for _, r := range refs {
		f, d := rules.LoadRef(r)
		diags = append(diags, d...)
		if f != nil {
			files = append(files, f)
		}
	}
	if diags.HasErrors() {
		return nil, diags, nil
	}
	for _, o := range params {
		var param *rules.Param
		machineFound := false
		for _, f := range files {
			for _, m := range f.Machines {
				if m.Name != o.machine {
					continue
				}
				machineFound = true
				for _, p := range m.Params {
					if p.Name == o.name {
						param = p
					}
				}
			}
		}
		switch {
		case !machineFound:
			return nil, diags, fmt.Errorf("--param %s: no machine %q is loaded", o.flag, o.machine)
		case param == nil:
			return nil, diags, fmt.Errorf("--param %s: machine %s has no param %q", o.flag, o.machine, o.name)
		}
		var v any = o.value
		if param.Type == "bool" {
			b, err := strconv.ParseBool(o.value)
			if err != nil {
				return nil, diags, fmt.Errorf("--param %s: want true or false", o.flag)
			}
			v = b
		}
		if _, err := fsm.ParamValue(param.Type, v); err != nil {
			return nil, diags, fmt.Errorf("--param %s: %v", o.flag, err)
		}
		param.Default = v
	}
	ms, d := fsm.CompileIn(scenario.NewMemory(), files...)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags, nil
	}
	// The valid checks that read only the value are decided now, not at
	// every object's step.
	for _, o := range params {
		for _, m := range ms {
			if m.Name != o.machine {
				continue
			}
			for _, p := range m.Params {
				if p.Name != o.name || p.Valid == nil || !p.ValidReadsValueOnly {
					continue
				}
				val, _ := fsm.ParamValue(p.Type, p.Default)
				ok, err := p.Valid.Eval(map[string]any{"value": val})
				if err != nil || ok.Value() != true {
					return nil, diags, fmt.Errorf("--param %s: not valid (%s)", o.flag, p.Valid.Expr.Source)
				}
			}
		}
	}
	return ms, diags, nil
}
