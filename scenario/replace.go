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
	return compile(s, replace)
}
