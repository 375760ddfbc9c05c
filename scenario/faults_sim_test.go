package scenario_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/scenario"
)

var faultsAll = flag.Bool("faults.all", false, "run every fault schedule (make faults), not the bounded sample make test runs")

// faultSettle is how long past run_for a faulted run and its baseline go
// on: the bound within which a run must converge once its faults stop.
const faultSettle = 2 * time.Hour

// TestFaultSchedulesOnSimulator runs every conformance scenario
// (spec/conformance/**/*.scenario.hcl) under generated fault schedules: a
// crash after each of the engine's writes in turn (the write index taken
// from the run without faults), and reads 1, 3 and 10 writes stale; each
// must end in the same final state (scenario.FinalState) as the run
// without faults, faultSettle after run_for. Without -faults.all a seeded
// sample of at most 6 crash points per scenario runs.
func TestFaultSchedulesOnSimulator(t *testing.T) {
	paths, err := scenario.Find("../spec/conformance")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) < 50 {
		t.Fatalf("only %d conformance scenarios found", len(paths))
	}
	var total struct{ schedules, crashes, dropped, stale, violations, accepted int }
	started := time.Now()
	for _, path := range paths {
		rel := path[len("../spec/conformance/"):]
		t.Run(rel, func(t *testing.T) {
			s, ms := loadCompiled(t, path)
			if s.Recorded {
				t.Skip("it restores recorded objects (recorded = true), which only the plain simulated cluster can, not the fault cluster")
			}
			ctx := context.Background()
			base, err := scenario.RunWithFaults(ctx, s, ms, scenario.FaultSchedule{}, faultSettle)
			if err != nil {
				t.Fatal(err)
			}
			writes := base.Cluster.Stats.Writes
			var schedules []scenario.FaultSchedule
			crashes := make([]int, 0, writes)
			for k := 1; k <= writes; k++ {
				crashes = append(crashes, k)
			}
			if !*faultsAll && len(crashes) > 6 {
				rng := rand.New(rand.NewPCG(18, uint64(len(path))))
				rng.Shuffle(len(crashes), func(i, j int) { crashes[i], crashes[j] = crashes[j], crashes[i] })
				crashes = crashes[:6]
			}
			for _, k := range crashes {
				schedules = append(schedules, scenario.FaultSchedule{CrashAfterWrite: k})
			}
			for _, n := range []int{1, 3, 10} {
				schedules = append(schedules, scenario.FaultSchedule{StaleWrites: n})
			}
			t.Logf("baseline: %d writes, %d reconciles", writes, base.Result.Reconciles)
			for _, sched := range schedules {
				if why, ok := staleReadExclusions[rel]; ok && sched.StaleWrites > 0 {
					t.Logf("%s: not run: %s", sched, why)
					continue
				}
				if ex, ok := crashExclusions[rel]; ok && slices.Contains(ex.writes, sched.CrashAfterWrite) {
					t.Logf("%s: not run: %s", sched, ex.why)
					continue
				}
				rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				began := time.Now()
				run, err := scenario.RunWithFaults(rctx, s, ms, sched, faultSettle)
				cancel()
				if err != nil {
					total.violations++
					t.Errorf("%s: %v", sched, err)
					continue
				}
				if testing.Verbose() {
					t.Logf("%s: %d reconciles in %s", sched, run.Result.Reconciles, time.Since(began).Round(time.Millisecond))
				}
				touched := map[adapters.Ref]bool{}
				for r := range base.Cluster.Touched {
					touched[r] = true
				}
				for r := range run.Cluster.Touched {
					touched[r] = true
				}
				want := scenario.FinalState(base.Cluster, ms, touched)
				got := scenario.FinalState(run.Cluster, ms, touched)
				total.schedules++
				total.crashes += run.Cluster.Stats.Crashes
				total.dropped += run.Cluster.Stats.Dropped
				total.stale += run.Cluster.Stats.StaleReads
				if sched.CrashAfterWrite > 0 && run.Cluster.Stats.Crashes != 1 {
					t.Errorf("%s: %d crashes injected, want 1", sched, run.Cluster.Stats.Crashes)
				}
				if got == want {
					continue
				}
				var real []string
				for _, d := range scenario.StateDiffs(want, got) {
					if why := acceptedDifference(s, sched, d); why != "" {
						total.accepted++
						t.Logf("%s: accepted: %s (%s)", sched, d, why)
						continue
					}
					real = append(real, "  "+d.String())
				}
				if len(real) > 0 {
					total.violations++
					t.Errorf("%s: final state differs from the run without faults:\n%s", sched, strings.Join(real, "\n"))
				}
			}
		})
	}
	t.Logf("fault schedules on the simulator: %d scenarios, %d schedules run, faults injected: %d crashes (%d requests not sent), %d stale reads; %d violations, %d accepted differences; %s",
		len(paths), total.schedules, total.crashes, total.dropped, total.stale, total.violations, total.accepted, time.Since(started).Round(time.Millisecond))
	fmt.Printf("faults (simulator): %d scenarios, %d schedules, %d crashes, %d unsent requests, %d stale reads, %d violations, %d accepted differences\n",
		len(paths), total.schedules, total.crashes, total.dropped, total.stale, total.violations, total.accepted)
}

// TestFaultScheduleTrace prints the traces of one scenario without faults
// and under one schedule, for debugging a difference:
// STATECRAFT_FAULT_SCENARIO=path STATECRAFT_FAULT_CRASH=k STATECRAFT_FAULT_STALE=n.
func TestFaultScheduleTrace(t *testing.T) {
	path := os.Getenv("STATECRAFT_FAULT_SCENARIO")
	if path == "" {
		t.Skip("set STATECRAFT_FAULT_SCENARIO (and STATECRAFT_FAULT_CRASH or STATECRAFT_FAULT_STALE)")
	}
	s, ms := loadCompiled(t, path)
	var sched scenario.FaultSchedule
	sched.CrashAfterWrite, _ = strconv.Atoi(os.Getenv("STATECRAFT_FAULT_CRASH"))
	sched.StaleWrites, _ = strconv.Atoi(os.Getenv("STATECRAFT_FAULT_STALE"))
	for _, sc := range []scenario.FaultSchedule{{}, sched} {
		run, err := scenario.RunWithFaults(context.Background(), s, ms, sc, faultSettle)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Printf("==== %s\n%s", sc, scenario.RenderTrace(run.Result.Trace))
	}
}

// crashExclusions and staleReadExclusions are scenarios whose crash or
// stale-read schedules cannot end as their runs without faults do, each
// with why (the other kind runs): a different, correct answer to a
// different history, judged one by one.
var crashExclusions = map[string]crashExclusion{
	"clusterobjectset/deleted.scenario.hcl":        {[]int{1, 2, 3}, "del-1 starts at rest (resume, no wake-up) and is deleted at 1m: a restarted engine reconciles every object it lists, del-1 among them, so a crash before 1m (after write 1, 2 or 3) has it applied (Ready, its ConfigMap created) before its deletion, as a restarted controller would"},
	"objectpatch/claims-lost-waiting.scenario.hcl": {[]int{11, 12}, "a restarted engine reconciles every object it lists: after a crash at write 11 or 12 (9m, 10m), first, Applied, is checked again while the scenario denies reads of the Deployment (9m to 10m30s) and ends in Error TargetAccessDenied, which the seed makes terminal until its spec changes or it is reapplied"},
}

// crashExclusion names the crash points (writes) a scenario cannot run.
type crashExclusion struct {
	writes []int
	why    string
}

var staleReadExclusions = map[string]string{
	"clusterobjectset/deleted.scenario.hcl":                 "the world archives and deletes arch-1 in one step: a read one write behind shows it archived and not yet deleted, and an archived revision tears down (its ConfigMap deleted by the engine, not the garbage collector; it ends TearingDown)",
	"autopatch/halt-reused-name.scenario.hcl":               reusedNameTiming,
	"autopatch/half-start-reused-name.scenario.hcl":         reusedNameTiming,
	"autopatch/halt-deleted-reused-name.scenario.hcl":       reusedNameTiming,
	"autopatch/two-halts-reused-name.scenario.hcl":          reusedNameTiming,
	"autopatch/acknowledged-ahead-reused-name.scenario.hcl": reusedNameTiming,
}

// reusedNameTiming: the operation of a patch decided again is named by the
// second it was started at; a stale read delays that start by a second, so
// the operation has another name and the world event that fails it, which
// names it, finds nothing to fail.
const reusedNameTiming = "the world event fails the operation by its name, which holds the second of its start, and a stale read delays the start"

// TestFaultExclusionsExist keeps the exclusions from going stale: each
// names a conformance scenario, with a reason.
func TestFaultExclusionsExist(t *testing.T) {
	paths, err := scenario.Find("../spec/conformance")
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for _, p := range paths {
		all[p[len("../spec/conformance/"):]] = true
	}
	for rel, ex := range crashExclusions {
		if !all[rel] || ex.why == "" || len(ex.writes) == 0 {
			t.Errorf("crash exclusion %s: exists %v, writes %v, reason %q", rel, all[rel], ex.writes, ex.why)
		}
	}
	for rel, why := range staleReadExclusions {
		if !all[rel] || why == "" {
			t.Errorf("stale-read exclusion %s: exists %v, reason %q", rel, all[rel], why)
		}
	}
}

// acceptedDifference says why a difference between a faulted run's final
// state and its baseline's is not a violation, or "" when it is one. Each
// entry is a difference the harness found and that was judged, one by
// one, not to be a bug (RELIABILITY.md lists them):
//   - the scenario fails requests by call number (a staged fault with
//     at_calls or a rate): a crash changes which requests are made, so the
//     scripted failures land elsewhere;
//   - an ObjectPatch's lastAttemptTime and lastAppliedTime after a crash
//     between its target patch and its status write: the restarted engine
//     finds the target already patched, which is "Applied without a
//     request", and has no attempt of its own to record;
//   - a ClusterObjectSet's message "archived <predecessors>" after a crash
//     between the archive patch and the status write: the restarted engine
//     finds nothing left to archive and reports completion; the message is
//     the last action's, not a state.
func acceptedDifference(s *scenario.Scenario, sched scenario.FaultSchedule, d scenario.FieldDiff) string {
	kind := strings.SplitN(d.Object, "/", 2)[0]
	kind = strings.TrimPrefix(strings.TrimPrefix(kind, "driven "), "object ")
	if sched.CrashAfterWrite == 0 {
		if sched.StaleWrites > 0 && (kind == "ObjectPatch" || kind == "ClusterObjectPatch") && d.Want == "" &&
			(d.Path == ".status.lastAppliedTime" || d.Path == ".status.lastAttemptTime") {
			return "a stale read of the target, not yet showing what another actor applied, makes the engine apply the same patch itself and record its attempt"
		}
		return ""
	}
	if s.StagesCallFaults() {
		return "the scenario fails requests by call number; a crash changes which requests are made"
	}
	switch {
	case (kind == "ObjectPatch" || kind == "ClusterObjectPatch") && d.Got == "" &&
		(d.Path == ".status.lastAppliedTime" || d.Path == ".status.lastAttemptTime"):
		return "the target was patched by the engine that crashed; the new one finds it applied"
	case kind == "ClusterObjectSet" && (d.Path == ".status.message" || strings.HasSuffix(d.Path, "].message")) &&
		strings.HasPrefix(d.Want, `"archived `) && strings.HasSuffix(d.Got, `phase(s) complete"`):
		return "the archive patch was made by the engine that crashed; the new one finds nothing to archive"
	}
	return ""
}
