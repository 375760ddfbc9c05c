package rules_test

import (
	"os"
	"regexp"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// TestLanguageExamples loads and compiles every hcl example of
// spec/language.md that declares a machine.
func TestLanguageExamples(t *testing.T) {
	src, err := os.ReadFile("../spec/language.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```hcl\n(.*?)```").FindAllStringSubmatch(string(src), -1)
	n := 0
	for _, b := range blocks {
		if !regexp.MustCompile(`(?m)^machine "`).MatchString(b[1]) {
			continue
		}
		n++
		f, diags := rules.Parse([]byte(b[1]), "language.md")
		if diags.HasErrors() {
			t.Fatalf("example %d: %v", n, diags)
		}
		if _, diags := fsm.Compile(f); diags.HasErrors() {
			t.Fatalf("example %d: %v", n, diags)
		}
	}
	if n == 0 {
		t.Fatal("spec/language.md has no machine example")
	}
}
