package controller_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/internal/controlplane"
)

var (
	codGVR = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterobjectdeployments"}
	cosGVR = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterobjectsets"}
)

// TestClusterObjectDeploymentWithKubectl runs the shipped rollout policies
// against a real kube-apiserver, driven with kubectl as issue 7 asks: the
// seed's my-app example reaches revision 1 complete; a template edit creates
// revision 2, which takes the ConfigMap over without re-creating it (same
// uid); revision 1 is archived, and with a third template the oldest
// archived revision is pruned beyond the history limit of 1; a Deployment
// whose probe never passes (nothing runs its pods here) drives
// ProgressDeadlineExceeded, and extending the deadline clears it.
func TestClusterObjectDeploymentWithKubectl(t *testing.T) {
	cp, run := ownControlPlane(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kc := kubernetes.NewForConfigOrDie(cp.Config)
	dyn := dynamic.NewForConfigOrDie(cp.Config)

	ms := shippedMachines(t, nil, "clusterobjectdeployment", "clusterobjectset")
	start(t, cp.Config, controller.Options{}, ms...)

	get := func(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
		u, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return u
	}
	str := func(u *unstructured.Unstructured, path ...string) string {
		if u == nil {
			return ""
		}
		v, _, _ := unstructured.NestedString(u.Object, path...)
		return v
	}
	waitFor := func(what string, cond func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		last := ""
		for time.Now().Before(deadline) {
			ok, state := cond()
			if ok {
				return
			}
			last = state
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("%s: not reached; last seen: %s", what, last)
	}
	cosState := func(name string) (string, string) {
		u := get(cosGVR, name)
		return str(u, "status", "state"), str(u, "spec", "lifecycleState")
	}

	// The seed's example, applied verbatim.
	example, err := os.ReadFile(filepath.Join(root, "examples", "cod", "my-app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run(string(example), "apply", "-f", "-")
	waitFor("revision 1 complete", func() (bool, string) {
		state, _ := cosState("my-app-1")
		cod := get(codGVR, "my-app")
		return state == "Ready" && str(get(cosGVR, "my-app-1"), "status", "completedAt") != "" && str(cod, "status", "state") == "Progressed",
			fmt.Sprintf("my-app-1 %s, my-app %s", state, str(cod, "status", "state"))
	})
	cm, err := kc.CoreV1().ConfigMaps("default").Get(ctx, "my-app-settings", metav1.GetOptions{})
	if err != nil || cm.Data["message"] != "Hello from revision A" {
		t.Fatalf("ConfigMap after revision 1: %v %v", cm, err)
	}
	uid := cm.UID

	// History limit 1 for the rest, then a template edit: revision 2.
	edit := func(message string) {
		run("", "patch", "clusterobjectdeployment", "my-app", "--type", "merge", "-p",
			fmt.Sprintf(`{"spec":{"revisionHistoryLimit":1,"template":{"spec":{"phases":[{"name":"configuration","objects":[{"type":"InlineManifest","inlineManifest":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"my-app-settings","namespace":"default"},"data":{"message":%q}}}]}]}}}}`, message))
	}
	edit("Hello from revision B")
	waitFor("revision 2 complete, revision 1 archived", func() (bool, string) {
		s2, _ := cosState("my-app-2")
		_, l1 := cosState("my-app-1")
		return s2 == "Ready" && l1 == "Archived", fmt.Sprintf("my-app-2 %s, my-app-1 lifecycle %s", s2, l1)
	})
	cm, err = kc.CoreV1().ConfigMaps("default").Get(ctx, "my-app-settings", metav1.GetOptions{})
	if err != nil || cm.Data["message"] != "Hello from revision B" || cm.UID != uid {
		t.Fatalf("revision 2 did not take the ConfigMap over in place: %v (uid %s, was %s)", cm.Data, cm.UID, uid)
	}

	// A third template: revision 2 is archived; with one archived revision
	// kept, revision 1 is pruned.
	edit("Hello from revision C")
	waitFor("revision 3 complete, revision 1 pruned", func() (bool, string) {
		s3, _ := cosState("my-app-3")
		_, l2 := cosState("my-app-2")
		gone := get(cosGVR, "my-app-1") == nil
		return s3 == "Ready" && l2 == "Archived" && gone, fmt.Sprintf("my-app-3 %s, my-app-2 %s, my-app-1 gone %v", s3, l2, gone)
	})

	// A Deployment whose probe never passes: nothing runs pods on this
	// control plane, so it never becomes available. One minute of budget.
	run(`apiVersion: olm.operatorframework.io/v1
kind: ClusterObjectDeployment
metadata:
  name: stuck
spec:
  progressDeadlineMinutes: 1
  template:
    spec:
      collisionProtection: Prevent
      phases:
      - name: workload
        objects:
        - type: InlineManifest
          inlineManifest:
            apiVersion: apps/v1
            kind: Deployment
            metadata:
              name: stuck
              namespace: default
            spec:
              replicas: 1
              selector:
                matchLabels: {app: stuck}
              template:
                metadata:
                  labels: {app: stuck}
                spec:
                  containers:
                  - name: app
                    image: nginx
`, "apply", "-f", "-")
	waitFor("ProgressDeadlineExceeded", func() (bool, string) {
		u := get(codGVR, "stuck")
		return str(u, "status", "state") == "ProgressDeadlineExceeded", str(u, "status", "state") + " " + str(u, "status", "reason")
	})
	run("", "patch", "clusterobjectdeployment", "stuck", "--type", "merge", "-p", `{"spec":{"progressDeadlineMinutes":30}}`)
	waitFor("the extended deadline clears it", func() (bool, string) {
		u := get(codGVR, "stuck")
		st := str(u, "status", "state")
		return st != "ProgressDeadlineExceeded" && st != "", st + " " + str(u, "status", "reason")
	})
	if u := get(cosGVR, "stuck-2"); u != nil {
		t.Error("editing the deadline created a revision")
	}
}
