package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGraph: the graph command prints the same bytes as the fsm golden
// files of the shipped objectpatch policy.
func TestGraph(t *testing.T) {
	for _, c := range []struct {
		args   []string
		golden string
	}{
		{[]string{"graph", "objectpatch"}, "../../fsm/testdata/objectpatch.mermaid.golden"},
		{[]string{"graph", "objectpatch", "--format", "mermaid"}, "../../fsm/testdata/objectpatch.mermaid.golden"},
		{[]string{"graph", "--format", "dot", "objectpatch"}, "../../fsm/testdata/objectpatch.dot.golden"},
	} {
		want, err := os.ReadFile(c.golden)
		if err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run(c.args...)
		if code != 0 || stdout != string(want) || stderr != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout:\n%s", c.args, code, stderr, stdout)
		}
	}
	if code, _, stderr := run("graph", "objectpatch", "--format", "svg"); code != 2 || !strings.Contains(stderr, "mermaid or dot") {
		t.Errorf("bad format: exit %d, stderr %q", code, stderr)
	}
	if code, _, stderr := run("graph", "../../rules/testdata/invalid/unknown_state.hcl"); code != 1 || !strings.Contains(stderr, "error: Unknown state") {
		t.Errorf("invalid file: exit %d, stderr %q", code, stderr)
	}
}

// sim --timeline draws one row per object with a band per state.
func TestSimTimeline(t *testing.T) {
	out := filepath.Join(t.TempDir(), "week.svg")
	var stdout, stderr bytes.Buffer
	if code := Main([]string{"sim", "../../examples/objectpatch/week.scenario.hcl", "--timeline", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	svg, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	for _, want := range []string{"<svg", "ObjectPatch/patches-demo/deployment-patch", ">Applied<", "<title>NeedsUpdate", "<title>Error", "+7d00:00:00"} {
		if !strings.Contains(s, want) {
			t.Errorf("timeline lacks %q", want)
		}
	}
	var again bytes.Buffer
	Main([]string{"sim", "../../examples/objectpatch/week.scenario.hcl", "--timeline", out}, &again, &stderr)
	svg2, _ := os.ReadFile(out)
	if string(svg2) != s {
		t.Error("two runs drew different timelines")
	}
}
