package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/scenario"
)

// TestSimStreams: sim streams its trace, and what it prints is the golden
// trace, whole (text), one JSON object per golden line (--format json),
// and one object's lines (--object), in the golden order.
func TestSimStreams(t *testing.T) {
	const file = "../../examples/objectpatch/week.scenario.hcl"
	want, err := os.ReadFile(scenario.GoldenPath(file))
	if err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run("sim", file)
	if code != 0 || stdout != string(want) {
		t.Fatalf("sim: exit %d, stderr %q; stdout differs from the golden trace:\n%s", code, stderr, stdout)
	}
	golden := strings.Split(strings.TrimSuffix(string(want), "\n"), "\n")

	code, stdout, stderr = run("sim", "--format", "json", file)
	if code != 0 {
		t.Fatalf("sim --format json: exit %d, stderr %q", code, stderr)
	}
	var lines []scenario.Line
	dec := json.NewDecoder(strings.NewReader(stdout))
	for dec.More() {
		var l scenario.Line
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if len(lines) != len(golden) {
		t.Fatalf("sim --format json printed %d lines, the golden trace has %d", len(lines), len(golden))
	}
	objects := map[string]int{}
	for i, l := range lines {
		if l.String() != golden[i] {
			t.Errorf("json line %d renders %q, golden %q", i, l.String(), golden[i])
		}
		objects[l.Object]++
	}

	const object = "ObjectPatch/patches-demo/deployment-patch"
	if objects[object] == 0 || objects[object] == len(lines) {
		t.Fatalf("%s has %d of %d lines: the filter would not be tested", object, objects[object], len(lines))
	}
	code, stdout, stderr = run("sim", "--object", object, file)
	if code != 0 {
		t.Fatalf("sim --object: exit %d, stderr %q", code, stderr)
	}
	var kept []string
	for _, l := range lines {
		if l.Object == object {
			kept = append(kept, l.String())
		}
	}
	if got := strings.TrimSuffix(stdout, "\n"); got != strings.Join(kept, "\n") {
		t.Errorf("sim --object %s printed:\n%s\nwant:\n%s", object, got, strings.Join(kept, "\n"))
	}
}
