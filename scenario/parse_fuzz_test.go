package scenario

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the scenario parser, as a file of the
// conformance suite (so that object files it names resolve): it must never
// panic, every error must carry a position in the file, and a scenario that
// parses without errors must have what a run needs (rules, a positive
// run_for, expectations at times within or after the start).
func FuzzParse(f *testing.F) {
	// The small scenarios of the suites: every block and attribute of the
	// language appears in some of them, and small seeds keep the fuzzer
	// fast.
	paths, _ := filepath.Glob("../spec/conformance/*/*.scenario.hcl")
	more, _ := filepath.Glob("../examples/*/*.scenario.hcl")
	for _, p := range append(paths, more...) {
		if b, err := os.ReadFile(p); err == nil && len(b) <= 1500 {
			f.Add(b)
		}
	}
	name := filepath.Join("..", "spec", "conformance", "objectpatch", "fuzz.scenario.hcl")
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 8<<10 {
			return
		}
		s, diags := Parse(src, name)
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("diagnostic without position: %s: %s", d.Summary, d.Detail)
			}
			if d.Subject.Filename != name {
				t.Fatalf("diagnostic in %q, not in the file: %s", d.Subject.Filename, d.Summary)
			}
			if strings.TrimSpace(d.Summary) == "" {
				t.Fatalf("diagnostic without summary at %s", d.Subject)
			}
		}
		if diags.HasErrors() || s == nil {
			return
		}
		if len(s.Rules) == 0 {
			t.Fatalf("a scenario without rules parsed")
		}
		for _, e := range s.Expects {
			if e.At < 0 {
				t.Fatalf("expectation at a negative time %v", e.At)
			}
		}
	})
}
