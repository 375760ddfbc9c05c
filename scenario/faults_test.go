package scenario_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/scenario"
)

// TestFaultsConverge runs 40 ObjectPatches through two hours in which a
// third of all requests of every verb fail (5xx, timeouts, conflicts), the
// engine's own reads and status writes included, while another actor drifts
// the targets. Once the faults stop, every patch must be Applied with its
// target patched: no lost write, nobody stuck, no crash.
func TestFaultsConverge(t *testing.T) {
	const n = 40
	s := &scenario.Scenario{
		Name: "faults", File: "faults", Dir: ".", Rules: []string{"objectpatch"},
		Start: scenario.DefaultStart, RunFor: 6 * time.Hour, Seed: 7,
		Objects: []map[string]any{{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "demo"}}},
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("cm-%02d", i)
		s.Objects = append(s.Objects,
			map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": name, "namespace": "demo"}},
			map[string]any{
				"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
				"metadata": map[string]any{"name": name, "namespace": "demo"},
				"spec": map[string]any{
					"retryAmount": int64(0), "requeueInterval": "5m",
					"drift":     map[string]any{"retryInterval": "5m", "retryAmount": int64(0)},
					"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": name},
					"patch":     map[string]any{"data": map[string]any{"owner": "statecraft"}},
				},
			})
	}
	faults := &scenario.Staging{}
	for _, o := range []adapters.Outcome{adapters.Transient, adapters.Conflict} {
		faults.Faults = append(faults.Faults, sim.Fault{Rate: 0.2, Outcome: o})
	}
	s.Events = append(s.Events,
		&scenario.Event{At: time.Minute, Staging: faults},
		&scenario.Event{At: 2 * time.Hour, Staging: &scenario.Staging{ClearFault: true}},
	)
	for i := 0; i < n; i += 3 { // another actor drifts every third target, hourly
		s.Events = append(s.Events, &scenario.Event{At: 30 * time.Minute, Every: time.Hour, Until: 3 * time.Hour, As: "someone",
			Patch: []scenario.PatchEvent{{Target: scenario.Target{Kind: "ConfigMap", Namespace: "demo", Name: fmt.Sprintf("cm-%02d", i)},
				Merge: map[string]any{"data": map[string]any{"owner": "someone"}}}}})
	}
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var cluster *sim.Cluster
	res, err := scenario.Run(context.Background(), s, ms, scenario.Options{Cluster: func(clock *sim.Clock) (scenario.Cluster, error) {
		cluster = sim.New(clock, sim.WithSeed(s.Seed))
		return cluster, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	failed := 0
	for _, l := range res.Trace {
		if l.Kind == "request" && (strings.Contains(l.Text, ": transient") || strings.Contains(l.Text, ": conflict")) {
			failed++
		}
	}
	if failed < 50 {
		t.Fatalf("only %d requests failed: the faults did not bite", failed)
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("cm-%02d", i)
		op, _ := cluster.Object(adapters.Ref{APIVersion: "rightsizing.kubex.ai/v1alpha1", Kind: "ObjectPatch", Namespace: "demo", Name: name})
		st, _ := op["status"].(map[string]any)
		if st["state"] != "Applied" || st["outcome"] != "Success" {
			t.Errorf("%s: %v / %v: %v", name, st["state"], st["reason"], st["message"])
		}
		cm, _ := cluster.Object(adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "demo", Name: name})
		if data, _ := cm["data"].(map[string]any); data["owner"] != "statecraft" {
			t.Errorf("%s: target not patched: %v", name, cm["data"])
		}
	}
}
