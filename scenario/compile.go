package scenario

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/hashicorp/hcl/v2"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/rules"
)

// Compile loads and compiles the rule files a scenario names: shipped
// policies by name, or paths relative to the scenario file.
func Compile(s *Scenario) ([]*fsm.Machine, hcl.Diagnostics) {
	var files []*rules.File
	var diags hcl.Diagnostics
	for _, r := range s.Rules {
		f, d := rules.LoadRef(ResolveRule(s, r))
		diags = append(diags, d...)
		if f != nil {
			diags = append(diags, OverrideParams(f, s.Params[r], s.DeclRange)...)
			files = append(files, f)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	ms, d := fsm.CompileIn(NewMemory(), files...)
	return ms, append(diags, d...)
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
