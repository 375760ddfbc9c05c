package scenario_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/scenario"
)

// outcome is what "the same outcome" means after a restart: the state, the
// reason, the outcome and the streak counters of every driven object.
func outcome(t *testing.T, path string, restartAt time.Duration) (string, []scenario.Line) {
	t.Helper()
	s, diags := scenario.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if restartAt > 0 {
		s.Events = append(s.Events, &scenario.Event{At: restartAt, Restart: true})
	}
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var cluster *sim.Cluster
	res, err := scenario.Run(context.Background(), s, ms, scenario.Options{
		Cluster: func(clock *sim.Clock) (scenario.Cluster, error) {
			cluster = sim.New(clock, sim.WithSeed(s.Seed))
			return cluster, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	summary := ""
	for _, m := range ms {
		for _, r := range m.Resources {
			for _, obj := range cluster.Objects(r.APIVersion, r.Kind) {
				st, _ := obj["status"].(map[string]any)
				summary += fmt.Sprintf("%s: state=%v reason=%v outcome=%v driftRetryCount=%v retryCount=%v\n",
					sim.RefOf(obj), st[m.StateField], st["reason"], st["outcome"], st["driftRetryCount"], st["retryCount"])
			}
		}
	}
	return summary, res.Trace
}

// TestRestartResumes stops the engine after every moment something
// happened in a drift streak, in the week-long example and in three
// revisioned rollouts, and checks
// that the restarted engine, which keeps nothing but what status holds,
// ends exactly where an uninterrupted engine ends.
func TestRestartResumes(t *testing.T) {
	for _, path := range []string{
		"../examples/objectpatch/drift-streak.scenario.hcl",
		"../spec/conformance/objectpatch/drift-repair.scenario.hcl",
		"../examples/objectpatch/week.scenario.hcl",
		"../examples/cod/my-app.scenario.hcl",
		"../spec/conformance/cod/handoff.scenario.hcl",
		"../spec/conformance/cod/deadline.scenario.hcl",
	} {
		t.Run(path, func(t *testing.T) {
			want, trace := outcome(t, path, 0)
			moments := map[time.Duration]bool{}
			for _, l := range trace {
				if l.Kind == "transition" && l.At > 0 {
					moments[l.At+time.Second] = true
				}
			}
			if len(moments) < 3 {
				t.Fatalf("only %d moments to restart at", len(moments))
			}
			for at := range moments {
				if got, _ := outcome(t, path, at); got != want {
					t.Errorf("restarted at %s:\n got %s\nwant %s", scenario.Stamp(at), got, want)
				}
			}
		})
	}
}
