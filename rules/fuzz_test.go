package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/rules/policies"
)

// FuzzLoadCompile feeds arbitrary bytes to the loader and, when they load,
// to the compiler: neither may panic, and every error must carry a position.
//
// The seeds are small: the fixtures of testdata (fuzzseed/ holds two
// machines with most of the language) and the first blocks of each shipped
// policy, cut to a few kilobytes. A whole shipped policy takes a quarter of
// a second to compile, which left the fuzzer at a few executions a second;
// these take milliseconds. Inputs above 8 KB are skipped for the same
// reason (TestFixtures and the policies' own tests load the big files).
func FuzzLoadCompile(f *testing.F) {
	for _, n := range policies.Names() {
		src, _, _ := policies.Source(n)
		f.Add(policyHead(src, 1024))
	}
	paths, _ := filepath.Glob("testdata/*/*.hcl")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4<<10 {
			return
		}
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

// policyHead is the start of a shipped policy up to about n bytes, cut after
// the last top-level block of its machine that ends within them, with the
// machine closed: a small machine the loader reads whole (the compiler may
// still refuse it; the fuzzer only wants positions and no panics).
func policyHead(src []byte, n int) []byte {
	lines := strings.SplitAfter(string(src), "\n")
	var out strings.Builder
	in := false
	for _, l := range lines {
		if out.Len()+len(l) > n && in && l == "  }\n" {
			out.WriteString(l)
			break
		}
		if strings.HasPrefix(strings.TrimSpace(l), "schema ") {
			continue // a CRD-typed self costs a second to compile
		}
		out.WriteString(l)
		if strings.HasPrefix(l, "machine ") {
			in = true
		}
	}
	s := out.String()
	if !strings.HasSuffix(s, "}\n}\n") {
		s += "}\n"
	}
	return []byte(s)
}
