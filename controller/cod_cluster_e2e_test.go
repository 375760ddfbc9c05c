package controller_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/internal/controlplane"
)

// TestClusterObjectDeploymentOnALocalCluster runs the rollout policies on a
// local cluster with its controllers (internal/controlplane's Controllers:
// kube-controller-manager, kube-scheduler, kwok). Deleting the seed's
// ClusterObjectDeployment lets the garbage collector remove its revisions
// and, through them, their objects; applying it again rolls revision 1 out
// anew. A Deployment in a ClusterObjectDeployment is scheduled on the kwok
// node, becomes Available, and its probe completes the rollout.
func TestClusterObjectDeploymentOnALocalCluster(t *testing.T) {
	path := kubectlPath(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cp := controlplane.StartForTest(t, controlplane.Options{
		CRDDirs: []string{filepath.Join(root, "spec", "crds")}, KubeconfigPath: kubeconfig, Controllers: true,
	})
	run := func(stdin string, args ...string) string {
		t.Helper()
		out, err := runKubectl(context.Background(), path, kubeconfig, stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	ctx := context.Background()
	kc := kubernetes.NewForConfigOrDie(cp.Config)
	dyn := dynamic.NewForConfigOrDie(cp.Config)
	start(t, cp.Config, controller.Options{}, shippedMachines(t, nil, "clusterobjectdeployment", "clusterobjectset")...)

	get := func(name string, cos bool) *unstructured.Unstructured {
		gvr := codGVR
		if cos {
			gvr = cosGVR
		}
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
		v, _, _ := unstructured.NestedFieldNoCopy(u.Object, path...)
		if v == nil {
			return ""
		}
		return fmt.Sprint(v)
	}
	waitFor := func(what string, d time.Duration, cond func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(d)
		last := ""
		for time.Now().Before(deadline) {
			ok, state := cond()
			if ok {
				return
			}
			last = state
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("%s: not reached in %v; last seen: %s", what, d, last)
	}
	rolledOut := func(cod, cos string) func() (bool, string) {
		return func() (bool, string) {
			s, d := get(cos, true), get(cod, false)
			return str(s, "status", "state") == "Ready" && str(d, "status", "state") == "Progressed" && str(d, "status", "latestRevision") == "1",
				fmt.Sprintf("%s %s, %s %s (latest revision %s)", cos, str(s, "status", "state"), cod, str(d, "status", "state"), str(d, "status", "latestRevision"))
		}
	}

	example, err := os.ReadFile(filepath.Join(root, "examples", "cod", "my-app.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run(string(example), "apply", "-f", "-")
	waitFor("revision 1 rolled out", 2*time.Minute, rolledOut("my-app", "my-app-1"))
	firstRevision := get("my-app-1", true).GetUID()
	cm, err := kc.CoreV1().ConfigMaps("default").Get(ctx, "my-app-settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	firstCM := cm.UID

	// Deleted: the garbage collector removes the revision, and with it the
	// ConfigMap the revision controls.
	run("", "delete", "clusterobjectdeployment", "my-app", "--wait=true")
	waitFor("the revision and its ConfigMap are garbage-collected", 2*time.Minute, func() (bool, string) {
		_, cmErr := kc.CoreV1().ConfigMaps("default").Get(ctx, "my-app-settings", metav1.GetOptions{})
		return get("my-app-1", true) == nil && apierrors.IsNotFound(cmErr), fmt.Sprintf("my-app-1 present %v, ConfigMap: %v", get("my-app-1", true) != nil, cmErr)
	})

	// Applied again: revision 1 again, new objects.
	run(string(example), "apply", "-f", "-")
	waitFor("revision 1 rolled out again", 2*time.Minute, rolledOut("my-app", "my-app-1"))
	if u := get("my-app-1", true); u.GetUID() == firstRevision {
		t.Errorf("my-app-1 is the revision of the deleted ClusterObjectDeployment (uid %s)", firstRevision)
	}
	cm, err = kc.CoreV1().ConfigMaps("default").Get(ctx, "my-app-settings", metav1.GetOptions{})
	if err != nil || cm.UID == firstCM || cm.Data["message"] != "Hello from revision A" {
		t.Fatalf("ConfigMap after the new revision 1: %v (uid %v, first %v)", err, cm.UID, firstCM)
	}

	// A Deployment, probed for Available: pods scheduled on the kwok node
	// and made Ready there make it Available, and the probe completes the
	// rollout.
	run(`apiVersion: olm.operatorframework.io/v1
kind: ClusterObjectDeployment
metadata:
  name: web
spec:
  progressDeadlineMinutes: 5
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
              name: web
              namespace: default
              labels: {app: web}
            spec:
              replicas: 2
              selector:
                matchLabels: {app: web}
              template:
                metadata:
                  labels: {app: web}
                spec:
                  containers:
                  - name: web
                    image: nginx
      progressionProbes:
      - selector:
          type: GroupKind
          groupKind: {group: apps, kind: Deployment}
        assertions:
        - type: ConditionEqual
          conditionEqual: {type: Available, status: "True"}
        - type: FieldsEqual
          fieldsEqual: {fieldA: .spec.replicas, fieldB: .status.readyReplicas}
`, "apply", "-f", "-")
	waitFor("the Deployment's rollout completes through its probe", 3*time.Minute, func() (bool, string) {
		d, err := kc.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		available := false
		ready := int32(0)
		if err == nil {
			ready = d.Status.ReadyReplicas
			for _, c := range d.Status.Conditions {
				if c.Type == "Available" && c.Status == "True" {
					available = true
				}
			}
		}
		s, cod := get("web-1", true), get("web", false)
		return available && ready == 2 && str(s, "status", "state") == "Ready" && str(s, "status", "completedAt") != "" && str(cod, "status", "state") == "Progressed",
			fmt.Sprintf("Deployment available %v (%d ready, %v), web-1 %s %s, web %s", available, ready, err, str(s, "status", "state"), str(s, "status", "message"), str(cod, "status", "state"))
	})
	pods, err := kc.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(pods.Items) != 2 {
		t.Fatalf("pods: %v, %v", pods, err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != controlplane.NodeName || p.Status.Phase != "Running" {
			t.Errorf("pod %s on %q, %s", p.Name, p.Spec.NodeName, p.Status.Phase)
		}
	}
}
