package controller_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/rules"
)

var (
	opGVR  = schema.GroupVersionResource{Group: "rightsizing.kubex.ai", Version: "v1alpha1", Resource: "objectpatches"}
	waitUp = 60 * time.Second
)

func objectPatchMachine(t *testing.T) *fsm.Machine {
	t.Helper()
	return shippedMachines(t, nil, "objectpatch")[0]
}

// shippedMachines loads and compiles shipped policies by name; tune, when
// set, may change each loaded machine (a param's default) before compiling.
func shippedMachines(t *testing.T, tune func(*rules.Machine), names ...string) []*fsm.Machine {
	t.Helper()
	var out []*fsm.Machine
	for _, name := range names {
		f, diags := rules.LoadRef(name)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		if tune != nil {
			for _, m := range f.Machines {
				tune(m)
			}
		}
		ms, diags := fsm.Compile(f)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		out = append(out, ms...)
	}
	return out
}

// eventually polls cond until it holds or the deadline passes; the test
// waits on the API server, it does not time anything.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(waitUp)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: still not true after %s; last seen: %s", what, waitUp, last)
}

// The shipped ObjectPatch machine runs against a real kube-apiserver: the
// target is patched, status reaches Applied with Ready=True, an Event
// carries the reason, and a target created later is found by the periodic
// check.
func TestObjectPatchAgainstAPIServer(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cp := controlplane.StartForTest(t, controlplane.Options{CRDDirs: []string{filepath.Join(root, "spec", "crds")}})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	kc := kubernetes.NewForConfigOrDie(cp.Config)
	dyn := dynamic.NewForConfigOrDie(cp.Config)
	if _, err := kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := kc.CoreV1().ConfigMaps("demo").Create(ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "settings", Labels: map[string]string{"app": "demo"}},
		Data:       map[string]string{"a": "1"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	client, err := kube.New(cp.Config, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctrl, err := controller.New(client, []*fsm.Machine{objectPatchMachine(t)}, controller.Options{
		Workers: 2,
		Events:  kube.NewEvents(client, "statecraft", time.Now),
	})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()

	patch := func(name, target, interval string) {
		op := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
			"metadata": map[string]any{"name": name, "namespace": "demo"},
			"spec": map[string]any{
				"requeueInterval": interval,
				"targetRef":       map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": target},
				"patch":           map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "statecraft"}}, "data": map[string]any{"b": "2"}},
			},
		}}
		if _, err := dyn.Resource(opGVR).Namespace("demo").Create(ctx, op, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	statusOf := func(name string) (map[string]any, string) {
		u, err := dyn.Resource(opGVR).Namespace("demo").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err.Error()
		}
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		return st, jsonish(st)
	}

	patch("settings-patch", "settings", "1s")
	eventually(t, "settings-patch Applied", func() (bool, string) {
		st, s := statusOf("settings-patch")
		return st["state"] == "Applied" && st["reason"] == "Applied" && st["outcome"] == "Success", s
	})
	cm, err := kc.CoreV1().ConfigMaps("demo").Get(ctx, "settings", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.Labels["managed-by"] != "statecraft" || cm.Labels["app"] != "demo" || cm.Data["b"] != "2" || cm.Data["a"] != "1" {
		t.Fatalf("target after apply: labels %v data %v", cm.Labels, cm.Data)
	}
	// The Event is the decision record: it names the clause that decided.
	eventually(t, "an Applied event naming its deciding clause", func() (bool, string) {
		evs, err := kc.CoreV1().Events("demo").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		var seen []string
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == "settings-patch" && e.Reason == "Applied" {
				if strings.Contains(e.Message, `by "apply" because drifted = true`) {
					return true, ""
				}
				seen = append(seen, e.Message)
			}
		}
		return false, jsonish(seen)
	})

	// A target that appears later is found by the next check.
	patch("late-patch", "late", "1s")
	eventually(t, "late-patch TargetNotFound", func() (bool, string) {
		st, s := statusOf("late-patch")
		return st["reason"] == "TargetNotFound", s
	})
	if _, err := kc.CoreV1().ConfigMaps("demo").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "late-patch Applied", func() (bool, string) {
		st, s := statusOf("late-patch")
		return st["state"] == "Applied", s
	})

	// A metadata-only edit of the ObjectPatch starts no new cycle.
	before, _ := statusOf("settings-patch")
	if _, err := dyn.Resource(opGVR).Namespace("demo").Patch(ctx, "settings-patch", types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"team":"x"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond) // let a reconcile happen, if one would
	after, _ := statusOf("settings-patch")
	if before["observedGeneration"] != after["observedGeneration"] || before["lastAppliedTime"] != after["lastAppliedTime"] {
		t.Errorf("a metadata edit started a new cycle: %v -> %v", before, after)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n, _ := ctrl.Stats(); n == 0 {
		t.Fatal("no reconcile ran")
	}
}

func jsonish(v any) string { return fmt.Sprint(v) }
