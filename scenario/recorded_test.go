package scenario_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/scenario"
)

// A patch Applied at generation 3 (observedGeneration 3), as a recording
// of a real cluster holds it.
const recordedObjects = `apiVersion: v1
kind: Namespace
metadata:
  name: rec
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: target
  namespace: rec
  uid: 6f1d3c52-0000-4000-8000-000000000001
  labels: {managed-by: statecraft}
---
apiVersion: rightsizing.kubex.ai/v1alpha1
kind: ObjectPatch
metadata:
  name: p
  namespace: rec
  uid: 6f1d3c52-0000-4000-8000-000000000002
  generation: 3
  creationTimestamp: "2025-12-31T23:00:00Z"
spec:
  targetRef: {apiVersion: v1, kind: ConfigMap, name: target}
  patch: {metadata: {labels: {managed-by: statecraft}}}
status:
  state: Applied
  reason: Applied
  outcome: Success
  observedGeneration: 3
  proposal: APPLIED
  retryCount: 0
`

func runRecorded(t *testing.T, extra string) []scenario.Line {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), []byte(recordedObjects), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `scenario "recorded" {
  rules   = ["objectpatch"]
  run_for = "12m"
  objects = ["objects.yaml"]
` + extra + `
  at "7m" {
    patch "ConfigMap/rec/target" {
      merge = { metadata = { labels = { "managed-by" = null } } }
    }
  }
}
`
	path := filepath.Join(dir, "r.scenario.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, ms := loadCompiled(t, path)
	res, err := scenario.Run(context.Background(), s, ms, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res.Trace
}

func transitions(lines []scenario.Line) string {
	var out []string
	for _, l := range lines {
		if l.Kind == "transition" {
			out = append(out, l.String())
		}
	}
	return strings.Join(out, "\n")
}

// recorded = true keeps the generation the server gave the patch, so the
// Applied patch stays Applied (without it the simulator restarts it at
// generation 1 and "spec changed" fires); resume blocks say when the engine
// next looks at an object: at its wake-up, or (with none) only when it
// changes.
func TestRecordedScenario(t *testing.T) {
	if got := transitions(runRecorded(t, "")); !strings.Contains(got, `+0d00:00:00  ObjectPatch/rec/p: Applied → Pending by "spec changed"`) {
		t.Fatalf("without recorded, the generation restarts at 1 and the spec looks changed:\n%s", got)
	}
	got := transitions(runRecorded(t, "  recorded = true\n"))
	if strings.Contains(got, "spec changed") {
		t.Fatalf("recorded: the generation was not kept:\n%s", got)
	}
	// Rechecks every 5m from the start: the drift at 7m is found at 10m.
	if want := `+0d00:10:00  ObjectPatch/rec/p: Applied → NeedsUpdate by "drifted" reason Drifted`; got != want {
		t.Errorf("recorded:\n got %s\nwant %s", got, want)
	}
	// Resumed with a wake-up at 1m: rechecks at 1m, 6m, 11m.
	got = transitions(runRecorded(t, "  recorded = true\n  resume \"ObjectPatch/rec/p\" { wake = \"1m\" }\n"))
	if want := `+0d00:11:00  ObjectPatch/rec/p: Applied → NeedsUpdate by "drifted" reason Drifted`; got != want {
		t.Errorf("resumed at 1m:\n got %s\nwant %s", got, want)
	}
	// At rest with no wake-up: never looked at, the drift goes unseen.
	if got := transitions(runRecorded(t, "  recorded = true\n  resume \"ObjectPatch/rec/p\" {}\n")); got != "" {
		t.Errorf("resumed at rest: %s", got)
	}
}

// schedule = "events": the engine reconciles only where an at block's
// reconcile says, at those times: no reconcile at the start, no recheck
// (the drift at 7m is seen at the 11m reconcile, not at the 10m recheck),
// and an object no machine drives is a world line.
func TestPinnedSchedule(t *testing.T) {
	got := transitions(runRecorded(t, `  recorded = true
  schedule = "events"
  at "3m" {
    reconcile = ["ObjectPatch/rec/p"]
  }
  at "11m" {
    reconcile = ["ObjectPatch/rec/p"]
  }
`))
	if want := `+0d00:11:00  ObjectPatch/rec/p: Applied → NeedsUpdate by "drifted" reason Drifted`; got != want {
		t.Errorf("pinned:\n got %s\nwant %s", got, want)
	}
	lines := runRecorded(t, `  schedule = "events"
  at "1m" {
    reconcile = ["ConfigMap/rec/target"]
  }
`)
	found := false
	for _, l := range lines {
		found = found || l.Kind == "world" && strings.Contains(l.Text, "reconcile ConfigMap/rec/target: no machine drives ConfigMap")
	}
	if !found || transitions(lines) != "" {
		t.Errorf("reconciling an object no machine drives: %v", lines)
	}
}
