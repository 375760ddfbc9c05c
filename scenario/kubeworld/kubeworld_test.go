package kubeworld_test

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/scenario"
	"github.com/statecraft/statecraft/scenario/kubeworld"
	"github.com/statecraft/statecraft/textdiff"
)

// Every scenario of spec/conformance and examples runs on both adapters:
// against a real kube-apiserver it must print, byte for byte, the golden
// trace the simulator printed, and meet its expectations. The exceptions
// are named here with their reason (TestExclusionsExist keeps the list
// honest), and those that stage denials, faults, admission hooks or
// recorded objects, which only the simulated cluster can (Scenario.Stages),
// are skipped as such.
var excluded = map[string]string{

	// The simulator plays the garbage collector as a controller whose
	// deletes and patches are trace lines a second (virtual) after the
	// owner goes. The test control plane can run kube-controller-manager
	// (controlplane.Options.Controllers), but that does not give these
	// traces: its collector acts on the wall clock, whenever its informers
	// see the change, and its requests go to kube-apiserver directly, not
	// through the World, so the lines the golden traces hold at +1s could
	// not appear, and its other controllers (the Deployment controller)
	// would write what the scenarios' world writes itself.
	"spec/conformance/clusterextension/conflict-first-install.scenario.hcl": "needs the garbage collector",
	"spec/conformance/clusterextension/conflict-upgrade.scenario.hcl":       "needs the garbage collector",
	"spec/conformance/clusterextension/install.scenario.hcl":                "needs the garbage collector",
	"spec/conformance/cod/cascade.scenario.hcl":                             "needs the garbage collector",
	"spec/conformance/cod/deleting-member.scenario.hcl":                     "needs the garbage collector",
	"spec/conformance/cod/foreground-delete.scenario.hcl":                   "needs the garbage collector",
	"spec/conformance/cod/orphan.scenario.hcl":                              "needs the garbage collector",
	"spec/conformance/cod/owner-conflict.scenario.hcl":                      "needs the garbage collector",
	"spec/conformance/cod/stale-owner.scenario.hcl":                         "needs the garbage collector",
	"spec/conformance/cod/owner-conflict-names.scenario.hcl":                "needs the garbage collector",
	"spec/conformance/cod/available-names.scenario.hcl":                     "needs the garbage collector",

	// Server-set values: a real server's uids are random, its
	// creationTimestamps wall-clock times.
	"examples/autopatch/week.scenario.hcl":                   "the tick jitter is fixed by the installation's uid",
	"spec/conformance/autopatch/tick-jitter.scenario.hcl":    "the tick jitter is fixed by the installation's uid",
	"examples/cod/my-app.scenario.hcl":                       "expects a uid",
	"spec/conformance/cod/handoff.scenario.hcl":              "expects a uid",
	"spec/conformance/cod/history.scenario.hcl":              "its starting objects name their owner by a simulator uid",
	"spec/conformance/cod/history-teardown.scenario.hcl":     "its starting objects name their owner by a simulator uid (controller.TestHistoryPruningWaitsForTeardown is its kube-apiserver run)",
	"spec/conformance/cod/history-max.scenario.hcl":          "its starting objects name their owner by a simulator uid",
	"spec/conformance/cod/history-rule-default.scenario.hcl": "its starting objects name their owner by a simulator uid",
	// The autopatch start guard compares the TalosOperations'
	// creationTimestamps with the virtual time.
	"spec/conformance/autopatch/candidates.scenario.hcl":     "the start guard reads creationTimestamps",
	"spec/conformance/autopatch/guard-recent.scenario.hcl":   "the start guard reads creationTimestamps",
	"spec/conformance/autopatch/halt-ends-cni.scenario.hcl":  "the manual upgrade's end of a halt compares its operation's creationTimestamp with the virtual time",
	"spec/conformance/autopatch/hold.scenario.hcl":           "the start guard reads creationTimestamps",
	"spec/conformance/autopatch/settings-flags.scenario.hcl": "the start guard reads creationTimestamps",
	"spec/conformance/autopatch/settings-off.scenario.hcl":   "the start guard reads creationTimestamps",
	"spec/conformance/autopatch/starts.scenario.hcl":         "the start guard reads creationTimestamps",
	"spec/conformance/autopatch/window-wrap.scenario.hcl":    "the start guard reads creationTimestamps",
	// A ClusterObjectDeployment's progress deadline counts from its
	// ClusterObjectSet's creationTimestamp.
	"spec/conformance/cod/collision.scenario.hcl":         "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/conflict-deadline.scenario.hcl": "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/deadline.scenario.hcl":          "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/deadline-phases.scenario.hcl":   "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/deadline-recovery.scenario.hcl": "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/deadline-shorten.scenario.hcl":  "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/preconditions.scenario.hcl":     "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/stalled-collision.scenario.hcl": "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/poll-deadline.scenario.hcl":     "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/rest-polls.scenario.hcl":        "the progress deadline reads a creationTimestamp",
	"spec/conformance/cod/prune-deadline.scenario.hcl":    "the progress deadline reads a creationTimestamp",

	// A real server serves a CRD's kind a moment after the CRD is created;
	// the simulator at once.
	"spec/conformance/objectpatch/unsupported-target.scenario.hcl": "creates a CRD and an object of its kind in one event",
	// No CRD: the simulator serves these kinds generically (RegisterKind).
	"examples/parent-child/parent-child.scenario.hcl":  "its kinds have no CRD",
	"spec/conformance/cod/poll-collision.scenario.hcl": "its starting objects name their owner by a simulator uid",
	// On kube-apiserver the objects of a deleted CRD read as not found
	// (TargetMissing); the simulator answers the kind unsupported at once
	// (UnsupportedTarget): a fidelity difference, open.
	"spec/conformance/objectpatch/api-removed.scenario.hcl": "a deleted CRD's kind: the real server answers not found, the simulator unsupported",
}

func TestOneScenarioTwoAdapters(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join(root, "spec", "crds")
	for _, rel := range allScenarios(t, root) {
		path := filepath.Join(root, rel)
		t.Run(rel, func(t *testing.T) {
			if why, skip := excluded[rel]; skip {
				t.Skip(why)
			}
			s, diags := scenario.Load(path)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			if s.ExpectError != "" {
				t.Skip("expect_error: its rule files are refused, nothing runs")
			}
			if s.Stages() {
				t.Skip("stages denials, faults, admission hooks or recorded objects, which only the simulated cluster can")
			}
			cp := controlplane.StartForTest(t, controlplane.Options{CRDDirs: []string{crds}})
			// The scenario's world acts as "scenario" or as the users it
			// names, and machines impersonate ServiceAccounts: on the
			// simulator nobody is refused unless the scenario says so, and
			// here neither.
			kc := kubernetes.NewForConfigOrDie(cp.Config)
			if _, err := kc.RbacV1().ClusterRoleBindings().Create(context.Background(), &rbacv1.ClusterRoleBinding{
				ObjectMeta: metav1.ObjectMeta{Name: "scenario-world"},
				RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "cluster-admin"},
				Subjects: []rbacv1.Subject{
					{Kind: "User", Name: "scenario", APIGroup: "rbac.authorization.k8s.io"},
					{Kind: "Group", Name: "system:authenticated", APIGroup: "rbac.authorization.k8s.io"},
					{Kind: "Group", Name: "system:serviceaccounts", APIGroup: "rbac.authorization.k8s.io"},
				},
			}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			full, err := kube.New(cp.Config, kube.Options{})
			if err != nil {
				t.Fatal(err)
			}
			// As the simulated cluster of a scenario run hands them out:
			// without managedFields.
			client, err := full.WithoutManagedFields()
			if err != nil {
				t.Fatal(err)
			}
			ms, diags := scenario.Compile(s)
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			res, err := scenario.Run(context.Background(), s, ms, scenario.Options{
				Cluster: func(clock *sim.Clock) (scenario.Cluster, error) { return kubeworld.New(client, clock), nil },
				// Rules that never settle (a revision applying its objects
				// at every wake-up, say) end the run with an error instead
				// of running for ever.
				MaxWakeups: 20000,
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range res.Failures {
				t.Error(f)
			}
			want, err := os.ReadFile(scenario.GoldenPath(path))
			if err != nil {
				t.Fatal(err)
			}
			got := scenario.RenderTrace(res.Trace)
			if !bytes.Equal(want, got) {
				t.Errorf("the real API server's trace differs from the simulator's golden trace:\n%s", textdiff.LineDiff(string(want), string(got)))
			}
		})
	}
}

// allScenarios lists every scenario file below spec/conformance and
// examples, relative to the repository's root, sorted.
func allScenarios(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, dir := range []string{"spec/conformance", "examples"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".scenario.hcl") {
				rel, err := filepath.Rel(root, p)
				if err != nil {
					return err
				}
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sort.Strings(out)
	return out
}

// TestExclusionsExist: every excluded scenario exists and has a reason.
func TestExclusionsExist(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for _, p := range allScenarios(t, root) {
		all[p] = true
	}
	for p, why := range excluded {
		if !all[p] || why == "" {
			t.Errorf("excluded scenario %s: exists %v, reason %q", p, all[p], why)
			continue
		}
		// One that stages is skipped as such: listing it says nothing.
		if s, diags := scenario.Load(filepath.Join(root, p)); !diags.HasErrors() && s.Stages() {
			t.Errorf("excluded scenario %s stages denials, faults, admission hooks or recorded objects: skipped without being listed", p)
		}
	}
}
