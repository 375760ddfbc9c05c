package scenario

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/rules"
)

// Compile loads and compiles the rule files a scenario names: shipped
// policies by name, or paths relative to the scenario file.
func Compile(s *Scenario) ([]*fsm.Machine, hcl.Diagnostics) {
	return compile(s, nil)
}

// compile is Compile with each rule file passed through replace, when
// not nil (CompileWith).
func compile(s *Scenario, replace Replacer) ([]*fsm.Machine, hcl.Diagnostics) {
	var files []*rules.File
	var diags hcl.Diagnostics
	overrides := ParamOverrides{}
	for _, r := range s.Rules {
		f, d := rules.LoadRef(ResolveRule(s, r))
		diags = append(diags, d...)
		if f == nil {
			continue
		}
		if replace != nil {
			nf, d := replace(r, f)
			diags = append(diags, d...)
			if nf != nil {
				f = nf
			}
		}
		diags = append(diags, OverrideParams(f, s.Params[r], s.DeclRange)...)
		files = append(files, f)
		for _, m := range f.Machines {
			overrides.Add(m.Name, s.Params[r])
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	ms, d := fsm.CompileIn(NewMemory(), files...)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return ms, diags
	}
	return ms, append(diags, CheckParams(ms, overrides, s.DeclRange)...)
}

// ParamOverrides are a scenario's param overrides by machine name, then
// param name: what its rule blocks tune, as CheckParams checks them.
type ParamOverrides map[string]map[string]any

// Add records params (a rule block's) as overrides of machine's params.
func (o ParamOverrides) Add(machine string, params map[string]any) {
	if len(params) == 0 {
		return
	}
	if o[machine] == nil {
		o[machine] = map[string]any{}
	}
	for k, v := range params {
		o[machine][k] = v
	}
}

// CheckParams refuses a scenario's param overrides (by machine name, then
// param) that the param's valid check refuses, as statecraft's --param
// does: a tuned policy whose tuning is out of range is an error at load
// time, not a status every object reports. Only checks that read nothing
// but the value are decided here; the others are the engine's, at every
// step.
func CheckParams(ms []*fsm.Machine, overrides ParamOverrides, rng hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, m := range ms {
		over := overrides[m.Name]
		for _, p := range m.Params {
			raw, ok := over[p.Name]
			if !ok || p.Valid == nil || !p.ValidReadsValueOnly {
				continue
			}
			val, err := fsm.ParamValue(p.Type, p.Default)
			if err != nil {
				continue // the compiler reported it
			}
			res, err := p.Valid.Eval(map[string]any{"value": val})
			if err != nil || res.Value() != true {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid param",
					Detail:  fmt.Sprintf("The value %v of param %q of machine %s is not valid (%s).", displayParam(raw), p.Name, m.Name, p.Valid.Expr.Source),
					Subject: rng.Ptr()})
			}
		}
	}
	return diags
}

func displayParam(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// ExpectedError checks a scenario with expect_error against the
// diagnostics of loading and compiling its rule files: "" when they hold
// an error whose summary or detail contains the expected text, else what
// went wrong (no error at all, or only others).
func ExpectedError(s *Scenario, diags hcl.Diagnostics) string {
	var others []string
	for _, d := range diags {
		if d.Severity != hcl.DiagError {
			continue
		}
		if strings.Contains(d.Summary, s.ExpectError) || strings.Contains(d.Detail, s.ExpectError) {
			return ""
		}
		others = append(others, rules.DiagnosticLine(d))
	}
	if len(others) == 0 {
		return fmt.Sprintf("expect_error %q: the rule files load and compile without an error", s.ExpectError)
	}
	return fmt.Sprintf("expect_error %q: no such error; the errors are:\n%s", s.ExpectError, strings.Join(others, "\n"))
}

// ResolveRule returns what an entry r of a scenario's rules names, for
// rules.LoadRef: the path relative to the scenario file when that file
// exists, else r as written (a shipped policy's name, or a path).
func ResolveRule(s *Scenario, r string) string {
	if p := filepath.Join(s.Dir, r); fileExists(p) {
		return p
	}
	return r
}

// OverrideParams replaces param defaults of every machine in f (a
// scenario's rule block); a param no machine declares is an error.
func OverrideParams(f *rules.File, params map[string]any, rng hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range library.SortedKeys(params) {
		found := false
		for _, m := range f.Machines {
			for _, p := range m.Params {
				if p.Name == name {
					p.Default, found = params[name], true
				}
			}
		}
		if !found {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown param",
				Detail: fmt.Sprintf("No machine of %s declares a param %q.", f.Filename, name), Subject: rng.Ptr()})
		}
	}
	return diags
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// NewMemory returns the memory a run's machines share, with a registry of
// frozen values that the run's simulated cluster freezes its shared reads
// in (Run finds it through the machines).
func NewMemory() *fsm.Memory { return fsm.NewMemory(jsonvalue.NewRegistry()) }

// frozenOf returns the registry of frozen values the machines share, or
// nil when they share none.
func frozenOf(ms []*fsm.Machine) *jsonvalue.Registry {
	if len(ms) == 0 {
		return nil
	}
	reg := ms[0].Memory.Frozen()
	for _, m := range ms[1:] {
		if m.Memory.Frozen() != reg {
			return nil
		}
	}
	return reg
}
