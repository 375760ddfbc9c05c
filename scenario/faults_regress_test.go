package scenario_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/scenario"
)

// Regression tests for what the fault schedules found (RELIABILITY.md,
// "Bugs found").

// A crash right after a ClusterObjectDeployment created its revision lost
// the status write that recorded status.templateHash; the restarted engine
// found the revision and reported it, but never the hash. Every report now
// carries it (as it carries latestRevision).
func TestCrashAfterRevisionCreateKeepsTemplateHash(t *testing.T) {
	s, ms := loadCompiled(t, "../spec/conformance/cod/revisions.scenario.hcl")
	ctx := context.Background()
	base, err := scenario.RunWithFaults(ctx, s, ms, scenario.FaultSchedule{}, faultSettle)
	if err != nil {
		t.Fatal(err)
	}
	crashed := 0
	for k, w := range base.Cluster.Writes {
		if w.Verb != adapters.Create || w.Ref.Kind != "ClusterObjectSet" {
			continue
		}
		run, err := scenario.RunWithFaults(ctx, s, ms, scenario.FaultSchedule{CrashAfterWrite: k + 1}, faultSettle)
		if err != nil {
			t.Fatal(err)
		}
		crashed++
		for _, cod := range run.Cluster.Objects("olm.operatorframework.io/v1", "ClusterObjectDeployment") {
			st, _ := cod["status"].(map[string]any)
			latest, _ := st["latestRevision"].(int64)
			name := sim.RefOf(cod).Name
			cos, ok := run.Cluster.Object(adapters.Ref{APIVersion: "olm.operatorframework.io/v1", Kind: "ClusterObjectSet", Name: name + "-" + strconv.FormatInt(latest, 10)})
			if !ok {
				t.Fatalf("crash after write %d (%s): %s reports revision %d, which does not exist", k+1, w.Ref, name, latest)
			}
			md, _ := cos["metadata"].(map[string]any)
			labels, _ := md["labels"].(map[string]any)
			if st["templateHash"] != labels["olm.operatorframework.io/template-hash"] {
				t.Errorf("crash after write %d (%s): %s status.templateHash = %v, its latest revision's template hash is %v",
					k+1, w.Ref, name, st["templateHash"], labels["olm.operatorframework.io/template-hash"])
			}
		}
	}
	if crashed < 2 {
		t.Fatalf("the scenario created %d revisions: the test proves nothing", crashed)
	}
}

// A crash right after the engine cleared an ObjectPatch's reapply
// annotation lost the status write that started the cycle: the patch stayed
// in its final Error with the annotation gone, so the authorization was
// spent and nothing happened. Acceptance is now written to status before
// the annotation is cleared.
func TestCrashAfterReapplyAcceptedStartsTheCycle(t *testing.T) {
	for _, path := range []string{"../spec/conformance/objectpatch/rejections.scenario.hcl", "../spec/conformance/objectpatch/access-denied.scenario.hcl"} {
		s, ms := loadCompiled(t, path)
		ctx := context.Background()
		base, err := scenario.RunWithFaults(ctx, s, ms, scenario.FaultSchedule{}, faultSettle)
		if err != nil {
			t.Fatal(err)
		}
		crashed := 0
		for k, w := range base.Cluster.Writes {
			if w.Verb != adapters.Patch || w.Ref.Kind != "ObjectPatch" || w.Subresource != "" {
				continue // the annotation is cleared by a patch of the ObjectPatch itself
			}
			run, err := scenario.RunWithFaults(ctx, s, ms, scenario.FaultSchedule{CrashAfterWrite: k + 1}, faultSettle)
			if err != nil {
				t.Fatal(err)
			}
			crashed++
			want, _ := base.Cluster.Object(w.Ref)
			got, _ := run.Cluster.Object(w.Ref)
			ws, _ := want["status"].(map[string]any)
			gs, _ := got["status"].(map[string]any)
			if ws["state"] != gs["state"] || ws["reason"] != gs["reason"] {
				t.Errorf("%s: crash after write %d (clearing the reapply annotation of %s): %v/%v, want %v/%v",
					path, k+1, w.Ref, gs["state"], gs["reason"], ws["state"], ws["reason"])
			}
		}
		if crashed == 0 {
			t.Fatalf("%s: no reapply annotation was cleared: the test proves nothing", path)
		}
	}
}

// A crash right after the automatic patcher wrote a cluster's new version,
// before it created the operation, left a half-start nobody saw: the
// restarted engine found the cluster at the new version, decided there was
// nothing to do, and no operation ever ran the version it had written. The
// start is now recorded in status before the version is written, and a
// restarted engine finishes it.
func TestCrashAfterVersionWriteCreatesTheOperation(t *testing.T) {
	for _, path := range []string{"../spec/conformance/autopatch/starts.scenario.hcl", "../spec/conformance/autopatch/candidates.scenario.hcl"} {
		s, ms := loadCompiled(t, path)
		ctx := context.Background()
		base, err := scenario.RunWithFaults(ctx, s, ms, scenario.FaultSchedule{}, faultSettle)
		if err != nil {
			t.Fatal(err)
		}
		ops := func(c scenario.Cluster) string {
			var names []string
			for _, o := range c.Objects("ichor.maesh.dev/v1alpha1", "TalosOperation") {
				names = append(names, sim.RefOf(o).String())
			}
			inst := c.Objects("ichor.maesh.dev/v1alpha1", "IchorInstallation")
			st, _ := inst[0]["status"].(map[string]any)
			ap, _ := st["autoPatch"].(map[string]any)
			return fmt.Sprintf("operations %v, lastOperation %v", names, ap["lastOperation"])
		}
		want := ops(base.Cluster)
		crashed := 0
		for k, w := range base.Cluster.Writes {
			if w.Verb != adapters.Update || w.Ref.Kind != "TalosCluster" {
				continue
			}
			run, err := scenario.RunWithFaults(ctx, s, ms, scenario.FaultSchedule{CrashAfterWrite: k + 1}, faultSettle)
			if err != nil {
				t.Fatal(err)
			}
			crashed++
			if got := ops(run.Cluster); got != want {
				t.Errorf("%s: crash after write %d (the version of %s): %s, want %s", path, k+1, w.Ref, got, want)
			}
		}
		if crashed == 0 {
			t.Fatalf("%s: no version was written: the test proves nothing", path)
		}
	}
}

// Under stale reads a write reaches the runner only once the engine can see
// it, in a later reconcile or in none; the runner, which wakes nobody for
// an object's own write to itself, judged that by the object reconciling
// when it took the record, so the writer's own late status write woke it as
// another actor's would. In clusterextension/apply-failure-installed,
// ClusterExtension/argocd, whose COD apply failed at 1m (its retry due 10s
// later), was woken a second later by its own status write and retried at
// once: the apply went through before argocd-1 completed at 1m05, and
// argocd-1 was archived without status.completedAt (issue 18's open
// difference under reads 1, 3 and 10 writes stale). The record now carries
// the reconcile that made it.
func TestStaleReadsOwnWriteWakesNobody(t *testing.T) {
	s, ms := loadCompiled(t, "../spec/conformance/clusterextension/apply-failure-installed.scenario.hcl")
	for _, n := range []int{0, 1, 3, 10} {
		run, err := scenario.RunWithFaults(context.Background(), s, ms, scenario.FaultSchedule{StaleWrites: n}, faultSettle)
		if err != nil {
			t.Fatal(err)
		}
		// From the edit at 1m to the Deployment's readiness at 1m05
		// nothing but its own failed apply and its backoff concerns the
		// extension: it applies once.
		var applies []string
		for _, l := range run.Result.Trace {
			if l.Kind == "transition" && l.Object == "ClusterExtension/argocd" && l.At >= time.Minute && l.At < time.Minute+5*time.Second &&
				strings.Contains(l.Text, `by "apply deployment"`) {
				applies = append(applies, scenario.Stamp(l.At)+" "+l.Text)
			}
		}
		if len(applies) != 1 {
			t.Errorf("reads %d writes stale: %d applies of the COD between 1m and 1m05, want 1:\n%s", n, len(applies), strings.Join(applies, "\n"))
		}
	}
}
