package rules_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestBadInputCatalogue keeps spec/bad-input.md complete: every diagnostic
// a rule-file fixture expects, and every status message the invalid-patch
// conformance scenario asserts, is listed there.
func TestBadInputCatalogue(t *testing.T) {
	cat, err := os.ReadFile("../spec/bad-input.md")
	if err != nil {
		t.Fatal(err)
	}
	catalogue := string(cat)
	files, _ := filepath.Glob("testdata/*/*.hcl")
	n := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			m := marker.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n++
			want := strings.ToLower(m[1]) + ": " + m[2]
			if !strings.Contains(catalogue, want) && !strings.Contains(catalogue, strings.ToLower(m[1])+": "+strings.Split(m[2], ",")[0]) {
				t.Errorf("%s: %q is not in spec/bad-input.md", f, want)
			}
			rel := strings.TrimPrefix(f, "testdata/")
			if !strings.Contains(catalogue, rel) {
				t.Errorf("fixture %s is not named in spec/bad-input.md", rel)
			}
		}
	}
	scenarioSrc, err := os.ReadFile("../spec/conformance/objectpatch/invalid-patch.scenario.hcl")
	if err != nil {
		t.Fatal(err)
	}
	msgs := regexp.MustCompile(`"status\.message"\s*=\s*"((?:[^"\\]|\\.)*)"`).FindAllStringSubmatch(string(scenarioSrc), -1)
	for _, m := range msgs {
		n++
		msg := strings.ReplaceAll(m[1], `\"`, `"`)
		if !strings.Contains(catalogue, msg) {
			t.Errorf("status message %q is not in spec/bad-input.md", msg)
		}
	}
	if n < 30 {
		t.Fatalf("checked only %d entries", n)
	}
}
