package scenario_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/statecraft/statecraft/scenario"
)

// TestSkippedRestsChangeNothing runs every scenario of the suites, and the
// drift workload of the benchmark, twice: stepping every object at every
// wake-up, and skipping the rechecks certified to rest again. Traces and
// failed expectations must be identical, and the workload must skip most
// rechecks (else the skipping is not working and the benchmark measures
// something else).
func TestSkippedRestsChangeNothing(t *testing.T) {
	drift := driftScenario(100, 24*time.Hour)
	runs := suiteRuns(t, drift)
	skippedAny := 0
	for _, r := range runs {
		ms, diags := scenario.Compile(r.s)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", r.name, diags)
		}
		every, err := scenario.Run(context.Background(), r.s, ms, scenario.Options{EveryStep: true})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		skipping, err := scenario.Run(context.Background(), r.s, ms, scenario.Options{})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if d := cmp.Diff(every.Trace, skipping.Trace); d != "" {
			t.Errorf("%s: skipping rests changed the trace (-every step +skipping):\n%s", r.name, d)
		}
		if d := cmp.Diff(every.Failures, skipping.Failures); d != "" {
			t.Errorf("%s: skipping rests changed the failed expectations:\n%s", r.name, d)
		}
		if every.Rests != 0 {
			t.Errorf("%s: EveryStep skipped %d rechecks", r.name, every.Rests)
		}
		if got, want := skipping.Reconciles+skipping.Rests, every.Reconciles; got != want {
			t.Errorf("%s: %d reconciles + %d skipped rests, want the %d wake-ups of stepping every object", r.name, skipping.Reconciles, skipping.Rests, want)
		}
		if skipping.Rests > 0 {
			skippedAny++
		}
		if r.s == drift {
			t.Logf("drift workload: %d wake-ups, %d stepped, %d skipped", every.Reconciles, skipping.Reconciles, skipping.Rests)
			if skipping.Rests < every.Reconciles*8/10 {
				t.Errorf("drift workload: only %d of %d rechecks skipped", skipping.Rests, every.Reconciles)
			}
		}
	}
	t.Logf("%d of %d runs skipped rests", skippedAny, len(runs))
}
