package controller_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/internal/controlplane"
)

// The custom resources of spec/bad-input.md at and beyond every limit, on
// kube-apiserver (issue 18 item 4; the simulator's side is
// conformance/objectpatch/invalid-patch and cost-limit): what the CRD can
// refuse, the server refuses with a message naming the limit, and nothing
// reaches the engine; what it accepts gets a status reason from the engine
// (Applied at the limits); and the engine keeps serving every other
// object: a patch applied before the bad input is re-applied after an
// edit, and one created after it is applied.
func TestBadInputLimitsOnKube(t *testing.T) {
	ns := uniq("bad-input-e2e")
	e := newEnv(t, ns)
	// One Deployment per row that patches one: two patches of one
	// container would contend for its claim.
	replicas := int32(1)
	for _, name := range []string{"ops-100", "path-1024", "selector-1024", "selector-cost"} {
		if _, err := e.kc.AppsV1().Deployments(ns).Create(e.ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
					Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "busybox"}}},
				},
			},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.createCM(ns, "before", nil)
	e.createCM(ns, "after", nil)
	e.createCM(ns, "big", nil)
	e.createCM(ns, "deep", nil)
	e.createCM(ns, "utf8", nil)
	start(t, e.cp.Config, controller.Options{Namespace: ns})
	e.mustCreateOP(ns, "before", "before", nil)
	e.waitState(ns, "before", "Applied", "Applied")

	deployment := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "set per row"}
	ops := func(n int, path, selector string) map[string]any {
		var list []any
		for i := 0; i < n; i++ {
			list = append(list, map[string]any{"op": "replace", "path": path, "selector": selector, "value": "nginx"})
		}
		return map[string]any{"targetRef": deployment, "patch": nil, "jsonPatch": list}
	}
	image := "/spec/template/spec/containers/@/image"
	sel := `item.name == "app"`
	// A path of exactly n characters: image's path with a long member
	// name for add (the member need not exist).
	pathOf := func(n int) string {
		p := "/spec/template/spec/containers/@/"
		return p + strings.Repeat("x", n-len(p))
	}
	selectorOf := func(n int) string { return sel + strings.Repeat(" ", n-len(sel)) }
	costly, err := os.ReadFile(filepath.Join(mustRoot(t), "spec", "conformance", "objectpatch", "cost-limit.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	costlySelector := ""
	for _, l := range strings.Split(string(costly), "\n") {
		if s, ok := strings.CutPrefix(strings.TrimSpace(l), "selector: "); ok {
			costlySelector = strings.Trim(s, `"`)
		}
	}
	if len(costlySelector) < 500 || len(costlySelector) > 1024 {
		t.Fatalf("the costly selector of cost-limit.yaml is %d characters", len(costlySelector))
	}
	nest := func(depth int) map[string]any {
		v := map[string]any{"leaf": "x"}
		for i := 0; i < depth; i++ {
			v = map[string]any{"n": v}
		}
		return v
	}

	for _, c := range []struct {
		name    string
		spec    map[string]any
		refused string // the server refuses, with this in its message
		state   string // else the engine's state for it
		reason  string
		message string // in status.message
	}{
		{name: "ops-100", spec: ops(100, image, sel), state: "Applied", reason: "Applied"},
		{name: "ops-101", spec: ops(101, image, sel), refused: "must have at most 100 items"},
		{name: "path-1024", spec: map[string]any{"targetRef": deployment, "jsonPatch": []any{map[string]any{"op": "add", "path": pathOf(1024), "selector": sel, "value": "v"}}}, state: "Error", reason: "PatchNotApplied"},
		{name: "path-1025", spec: map[string]any{"targetRef": deployment, "jsonPatch": []any{map[string]any{"op": "add", "path": pathOf(1025), "selector": sel, "value": "v"}}}, refused: "may not be more than 1024 bytes"},
		{name: "selector-1024", spec: ops(1, image, selectorOf(1024)), state: "Applied", reason: "Applied"},
		{name: "selector-1025", spec: ops(1, image, selectorOf(1025)), refused: "may not be more than 1024 bytes"},
		{name: "selector-cost", spec: map[string]any{"targetRef": deployment, "jsonPatch": []any{map[string]any{"op": "add", "path": "/spec/template/spec/containers/@/workingDir", "selector": costlySelector, "value": "/work"}}},
			state: "Error", reason: "InvalidPatch", message: "cost limit exceeded"},
		// 1.2 MiB of data: a custom resource the server stores, a
		// ConfigMap it refuses (at most 1 MiB).
		{name: "big", spec: map[string]any{"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "big"},
			"patch": map[string]any{"data": map[string]any{"big": strings.Repeat("b", 1200<<10)}}}, state: "Error", reason: "PreflightRejected", message: "may not be more than 1048576 bytes"},
		// Past the 3 MiB request limit.
		{name: "huge", spec: map[string]any{"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "big"},
			"patch": map[string]any{"data": map[string]any{"big": strings.Repeat("h", 3<<20+1)}}}, refused: "too large"},
		{name: "deep", spec: map[string]any{"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "deep"},
			"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"deep": "yes"}}, "deep": nest(90)}}, state: "Error", reason: "PatchNotApplied"},
		// Invalid UTF-8 in a label value: JSON carries it as U+FFFD, which
		// no label value may hold.
		{name: "utf8", spec: map[string]any{"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "utf8"},
			"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"bad": "a\xffb"}}}}, state: "Error", reason: "PreflightRejected", message: "a valid label must be"},
	} {
		spec := c.spec
		if spec["patch"] == nil {
			delete(spec, "patch")
		}
		if ref := spec["targetRef"].(map[string]any); ref["kind"] == "Deployment" {
			// Its own Deployment (those of refused rows need none).
			spec["targetRef"] = map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": c.name}
		}
		_, err := e.dyn.Resource(opGVR).Namespace(ns).Create(e.ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
			"metadata": map[string]any{"name": c.name, "namespace": ns},
			"spec":     spec,
		}}, metav1.CreateOptions{})
		if c.refused != "" {
			if err == nil || !strings.Contains(err.Error(), c.refused) {
				t.Errorf("%s: created: %v; want refused with %q", c.name, trimErr(err), c.refused)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: refused: %v", c.name, trimErr(err))
			continue
		}
		// Every accepted one gets a state and a reason; those of the row
		// when the row names them.
		var st map[string]any
		deadline := time.Now().Add(waitUp)
		for time.Now().Before(deadline) {
			st = e.status(ns, c.name)
			if st["reason"] != nil && st["state"] != "Pending" && (c.state == "" || st["state"] == c.state) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		msg, _ := st["message"].(string)
		switch {
		case st["reason"] == nil || st["reason"] == "":
			t.Errorf("%s: no status reason: %v", c.name, jsonish(st))
		case c.state != "" && st["state"] != c.state, c.reason != "" && st["reason"] != c.reason, !strings.Contains(msg, c.message):
			t.Errorf("%s: state %v reason %v message %.300q; want %s %s %q", c.name, st["state"], st["reason"], msg, c.state, c.reason, c.message)
		default:
			t.Logf("%s: %v / %v: %.200s", c.name, st["state"], st["reason"], msg)
		}
	}

	// The engine keeps serving the others.
	if _, err := e.dyn.Resource(opGVR).Namespace(ns).Patch(e.ctx, "before", types.MergePatchType,
		[]byte(`{"spec":{"patch":{"metadata":{"labels":{"edited":"yes"}}}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	e.mustCreateOP(ns, "after", "after", nil)
	e.waitState(ns, "after", "Applied", "Applied")
	eventually(t, "the edited patch re-applied", func() (bool, string) {
		cm := e.cm(ns, "before")
		return cm.Labels["edited"] == "yes", fmt.Sprint(cm.Labels)
	})
}

func mustRoot(t *testing.T) string {
	t.Helper()
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func trimErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
