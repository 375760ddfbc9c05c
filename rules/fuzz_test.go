package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/rules/policies"
)

// FuzzLoadCompile feeds arbitrary bytes to the loader and, when they load,
// to the compiler: neither may panic, and every error must carry a position.
func FuzzLoadCompile(f *testing.F) {
	for _, n := range policies.Names() {
		src, _, _ := policies.Source(n)
		f.Add(src)
	}
	paths, _ := filepath.Glob("testdata/*/*.hcl")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		file, diags := rules.Parse(src, "fuzz.hcl")
		for _, d := range diags {
			if d.Subject == nil && d.Summary != "Cannot read rule file" {
				t.Fatalf("diagnostic without position: %s: %s", d.Summary, d.Detail)
			}
		}
		if file == nil || diags.HasErrors() {
			return
		}
		_, diags = fsm.Compile(file)
		for _, d := range diags {
			if d.Subject == nil {
				t.Fatalf("compile diagnostic without position: %s: %s", d.Summary, d.Detail)
			}
		}
	})
}
