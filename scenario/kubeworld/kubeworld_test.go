package kubeworld_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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

// scenarios run on both adapters: each must print, against a real
// kube-apiserver, byte for byte the golden trace the simulator printed, and
// meet its expectations. Scenarios that stage denials, faults or admission
// need the simulator; a few others assert simulator-only facts (its uids,
// its creationTimestamps in virtual time, Deployment statuses the real
// server validates away) and are not listed.
var scenarios = []string{
	"../../examples/objectpatch/target-appears.scenario.hcl",
	"../../spec/conformance/objectpatch/lifecycle.scenario.hcl",
	"../../spec/conformance/objectpatch/drift-repair.scenario.hcl",
	"../../spec/conformance/objectpatch/drift-report-only.scenario.hcl",
	"../../spec/conformance/objectpatch/already-matching.scenario.hcl",
	"../../spec/conformance/cod/numbering.scenario.hcl",
	"../../spec/conformance/cod/owner-conflict.scenario.hcl",
	"../../spec/conformance/cod/secret-ref.scenario.hcl",
	"../../spec/conformance/cod/secret-late.scenario.hcl",
	"../../spec/conformance/cod/collision-modes.scenario.hcl",
	"../../spec/conformance/cod/unmanaged.scenario.hcl",
	"../../spec/conformance/cod/exhausted.scenario.hcl",
	"../../spec/conformance/autopatch/guard-machines.scenario.hcl",
	"../../spec/conformance/autopatch/guard-operations.scenario.hcl",
	"../../spec/conformance/autopatch/halt-acknowledge.scenario.hcl",
	"../../spec/conformance/autopatch/two-halts.scenario.hcl",
	"../../spec/conformance/autopatch/settings-read-only.scenario.hcl",
	"../../spec/conformance/autopatch/executor-steps.scenario.hcl",
}

func TestOneScenarioTwoAdapters(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	crds := filepath.Join(root, "spec", "crds")
	for _, path := range scenarios {
		t.Run(filepath.Base(path), func(t *testing.T) {
			if _, err := os.Stat(path); err != nil {
				t.Fatalf("scenario missing: %v", err)
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
			client, err := kube.New(cp.Config, kube.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, diags := scenario.Load(path)
			if diags.HasErrors() {
				t.Fatal(diags)
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
