package main

import (
	"encoding/json"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

func TestVersion(t *testing.T) {
	code, out, _ := run("version")
	if code != 0 || !strings.HasPrefix(out, "statecraft ") || !strings.Contains(out, "go1.") {
		t.Fatalf("version: %d %q", code, out)
	}
	code, flag, _ := run("--version")
	if code != 0 || flag != out {
		t.Errorf("--version = %q, want the same as version: %q", flag, out)
	}
	version, commit = "v1.2.3", "0123456789abcdef0123"
	defer func() { version, commit = "", "" }()
	code, out, _ = run("version", "-o", "json")
	var v VersionInfo
	if err := json.Unmarshal([]byte(out), &v); code != 0 || err != nil {
		t.Fatalf("version -o json: %d %v %q", code, err, out)
	}
	if v.Version != "v1.2.3" || v.Commit != "0123456789abcdef0123" || v.GoVersion == "" || v.Platform == "" || v.Module != "github.com/statecraft/statecraft" {
		t.Errorf("version -o json = %+v", v)
	}
	code, out, _ = run("version", "-o", "yaml")
	var y VersionInfo
	if err := yaml.Unmarshal([]byte(out), &y); code != 0 || err != nil || y != v {
		t.Errorf("version -o yaml = %+v (%v), want %+v", y, err, v)
	}
	if code, out, _ = run("version"); !strings.Contains(out, "statecraft v1.2.3 (commit 0123456789ab)") {
		t.Errorf("version text = %q", out)
	}
	if code, _, errOut := run("version", "-o", "xml"); code == 0 || !strings.Contains(errOut, `--output "xml": want json or yaml`) {
		t.Errorf("version -o xml: %d %q", code, errOut)
	}
}

// TestOutputFormats: each command that prints structured results prints one
// JSON or YAML document with -o, and the two agree.
func TestOutputFormats(t *testing.T) {
	for _, args := range [][]string{
		{"check", shippedObjectpatch},
		{"sim", "../../examples/objectpatch/target-appears.scenario.hcl"},
		{"test", "../../examples/objectpatch"},
		{"verify", "--max-states", "50", "--scenarios", "../../examples", shippedObjectpatch},
	} {
		code, js, errOut := run(append(args, "-o", "json")...)
		var fromJSON any
		if err := json.Unmarshal([]byte(js), &fromJSON); err != nil {
			t.Errorf("%v -o json (exit %d): not one JSON document: %v\n%s%s", args, code, err, js, errOut)
			continue
		}
		_, ys, _ := run(append(args, "-o", "yaml")...)
		var fromYAML any
		if err := yaml.Unmarshal([]byte(ys), &fromYAML); err != nil {
			t.Errorf("%v -o yaml: %v\n%s", args, err, ys)
			continue
		}
		a, _ := json.Marshal(fromJSON)
		b, _ := json.Marshal(fromYAML)
		if string(a) != string(b) {
			t.Errorf("%v: -o json and -o yaml differ:\n%s\n%s", args, a, b)
		}
	}
	// --format json stays what it was for check: the same document as -o json.
	_, a, _ := run("check", "--format", "json", shippedObjectpatch)
	_, b, _ := run("check", "-o", "json", shippedObjectpatch)
	if a != b {
		t.Errorf("check --format json %q and -o json %q differ", a, b)
	}
}

// TestDiffOutput: diff -o json is one document with the structural changes
// and each scenario whose trace differs.
func TestDiffOutput(t *testing.T) {
	chdirRoot(t)
	code, out, errOut := run("diff", "rules/policies/objectpatch.hcl", "examples/verify/objectpatch-unbounded-repair.hcl", "--scenarios", "spec/conformance/objectpatch", "-o", "json")
	var doc struct {
		Structural []struct{ Machine, Kind, What string }
		Behaviour  []struct {
			Scenario string
			Old, New []map[string]any
		}
		BehaviourChanged bool
	}
	if err := json.Unmarshal([]byte(out), &doc); code != 1 || err != nil {
		t.Fatalf("diff -o json: exit %d, %v\n%s%s", code, err, out, errOut)
	}
	found := false
	for _, c := range doc.Structural {
		if c.Kind == "changed" && c.What == `transition "drift found"` {
			found = true
		}
	}
	if !found || !doc.BehaviourChanged || len(doc.Behaviour) == 0 || len(doc.Behaviour[0].New) == 0 {
		t.Errorf("diff -o json = %+v", doc)
	}
}
