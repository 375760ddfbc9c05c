package controller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"

	"github.com/statecraft/statecraft/controller"
)

// TestHistoryPruningWaitsForTeardown shows on kube-apiserver, driven with
// kubectl, the seed's pruning while a revision tears down (seed 002:
// "Only owned archived revisions that have finished teardown are eligible
// for pruning. The controller deletes the oldest eligible revisions beyond
// the limit; revisions still tearing down are left until cleanup
// completes"). revisionHistoryLimit 2; each template puts its own ConfigMap
// in revision N; a finalizer someone put on revision 1's ConfigMap holds its
// teardown. After five templates, archived revisions 1 to 4 are owned and 1
// still tears down: 2 is pruned, 3 and 4 (the two newest) are kept, and 1
// stays until its cleanup completes; once the finalizer goes, 1 is pruned
// too. (Before the fix, 2 and 3 were pruned and 1 and 4 kept for good.)
func TestHistoryPruningWaitsForTeardown(t *testing.T) {
	cp, kubectl := ownControlPlane(t)
	ctx := context.Background()
	dyn := dynamic.NewForConfigOrDie(cp.Config)
	start(t, cp.Config, controller.Options{}, shippedMachines(t, nil, "clusterobjectdeployment", "clusterobjectset")...)

	get := func(name string) *unstructured.Unstructured {
		u, err := dyn.Resource(cosGVR).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return u
	}
	state := func(name string) string {
		u := get(name)
		if u == nil {
			return "gone"
		}
		s, _, _ := unstructured.NestedString(u.Object, "status", "state")
		l, _, _ := unstructured.NestedString(u.Object, "spec", "lifecycleState")
		return l + "/" + s
	}
	states := func() string {
		return fmt.Sprintf("keep-1 %s, keep-2 %s, keep-3 %s, keep-4 %s, keep-5 %s", state("keep-1"), state("keep-2"), state("keep-3"), state("keep-4"), state("keep-5"))
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		for time.Now().Before(deadline) {
			if cond() {
				return
			}
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("%s: not reached; %s", what, states())
	}
	template := func(n int) {
		kubectl(fmt.Sprintf(`apiVersion: olm.operatorframework.io/v1
kind: ClusterObjectDeployment
metadata:
  name: keep
spec:
  revisionHistoryLimit: 2
  template:
    spec:
      phases:
      - name: config
        objects:
        - type: InlineManifest
          inlineManifest:
            apiVersion: v1
            kind: ConfigMap
            metadata: {name: keep-cm-%d, namespace: default}
            data: {revision: "%d"}
`, n, n), "apply", "-f", "-")
		waitFor(fmt.Sprintf("revision %d ready", n), func() bool { return state(fmt.Sprintf("keep-%d", n)) == "Active/Ready" })
	}

	template(1)
	kubectl("", "patch", "configmap", "keep-cm-1", "-n", "default", "--type", "merge", "-p", `{"metadata":{"finalizers":["example.com/hold"]}}`)
	template(2)
	waitFor("revision 1 archived and tearing down", func() bool { return state("keep-1") == "Archived/TearingDown" })
	for n := 3; n <= 5; n++ {
		template(n)
	}
	waitFor("revisions 3 and 4 archived, 2 pruned", func() bool {
		return state("keep-2") == "gone" && state("keep-3") == "Archived/Archived" && state("keep-4") == "Archived/Archived"
	})
	// The controller has settled: 1 is still there, tearing down.
	time.Sleep(3 * time.Second)
	if s := state("keep-1"); s != "Archived/TearingDown" {
		t.Fatalf("revision 1, still tearing down, was not left alone: %s", states())
	}
	if state("keep-3") == "gone" || state("keep-4") == "gone" {
		t.Fatalf("a newest archived revision was pruned: %s", states())
	}

	kubectl("", "patch", "configmap", "keep-cm-1", "-n", "default", "--type", "merge", "-p", `{"metadata":{"finalizers":null}}`)
	waitFor("revision 1 pruned once its cleanup completed", func() bool { return state("keep-1") == "gone" })
	if state("keep-3") != "Archived/Archived" || state("keep-4") != "Archived/Archived" || state("keep-5") != "Active/Ready" {
		t.Fatalf("after the cleanup: %s", states())
	}
}
