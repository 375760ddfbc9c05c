package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runCombined(t *testing.T, args ...string) (string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return out.String() + errb.String(), code
}

// The test runs in cmd/statecraft; the suite paths are relative to the root.
func chdirRoot(t *testing.T) {
	t.Helper()
	wd, _ := os.Getwd()
	t.Chdir(filepath.Join(wd, "..", ".."))
}

func TestDiffShowsBrokenCopy(t *testing.T) {
	chdirRoot(t)
	out, code := runCombined(t, "diff", "rules/policies/objectpatch.hcl", "examples/verify/objectpatch-unbounded-repair.hcl", "--scenarios", "spec/conformance/objectpatch", "--format", "markdown")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (behaviour changed):\n%s", code, out)
	}
	for _, want := range []string{
		"changed `transition \"drift found\"`",
		"`when: \"drifted && drift_repair && !drift_exhausted\" → \"drifted && drift_repair\"`",
		"drift-repair.scenario.hcl",
		"| OLD | NEW |",
		"by \"drift retries exhausted\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	out, code = runCombined(t, "diff", "objectpatch", "rules/policies/objectpatch.hcl", "--scenarios", "examples/objectpatch")
	if code != 0 || !strings.Contains(out, "structure: no changes") || !strings.Contains(out, "behaviour: 0 of ") {
		t.Fatalf("identical versions: exit %d\n%s", code, out)
	}
}

func TestCoverShippedObjectPatchSuite(t *testing.T) {
	chdirRoot(t)
	out, _ := runCombined(t, "test", "--cover", "spec/conformance/objectpatch", "examples/objectpatch")
	for _, want := range []string{"coverage of machine objectpatch", "states ", "transitions ", "outcome routes", "guard clauses"} {
		if !strings.Contains(out, want) {
			t.Fatalf("missing %q:\n%s", want, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		if len(f) >= 3 && (f[0] == "states" || f[0] == "transitions") && f[len(f)-1] != "100.0%" {
			t.Errorf("not full coverage: %s\n%s", l, out)
		}
	}
	out, code := runCombined(t, "test", "--cover", "--cover-min", "100", "examples/objectpatch")
	if code != 1 || !strings.Contains(out, "is below --cover-min") {
		t.Fatalf("--cover-min 100 on a partial suite: exit %d\n%s", code, out)
	}
}

func TestSimWhy(t *testing.T) {
	chdirRoot(t)
	out, code := runCombined(t, "sim", "--why", "examples/objectpatch/drift-streak.scenario.hcl")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, want := range []string{
		`why "drift found": drifted && drift_repair && !drift_exhausted`,
		"✓ drift_repair = true",
		`why not "wait for target": target.outcome == "not_found" is false  (target.outcome = "ok")`,
		"rests in Applied: no candidate fired",
		"now - calm_since[0] >= param.stabilization_window holds from +0d00:15:00 (in 15m)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}

func TestVerifyCommand(t *testing.T) {
	chdirRoot(t)
	dir := t.TempDir()
	objs := "examples/objectpatch/namespace.yaml,examples/objectpatch/deployment.yaml,examples/objectpatch/deployment-patch.yaml"
	out, code := runCombined(t, "verify", "examples/verify/objectpatch-unbounded-repair.hcl", "--object", objs, "--depth", "12", "--fault-depth", "-1", "--write-scenario", dir)
	if code != 1 || !strings.Contains(out, "LIVELOCK: repair fights another actor") || !strings.Contains(out, "then, repeating for ever:") || !strings.Contains(out, "BOUNDED") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*livelock*.scenario.hcl"))
	if len(files) != 1 {
		t.Fatalf("written: %v\n%s", files, out)
	}
	if out, code := runCombined(t, "sim", files[0]); code != 0 {
		t.Fatalf("the written scenario fails: exit %d\n%s", code, out)
	}
	out, code = runCombined(t, "verify", "objectpatch", "--object", objs, "--depth", "12", "--fault-depth", "-1")
	if code != 0 || !strings.Contains(out, "no findings") {
		t.Fatalf("shipped policy: exit %d\n%s", code, out)
	}
}
