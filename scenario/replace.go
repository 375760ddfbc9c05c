package scenario

import (
	"github.com/hashicorp/hcl/v2"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// Replacer returns the rule file to load instead of the one a scenario
// names (ref as the scenario writes it, loaded its loaded form), or nil to
// keep it. It must return a fresh File on every call: param overrides
// change the File they are applied to.
type Replacer func(ref string, loaded *rules.File) (*rules.File, hcl.Diagnostics)

// CompileWith is Compile with some rule files replaced: it runs a scenario
// under another version of a rule file (statecraft diff).
func CompileWith(s *Scenario, replace Replacer) ([]*fsm.Machine, hcl.Diagnostics) {
	if replace == nil {
		return Compile(s)
	}
	var files []*rules.File
	var diags hcl.Diagnostics
	overrides := map[string]map[string]any{}
	for _, r := range s.Rules {
		f, d := rules.LoadRef(ResolveRule(s, r))
		diags = append(diags, d...)
		if f != nil {
			nf, d := replace(r, f)
			diags = append(diags, d...)
			if nf != nil {
				f = nf
			}
			diags = append(diags, OverrideParams(f, s.Params[r], s.DeclRange)...)
			files = append(files, f)
			addOverrides(overrides, f, s.Params[r])
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
