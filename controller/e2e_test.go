package controller_test

// End-to-end tests of the ObjectPatch policy run by the controller against
// a real kube-apiserver: the seed's examples applied with kubectl, drift
// reported and repaired, TargetAccessDenied under real RBAC, a restart in
// the middle of a drift streak, leader election, sharding, and faults
// injected into the HTTP transport. One control plane is shared by the
// tests of this file (started on first use, stopped by TestMain); each test
// works in its own namespaces and limits its controllers to them.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/controlplane"
)

var copGVR = schema.GroupVersionResource{Group: "rightsizing.kubex.ai", Version: "v1alpha1", Resource: "clusterobjectpatches"}

var shared struct {
	once sync.Once
	cp   *controlplane.ControlPlane
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.cp != nil {
		if err := shared.cp.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop control plane:", err)
		}
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
	if statecraftBin.path != "" {
		os.RemoveAll(filepath.Dir(statecraftBin.path))
	}
	os.Exit(code)
}

// sharedControlPlane starts (once) the control plane the tests of this file
// share, with spec/crds installed and an admin kubeconfig written.
func sharedControlPlane(t testing.TB) *controlplane.ControlPlane {
	t.Helper()
	controlplane.SkipOrFail(t)
	shared.once.Do(func() {
		root, err := controlplane.RepoRoot()
		if err != nil {
			shared.err = err
			return
		}
		if shared.dir, err = os.MkdirTemp("", "statecraft-e2e-"); err != nil {
			shared.err = err
			return
		}
		// Only the ObjectPatch CRDs: the other policies' CRDs are not these
		// tests' business.
		crdDir := filepath.Join(shared.dir, "crds")
		if shared.err = os.MkdirAll(crdDir, 0o755); shared.err != nil {
			return
		}
		for _, f := range []string{"rightsizing.kubex.ai_objectpatches.yaml", "rightsizing.kubex.ai_clusterobjectpatches.yaml"} {
			data, err := os.ReadFile(filepath.Join(root, "spec", "crds", f))
			if err == nil {
				err = os.WriteFile(filepath.Join(crdDir, f), data, 0o644)
			}
			if err != nil {
				shared.err = err
				return
			}
		}
		shared.cp, shared.err = controlplane.Start(context.Background(), controlplane.Options{
			CRDDirs:        []string{crdDir},
			KubeconfigPath: filepath.Join(shared.dir, "kubeconfig"),
		})
	})
	if shared.err != nil {
		if errors.Is(shared.err, controlplane.ErrMissingBinaries) && !controlplane.Required() {
			t.Skip(shared.err)
		}
		t.Fatalf("start control plane: %v", shared.err)
	}
	return shared.cp
}

var uniqs = map[string]int{}

// uniq returns name, or name-N when this process already used it: the
// control plane outlives a test (-count=2 runs it again), and a namespace
// is never deleted without kube-controller-manager.
func uniq(name string) string {
	uniqs[name]++
	if n := uniqs[name]; n > 1 {
		return fmt.Sprintf("%s-%d", name, n)
	}
	return name
}

// env is what a test needs to talk to the shared API server as admin.
type env struct {
	t   *testing.T
	cp  *controlplane.ControlPlane
	ctx context.Context
	kc  kubernetes.Interface
	dyn dynamic.Interface
}

func newEnv(t *testing.T, namespaces ...string) *env {
	cp := sharedControlPlane(t)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := &env{t: t, cp: cp, ctx: ctx, kc: kubernetes.NewForConfigOrDie(cp.Config), dyn: dynamic.NewForConfigOrDie(cp.Config)}
	for _, ns := range namespaces {
		if _, err := e.kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// running is a controller started by a test.
type running struct {
	ctrl   *controller.Controller
	cancel context.CancelFunc
	done   chan struct{} // closed when Run returned
	err    error         // what Run returned
}

// run runs fn (Run or RunElected) in a goroutine until ctx ends; the test's
// cleanup stops it.
func run(t *testing.T, ctrl *controller.Controller, fn func(context.Context) error) *running {
	ctx, cancel := context.WithCancel(context.Background())
	r := &running{ctrl: ctrl, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(r.done)
		r.err = fn(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-r.done:
		case <-time.After(waitUp):
		}
	})
	return r
}

// stop cancels the controller's context and waits for it to return.
func (r *running) stop(t *testing.T) {
	t.Helper()
	r.cancel()
	select {
	case <-r.done:
		if r.err != nil {
			t.Errorf("controller: %v", r.err)
		}
	case <-time.After(waitUp):
		t.Fatal("controller did not stop")
	}
}

// newController makes a controller acting as cfg's user over ms (the
// shipped ObjectPatch policy when none is given), with 2 workers unless
// opts says otherwise.
func newController(t *testing.T, cfg *rest.Config, opts controller.Options, ms ...*fsm.Machine) *controller.Controller {
	t.Helper()
	client, err := kube.New(cfg, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if opts.Workers == 0 {
		opts.Workers = 2
	}
	if len(ms) == 0 {
		ms = []*fsm.Machine{objectPatchMachine(t)}
	}
	ctrl, err := controller.New(client, ms, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ctrl
}

// start runs a controller over cfg (see newController) until the test
// ends or stop is called.
func start(t *testing.T, cfg *rest.Config, opts controller.Options, ms ...*fsm.Machine) *running {
	t.Helper()
	ctrl := newController(t, cfg, opts, ms...)
	return run(t, ctrl, ctrl.Run)
}

func (e *env) createCM(ns, name string, data map[string]string) {
	e.t.Helper()
	if _, err := e.kc.CoreV1().ConfigMaps(ns).Create(e.ctx, &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}}, Data: data,
	}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) cm(ns, name string) *corev1.ConfigMap {
	e.t.Helper()
	cm, err := e.kc.CoreV1().ConfigMaps(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return cm
}

// createOP creates an ObjectPatch that labels ConfigMap target with
// managed-by=statecraft; extra is merged into its spec.
func (e *env) createOP(ns, name, target string, extra map[string]any) error {
	spec := map[string]any{
		"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": target},
		"patch":     map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "statecraft"}}},
	}
	for k, v := range extra {
		spec[k] = v
	}
	_, err := e.dyn.Resource(opGVR).Namespace(ns).Create(e.ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec":     spec,
	}}, metav1.CreateOptions{})
	return err
}

func (e *env) mustCreateOP(ns, name, target string, extra map[string]any) {
	e.t.Helper()
	if err := e.createOP(ns, name, target, extra); err != nil {
		e.t.Fatal(err)
	}
}

// op reads an ObjectPatch (ns != "") or a ClusterObjectPatch (ns == "").
func (e *env) op(ns, name string) (*unstructured.Unstructured, error) {
	if ns == "" {
		return e.dyn.Resource(copGVR).Get(e.ctx, name, metav1.GetOptions{})
	}
	return e.dyn.Resource(opGVR).Namespace(ns).Get(e.ctx, name, metav1.GetOptions{})
}

func (e *env) status(ns, name string) map[string]any {
	e.t.Helper()
	u, err := e.op(ns, name)
	if err != nil {
		e.t.Fatal(err)
	}
	st, _, _ := unstructured.NestedMap(u.Object, "status")
	return st
}

// waitState polls until the patch's status has state and reason (reason ""
// matches any) and returns that status.
func (e *env) waitState(ns, name, state, reason string) map[string]any {
	e.t.Helper()
	var st map[string]any
	eventually(e.t, fmt.Sprintf("%s/%s %s/%s", ns, name, state, reason), func() (bool, string) {
		u, err := e.op(ns, name)
		if err != nil {
			return false, err.Error()
		}
		st, _, _ = unstructured.NestedMap(u.Object, "status")
		return st["state"] == state && (reason == "" || st["reason"] == reason), jsonish(st)
	})
	return st
}

func condition(st map[string]any, typ string) string {
	conds, _ := st["conditions"].([]any)
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ {
			return fmt.Sprint(m["status"])
		}
	}
	return ""
}

func (e *env) mergePatchCM(ns, name, body string) {
	e.t.Helper()
	if _, err := e.kc.CoreV1().ConfigMaps(ns).Patch(e.ctx, name, types.MergePatchType, []byte(body), metav1.PatchOptions{FieldManager: "another-actor"}); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) annotateReapply(ns, name string) {
	e.t.Helper()
	if _, err := e.dyn.Resource(opGVR).Namespace(ns).Patch(e.ctx, name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"automation.kubex.ai/apply-patch":"true"}}}`), metav1.PatchOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// kubectl runs /usr/bin/kubectl (or kubectl on $PATH) with the control
// plane's admin kubeconfig.
func (e *env) kubectl(stdin string, args ...string) string {
	e.t.Helper()
	out, err := e.kubectlErr(stdin, args...)
	if err != nil {
		e.t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// kubectlErr is kubectl that returns the command's failure.
func (e *env) kubectlErr(stdin string, args ...string) (string, error) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, waitUp)
	defer cancel()
	return runKubectl(ctx, kubectlPath(e.t), e.cp.KubeconfigPath, stdin, args...)
}

// kubectlPath returns /usr/bin/kubectl, or kubectl on $PATH; without one
// the test is skipped, or fails when a control plane is required.
func kubectlPath(t testing.TB) string {
	t.Helper()
	path := "/usr/bin/kubectl"
	if _, err := os.Stat(path); err != nil {
		if path, err = exec.LookPath("kubectl"); err != nil {
			if controlplane.Required() {
				t.Fatalf("%s is 1 but there is no kubectl: %v", controlplane.EnvRequire, err)
			}
			t.Skipf("no kubectl: %v", err)
		}
	}
	return path
}

func runKubectl(ctx context.Context, path, kubeconfig, stdin string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, path, append([]string{"--kubeconfig", kubeconfig}, args...)...)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// ownControlPlane starts a control plane for this test alone, with every
// CRD statecraft ships, and returns it with a kubectl bound to it that
// fails the test when the command fails.
func ownControlPlane(t *testing.T) (*controlplane.ControlPlane, func(stdin string, args ...string) string) {
	t.Helper()
	path := kubectlPath(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cp := controlplane.StartForTest(t, controlplane.Options{CRDDirs: []string{filepath.Join(root, "spec", "crds")}, KubeconfigPath: kubeconfig})
	kubectl := func(stdin string, args ...string) string {
		t.Helper()
		out, err := runKubectl(context.Background(), path, kubeconfig, stdin, args...)
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return out
	}
	return cp, kubectl
}

// The seed's examples, applied verbatim with kubectl, each reach Applied
// and their targets hold the patch: the Deployment example of
// examples/objectpatch, the ClusterObjectPatch on the Namespace, the HPA and
// PDB patches, the selector operations, and a literal null stored by
// `kubectl apply --server-side` that removes a ConfigMap key.
func TestSeedExamplesWithKubectl(t *testing.T) {
	if uniq("patches-demo") != "patches-demo" {
		t.Skip("the seed's examples name their objects; they are applied once per control plane (-count=1)")
	}
	e := newEnv(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(root, "examples", "objectpatch")
	seed := filepath.Join("testdata", "seed")
	client, err := kube.New(e.cp.Config, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// No namespace limit: the ClusterObjectPatch is cluster-scoped.
	start(t, e.cp.Config, controller.Options{Events: kube.NewEvents(client, "statecraft", time.Now)})

	// In the seed's order: the Namespace, the Deployment, then its patch
	// (applying the folder at once would create the patch first, whose
	// target is then checked again only after requeueInterval, 5m).
	for _, f := range []string{"namespace.yaml", "deployment.yaml", "deployment-patch.yaml"} {
		e.kubectl("", "apply", "-f", filepath.Join(examples, f))
	}
	e.kubectl("", "apply", "-f", examples) // the folder as the README says: unchanged
	e.kubectl("", "apply", "-f", filepath.Join(seed, "clusterobjectpatch.yaml"))
	e.kubectl("", "apply", "-f", filepath.Join(seed, "hpa-pdb-targets.yaml"))
	e.kubectl("", "apply", "-f", filepath.Join(seed, "hpa-pdb-patches.yaml"))
	e.kubectl("", "apply", "-f", filepath.Join(seed, "selector-target.yaml"))
	e.kubectl("", "apply", "-f", filepath.Join(seed, "selector-operations.yaml"))
	e.kubectl("", "apply", "--server-side", "-f", filepath.Join(seed, "null-patch.yaml"))

	const ns = "patches-demo"
	for _, p := range []struct{ ns, name string }{
		{ns, "deployment-patch"}, {"", "namespace-patch"}, {ns, "hpa-patch"}, {ns, "pdb-patch"}, {ns, "selector-patch"}, {ns, "null-patch"},
	} {
		st := e.waitState(p.ns, p.name, "Applied", "Applied")
		if st["outcome"] != "Success" || condition(st, "Ready") != "True" || condition(st, "Drifted") != "False" {
			t.Errorf("%s: status %v", p.name, st)
		}
	}

	dep, err := e.kc.AppsV1().Deployments(ns).Get(e.ctx, "application", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if dep.Labels["managed-by"] != "kubex" || dep.Labels["app"] != "application" {
		t.Errorf("Deployment application labels %v", dep.Labels)
	}
	nsObj, err := e.kc.CoreV1().Namespaces().Get(e.ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if nsObj.Labels["managed-by"] != "kubex" {
		t.Errorf("Namespace labels %v", nsObj.Labels)
	}
	if cop, err := e.op("", "namespace-patch"); err != nil || cop.GetNamespace() != "" {
		t.Errorf("ClusterObjectPatch: %v namespace %q", err, cop.GetNamespace())
	}
	hpa, err := e.kc.AutoscalingV2().HorizontalPodAutoscalers(ns).Get(e.ctx, "application", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas != 2 || hpa.Spec.MaxReplicas != 10 {
		t.Errorf("HPA spec min %v max %d", hpa.Spec.MinReplicas, hpa.Spec.MaxReplicas)
	}
	pdb, err := e.kc.PolicyV1().PodDisruptionBudgets(ns).Get(e.ctx, "application", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pdb.Spec.UnhealthyPodEvictionPolicy == nil || *pdb.Spec.UnhealthyPodEvictionPolicy != "AlwaysAllow" || pdb.Spec.MinAvailable == nil {
		t.Errorf("PDB spec %+v", pdb.Spec)
	}

	sel, err := e.kc.AppsV1().Deployments(ns).Get(e.ctx, "selector-demo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cs := sel.Spec.Template.Spec.Containers
	if sel.Labels["managed-by"] != "kubex" || len(cs) != 2 || cs[0].Name != "sidecar" || cs[1].Name != "app" {
		t.Fatalf("selector-demo: labels %v containers %+v", sel.Labels, cs)
	}
	if app := cs[1]; fmt.Sprint(app.Args) != "[--serve]" || app.WorkingDir != "/work" || app.Stdin {
		t.Errorf("container app: args %v workingDir %q stdin %v", app.Args, app.WorkingDir, app.Stdin)
	}
	if side := cs[0]; fmt.Sprint(side.Args) != "[--keep]" || side.WorkingDir != "" || !side.Stdin {
		t.Errorf("container sidecar changed: args %v workingDir %q stdin %v", side.Args, side.WorkingDir, side.Stdin)
	}

	// The literal null is stored under spec.patch and removes the key.
	np, err := e.op(ns, "null-patch")
	if err != nil {
		t.Fatal(err)
	}
	data, found, _ := unstructured.NestedMap(np.Object, "spec", "patch", "data")
	if v, ok := data["obsolete"]; !found || !ok || v != nil {
		t.Errorf("spec.patch.data of null-patch = %v (found %v): the literal null is not stored", data, found)
	}
	if cm := e.cm(ns, "null-target"); cm.Data["keep"] != "1" || len(cm.Data) != 1 {
		t.Errorf("null-target data %v, want only keep", cm.Data)
	}

	// kubectl replace updates an existing patch, literal null included,
	// and does not create one.
	manifest := e.kubectl("", "get", "objectpatch", "null-patch", "-n", ns, "-o", "json")
	e.kubectl(manifest, "replace", "-f", "-")
	if np, err := e.op(ns, "null-patch"); err != nil {
		t.Fatal(err)
	} else if data, _, _ := unstructured.NestedMap(np.Object, "spec", "patch", "data"); data == nil || data["obsolete"] != nil {
		t.Errorf("after kubectl replace: spec.patch.data %v", data)
	} else if _, ok := data["obsolete"]; !ok {
		t.Errorf("kubectl replace dropped the literal null: %v", data)
	}
	newPatch := strings.Replace(strings.Replace(mustRead(t, filepath.Join(seed, "null-patch.yaml")), "name: null-patch", "name: replace-creates-nothing", 1), "name: null-target", "name: no-target", 1)
	if out, err := e.kubectlErr(newPatch[strings.Index(newPatch, "---"):], "replace", "-f", "-"); err == nil || !strings.Contains(out, "NotFound") && !strings.Contains(out, "not found") {
		t.Errorf("kubectl replace of a patch that does not exist: %v\n%s", err, out)
	}
	if _, err := e.op(ns, "replace-creates-nothing"); !apierrors.IsNotFound(err) {
		t.Errorf("kubectl replace created a patch: %v", err)
	}

	// targetRef is immutable (the CRD's rule, enforced by the API server).
	_, err = e.dyn.Resource(opGVR).Namespace(ns).Patch(e.ctx, "deployment-patch", types.MergePatchType,
		[]byte(`{"spec":{"targetRef":{"name":"other"}}}`), metav1.PatchOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "targetRef is immutable") {
		t.Errorf("editing targetRef: %v, want Invalid: targetRef is immutable", err)
	}

	// kubectl reads the patches back with their printer columns.
	out := e.kubectl("", "get", "objectpatch", "-n", ns)
	for _, want := range []string{"deployment-patch", "hpa-patch", "pdb-patch", "selector-patch", "null-patch", "Applied"} {
		if !strings.Contains(out, want) {
			t.Errorf("kubectl get objectpatch: no %q in\n%s", want, out)
		}
	}
}

// reconcilesAfter waits until ctrl has run n more reconciles than it had
// when called: a deadline-bounded wait for "the controller looked again".
func reconcilesAfter(t *testing.T, ctrl *controller.Controller, n int64) {
	t.Helper()
	base, _ := ctrl.Stats()
	eventually(t, fmt.Sprintf("%d more reconciles", n), func() (bool, string) {
		got, _ := ctrl.Stats()
		return got >= base+n, fmt.Sprint(got - base)
	})
}

// Drift by another actor on the real API server: without spec.drift it is
// reported (NeedsUpdate, Drifted, Drifted=True) and not repaired until the
// reapply annotation, which is cleared; with spec.drift (short intervals,
// which the CRD accepts) it is repaired, the count kept.
func TestDriftReportedAndRepaired(t *testing.T) {
	ns := uniq("drift-e2e")
	e := newEnv(t, ns)
	e.createCM(ns, "report", map[string]string{"a": "1"})
	e.createCM(ns, "repair", map[string]string{"a": "1"})
	client, err := kube.New(e.cp.Config, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r := start(t, e.cp.Config, controller.Options{Namespace: ns, Events: kube.NewEvents(client, "statecraft", time.Now)})

	// The CRD's validation: 1s intervals are accepted, 0s and 25h are not.
	for _, bad := range []map[string]any{
		{"requeueInterval": "0s"},
		{"drift": map[string]any{"retryInterval": "25h"}},
		{"drift": map[string]any{"stabilizationWindow": "0s"}},
	} {
		if err := e.createOP(ns, "bad", "report", bad); !apierrors.IsInvalid(err) {
			t.Errorf("spec %v: err %v, want Invalid", bad, err)
		}
	}
	e.mustCreateOP(ns, "report-patch", "report", map[string]any{"requeueInterval": "1s"})
	e.mustCreateOP(ns, "repair-patch", "repair", map[string]any{"requeueInterval": "1s",
		"drift": map[string]any{"retryInterval": "1s", "retryAmount": int64(3), "stabilizationWindow": "1h"}})
	e.waitState(ns, "report-patch", "Applied", "Applied")
	applied := e.waitState(ns, "repair-patch", "Applied", "Applied")

	e.mergePatchCM(ns, "report", `{"metadata":{"labels":{"managed-by":null}}}`)
	e.mergePatchCM(ns, "repair", `{"metadata":{"labels":{"managed-by":"someone-else"}}}`)

	// Reported, not repaired.
	st := e.waitState(ns, "report-patch", "NeedsUpdate", "Drifted")
	if st["outcome"] != "Failure" || condition(st, "Drifted") != "True" || condition(st, "Ready") != "False" {
		t.Errorf("report-patch drifted: %v", st)
	}
	reconcilesAfter(t, r.ctrl, 6) // several 1s checks of both patches
	if cm := e.cm(ns, "report"); cm.Labels["managed-by"] != "" {
		t.Errorf("report-only drift was repaired: labels %v", cm.Labels)
	}
	if st := e.status(ns, "report-patch"); st["state"] != "NeedsUpdate" {
		t.Errorf("report-patch left NeedsUpdate without the annotation: %v", st)
	}
	// The reapply annotation repairs it once and is cleared.
	e.annotateReapply(ns, "report-patch")
	eventually(t, "report-patch reapplied and the annotation cleared", func() (bool, string) {
		u, err := e.op(ns, "report-patch")
		if err != nil {
			return false, err.Error()
		}
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		_, annotated := u.GetAnnotations()["automation.kubex.ai/apply-patch"]
		return st["state"] == "Applied" && !annotated, jsonish(st) + " " + jsonish(u.GetAnnotations())
	})
	if cm := e.cm(ns, "report"); cm.Labels["managed-by"] != "statecraft" {
		t.Errorf("report after reapply: labels %v", cm.Labels)
	}

	// Repaired automatically.
	eventually(t, "repair target repaired", func() (bool, string) {
		cm := e.cm(ns, "repair")
		st := e.status(ns, "repair-patch")
		return cm.Labels["managed-by"] == "statecraft" && st["state"] == "Applied" && fmt.Sprint(st["driftRetryCount"]) == "1",
			jsonish(cm.Labels) + " " + jsonish(st)
	})
	st = e.status(ns, "repair-patch")
	if _, has := st["nextDriftRetryTime"]; has && st["nextDriftRetryTime"] != nil {
		t.Errorf("nextDriftRetryTime kept after the repair: %v", st)
	}
	if st["lastAppliedTime"] == applied["lastAppliedTime"] && st["lastAppliedTime"] != nil {
		// Same second is possible; the Drifted event below proves the streak.
		t.Logf("lastAppliedTime unchanged (same second): %v", st["lastAppliedTime"])
	}
	eventually(t, "a Drifted event on repair-patch", func() (bool, string) {
		evs, err := e.kc.CoreV1().Events(ns).List(e.ctx, metav1.ListOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, ev := range evs.Items {
			if ev.InvolvedObject.Name == "repair-patch" && ev.Reason == "Drifted" {
				return true, ""
			}
		}
		return false, fmt.Sprint(len(evs.Items), " events")
	})
}

// TargetAccessDenied with real RBAC: the controller runs as a user allowed
// only what it needs on ObjectPatches (not on the target); the patch ends in
// Error/TargetAccessDenied and the target is untouched. Granting get and
// patch on the target and setting the reapply annotation applies it and
// clears the annotation.
func TestTargetAccessDeniedWithRBAC(t *testing.T) {
	ns, user, role := uniq("rbac-e2e"), uniq("statecraft-restricted"), uniq("statecraft-e2e-objectpatches")
	e := newEnv(t, ns)
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{"rightsizing.kubex.ai"}, Resources: []string{"objectpatches", "clusterobjectpatches"}, Verbs: []string{"get", "list", "watch", "patch"}},
		{APIGroups: []string{"rightsizing.kubex.ai"}, Resources: []string{"objectpatches/status", "clusterobjectpatches/status"}, Verbs: []string{"get", "patch", "update"}},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
	}
	if _, err := e.kc.RbacV1().ClusterRoles().Create(e.ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: role}, Rules: rules}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.kc.RbacV1().ClusterRoleBindings().Create(e.ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: role},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role},
		Subjects:   []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cfg, err := e.cp.AddUser(user)
	if err != nil {
		t.Fatal(err)
	}
	restricted := kubernetes.NewForConfigOrDie(cfg)
	if _, err := restricted.CoreV1().ConfigMaps(ns).Get(e.ctx, "guarded", metav1.GetOptions{}); !apierrors.IsForbidden(err) {
		t.Fatalf("restricted user reading a ConfigMap: %v, want Forbidden", err)
	}

	e.createCM(ns, "guarded", map[string]string{"a": "1"})
	e.mustCreateOP(ns, "guarded-patch", "guarded", nil)
	client, err := kube.New(cfg, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start(t, cfg, controller.Options{Namespace: ns, Events: kube.NewEvents(client, "statecraft", time.Now)})

	st := e.waitState(ns, "guarded-patch", "Error", "TargetAccessDenied")
	if st["outcome"] != "Failure" || condition(st, "Ready") != "False" || !strings.Contains(fmt.Sprint(st["message"]), "forbidden") {
		t.Errorf("access denied status %v", st)
	}
	if cm := e.cm(ns, "guarded"); cm.Labels["managed-by"] != "" {
		t.Fatalf("target patched without access: %v", cm.Labels)
	}

	// Grant get and patch on the target's kind, wait until the API server
	// enforces the grant, then ask for a new cycle.
	if _, err := e.kc.RbacV1().Roles(ns).Create(e.ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "targets"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "patch"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.kc.RbacV1().RoleBindings(ns).Create(e.ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "targets"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "targets"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the grant is enforced", func() (bool, string) {
		_, err := restricted.CoreV1().ConfigMaps(ns).Get(e.ctx, "guarded", metav1.GetOptions{})
		return err == nil, fmt.Sprint(err)
	})
	if st := e.status(ns, "guarded-patch"); st["reason"] != "TargetAccessDenied" {
		t.Errorf("left TargetAccessDenied without the annotation: %v", st)
	}
	e.annotateReapply(ns, "guarded-patch")
	eventually(t, "guarded-patch Applied, annotation cleared", func() (bool, string) {
		u, err := e.op(ns, "guarded-patch")
		if err != nil {
			return false, err.Error()
		}
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		_, annotated := u.GetAnnotations()["automation.kubex.ai/apply-patch"]
		return st["state"] == "Applied" && !annotated, jsonish(st) + " " + jsonish(u.GetAnnotations())
	})
	if cm := e.cm(ns, "guarded"); cm.Labels["managed-by"] != "statecraft" || cm.Data["a"] != "1" {
		t.Errorf("target after access restored: labels %v data %v", cm.Labels, cm.Data)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func parseTime(t *testing.T, v any) time.Time {
	t.Helper()
	ts, err := time.Parse(time.RFC3339, fmt.Sprint(v))
	if err != nil {
		t.Fatalf("time %v: %v", v, err)
	}
	return ts
}

// The controller stopped in the middle of a drift streak (driftRetryCount
// 1, nextDriftRetryTime pending) and a new one started resume from status:
// the repair waits for the stored deadline and the count is kept.
func TestRestartMidDriftStreak(t *testing.T) {
	ns := uniq("restart-e2e")
	e := newEnv(t, ns)
	e.createCM(ns, "target", map[string]string{"a": "1"})
	first := start(t, e.cp.Config, controller.Options{Namespace: ns})
	e.mustCreateOP(ns, "streak", "target", map[string]any{"requeueInterval": "1s",
		"drift": map[string]any{"retryInterval": "8s", "retryAmount": int64(3), "stabilizationWindow": "1h"}})
	e.waitState(ns, "streak", "Applied", "Applied")
	e.mergePatchCM(ns, "target", `{"metadata":{"labels":{"managed-by":"someone-else"}}}`)
	var st map[string]any
	eventually(t, "drift streak started", func() (bool, string) {
		st = e.status(ns, "streak")
		return st["state"] == "NeedsUpdate" && fmt.Sprint(st["driftRetryCount"]) == "1" && st["nextDriftRetryTime"] != nil, jsonish(st)
	})
	first.stop(t)
	stopped := time.Now()
	deadline := parseTime(t, st["nextDriftRetryTime"])
	if !stopped.Before(deadline) {
		t.Fatalf("the first controller stopped at %v, after the deadline %v: the test proves nothing", stopped, deadline)
	}
	if cm := e.cm(ns, "target"); cm.Labels["managed-by"] != "someone-else" {
		t.Fatalf("repaired before the restart: %v", cm.Labels)
	}

	second := start(t, e.cp.Config, controller.Options{Namespace: ns})
	eventually(t, "repaired by the second controller", func() (bool, string) {
		cm := e.cm(ns, "target")
		st = e.status(ns, "streak")
		return cm.Labels["managed-by"] == "statecraft" && st["state"] == "Applied", jsonish(cm.Labels) + " " + jsonish(st)
	})
	if n, _ := second.ctrl.Stats(); n == 0 {
		t.Error("the second controller ran no reconcile")
	}
	if fmt.Sprint(st["driftRetryCount"]) != "1" {
		t.Errorf("driftRetryCount after the restart = %v, want 1 (kept)", st["driftRetryCount"])
	}
	if applied := parseTime(t, st["lastAppliedTime"]); applied.Before(deadline) {
		t.Errorf("repaired at %v, before the stored deadline %v", applied, deadline)
	}
	if v, has := st["nextDriftRetryTime"]; has && v != nil {
		t.Errorf("nextDriftRetryTime after the repair: %v", v)
	}
}

// Two replicas with leader election: only the leader reconciles; when it
// is stopped the other takes the Lease and converges a new ObjectPatch.
func TestLeaderElectionFailover(t *testing.T) {
	ns := uniq("leader-e2e")
	e := newEnv(t, ns)
	e.createCM(ns, "one", nil)
	e.createCM(ns, "two", nil)
	type replica struct {
		*running
		name string
	}
	var replicas []*replica
	for _, name := range []string{"replica-a", "replica-b"} {
		ctrl := newController(t, e.cp.Config, controller.Options{Namespace: ns})
		replicas = append(replicas, &replica{name: name, running: run(t, ctrl, func(ctx context.Context) error {
			return ctrl.RunElected(ctx, controller.LeaderElection{Namespace: ns, Name: "statecraft", Identity: name,
				LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 500 * time.Millisecond})
		})})
	}
	e.mustCreateOP(ns, "one-patch", "one", nil)
	e.waitState(ns, "one-patch", "Applied", "Applied")

	lease, err := e.kc.CoordinationV1().Leases(ns).Get(e.ctx, "statecraft", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var leader, follower *replica
	for _, r := range replicas {
		if lease.Spec.HolderIdentity != nil && *lease.Spec.HolderIdentity == r.name {
			leader = r
		} else {
			follower = r
		}
	}
	if leader == nil || follower == nil {
		t.Fatalf("lease holder %v is neither replica", lease.Spec.HolderIdentity)
	}
	if n, _ := leader.ctrl.Stats(); n == 0 {
		t.Errorf("leader %s ran no reconcile", leader.name)
	}
	if n, _ := follower.ctrl.Stats(); n != 0 {
		t.Errorf("follower %s ran %d reconciles", follower.name, n)
	}

	leader.stop(t)
	leaderRuns, _ := leader.ctrl.Stats()
	e.mustCreateOP(ns, "two-patch", "two", nil)
	e.waitState(ns, "two-patch", "Applied", "Applied")
	if cm := e.cm(ns, "two"); cm.Labels["managed-by"] != "statecraft" {
		t.Errorf("target two labels %v", cm.Labels)
	}
	if n, _ := follower.ctrl.Stats(); n == 0 {
		t.Errorf("the new leader %s ran no reconcile", follower.name)
	}
	if n, _ := leader.ctrl.Stats(); n != leaderRuns {
		t.Errorf("the stopped leader kept reconciling: %d -> %d", leaderRuns, n)
	}
	lease, err = e.kc.CoordinationV1().Leases(ns).Get(e.ctx, "statecraft", metav1.GetOptions{})
	if err != nil || lease.Spec.HolderIdentity == nil || *lease.Spec.HolderIdentity != follower.name {
		t.Errorf("lease after failover: %v %v", err, lease.Spec.HolderIdentity)
	}
}

// recorder is a slog handler that keeps the objects of "transition" lines:
// which objects a controller reconciled to a transition.
type recorder struct {
	mu      sync.Mutex
	objects map[string]int
}

func (r *recorder) Enabled(context.Context, slog.Level) bool { return true }
func (r *recorder) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *recorder) WithGroup(string) slog.Handler            { return r }
func (r *recorder) Handle(_ context.Context, rec slog.Record) error {
	if rec.Message != "transition" {
		return nil
	}
	rec.Attrs(func(a slog.Attr) bool {
		if a.Key == "object" {
			r.mu.Lock()
			r.objects[a.Value.String()]++
			r.mu.Unlock()
		}
		return true
	})
	return nil
}

func (r *recorder) seen() map[string]int {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]int, len(r.objects))
	for k, v := range r.objects {
		out[k] = v
	}
	return out
}

// Two shards converge disjoint halves: every ObjectPatch is Applied and
// each was driven by exactly one shard.
func TestShardsConvergeDisjointHalves(t *testing.T) {
	const n = 20
	ns := uniq("shard-e2e")
	e := newEnv(t, ns)
	recs := []*recorder{{objects: map[string]int{}}, {objects: map[string]int{}}}
	var shards []*running
	for i, rec := range recs {
		shards = append(shards, start(t, e.cp.Config, controller.Options{Namespace: ns, Shard: i, Shards: 2, Logger: slog.New(rec)}))
	}
	for i := 0; i < n; i++ {
		e.createCM(ns, fmt.Sprintf("t%02d", i), nil)
		e.mustCreateOP(ns, fmt.Sprintf("p%02d", i), fmt.Sprintf("t%02d", i), nil)
	}
	for i := 0; i < n; i++ {
		e.waitState(ns, fmt.Sprintf("p%02d", i), "Applied", "Applied")
		if cm := e.cm(ns, fmt.Sprintf("t%02d", i)); cm.Labels["managed-by"] != "statecraft" {
			t.Errorf("t%02d labels %v", i, cm.Labels)
		}
	}
	seen := []map[string]int{recs[0].seen(), recs[1].seen()}
	for i := 0; i < n; i++ {
		ref := adapters.Ref{APIVersion: "rightsizing.kubex.ai/v1alpha1", Kind: "ObjectPatch", Namespace: ns, Name: fmt.Sprintf("p%02d", i)}.String()
		_, a := seen[0][ref]
		_, b := seen[1][ref]
		if a == b {
			t.Errorf("%s: driven by shard 0: %v, shard 1: %v; want exactly one", ref, a, b)
		}
	}
	for i, s := range shards {
		runs, _ := s.ctrl.Stats()
		ok := metricSum(t, s.ctrl, "statecraft_reconciles_total", map[string]string{"result": "ok"})
		if len(seen[i]) == 0 || runs == 0 || ok == 0 {
			t.Errorf("shard %d drove %d objects in %d reconciles (%v ok in its metrics)", i, len(seen[i]), runs, ok)
		}
		t.Logf("shard %d: %d objects, %d reconciles", i, len(seen[i]), runs)
	}
	if len(seen[0])+len(seen[1]) != n {
		t.Errorf("shards drove %d + %d objects, want %d in all", len(seen[0]), len(seen[1]), n)
	}
}

// metricSum adds up the samples of a counter family whose labels include
// match.
func metricSum(t testing.TB, ctrl *controller.Controller, name string, match map[string]string) float64 {
	t.Helper()
	mfs, err := ctrl.Metrics().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	metrics:
		for _, m := range mf.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			for k, v := range match {
				if labels[k] != v {
					continue metrics
				}
			}
			if c := m.GetCounter(); c != nil {
				sum += c.GetValue()
			}
		}
	}
	return sum
}

// faulty is an http.RoundTripper that fails a seeded fraction of requests
// (500, 503, a timeout before the request is sent, a 409 Conflict on a
// patch, or a timeout after the server handled it, so the client never
// learns the result) and cuts some watches short.
type faulty struct {
	rate float64
	on   atomic.Bool

	mu     sync.Mutex
	rng    *rand.Rand
	counts map[string]int
}

type timeoutError struct{}

func (timeoutError) Error() string   { return "injected: i/o timeout" }
func (timeoutError) Timeout() bool   { return true }
func (timeoutError) Temporary() bool { return true }

var _ net.Error = timeoutError{}

func (f *faulty) roll() float64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.rng.Float64()
}

func (f *faulty) count(what string) {
	f.mu.Lock()
	f.counts[what]++
	f.mu.Unlock()
}

// faultyRT is one client's transport, wrapped; the faults are shared.
type faultyRT struct {
	*faulty
	next http.RoundTripper
}

func (f faultyRT) RoundTrip(req *http.Request) (*http.Response, error) {
	if !f.on.Load() {
		return f.next.RoundTrip(req)
	}
	roll := f.roll()
	if req.URL.Query().Get("watch") == "true" {
		resp, err := f.next.RoundTrip(req)
		if err == nil && roll < 0.5 {
			f.count("watch dropped")
			body := resp.Body
			time.AfterFunc(time.Duration(200+int(roll*4000))*time.Millisecond, func() { body.Close() })
		}
		return resp, err
	}
	f.count("requests")
	switch step := f.rate / 5; {
	case roll < step:
		f.count("500")
		return statusResponse(req, http.StatusInternalServerError, "InternalError"), nil
	case roll < 2*step:
		f.count("503")
		return statusResponse(req, http.StatusServiceUnavailable, "ServiceUnavailable"), nil
	case roll < 3*step:
		f.count("timeout before sending")
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: timeoutError{}}
	case roll < 4*step && req.Method == http.MethodPatch:
		f.count("409")
		return statusResponse(req, http.StatusConflict, "Conflict"), nil
	case roll < f.rate:
		f.count("timeout after handling")
		resp, err := f.next.RoundTrip(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
		return nil, &net.OpError{Op: "read", Net: "tcp", Err: timeoutError{}}
	}
	return f.next.RoundTrip(req)
}

func statusResponse(req *http.Request, code int, reason string) *http.Response {
	body, _ := json.Marshal(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure",
		"message": "injected fault", "reason": reason, "code": code})
	return &http.Response{StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Header: http.Header{"Content-Type": []string{"application/json"}}, Body: io.NopCloser(bytes.NewReader(body)),
		Request: req, ProtoMajor: 1, ProtoMinor: 1, ContentLength: int64(len(body))}
}

// Faults through the transport on the real API server: with a seeded
// fraction of requests failing (500, 503, timeouts before and after the
// server handled them) and watches cut short, every ObjectPatch still
// converges to Applied with its target patched, none is left outside its
// documented states, and nothing panics. A Run that fails (its start-up
// discovery hit a fault) is restarted, as a pod would be.
func TestFaultInjectingTransport(t *testing.T) {
	const n = 20
	ns := uniq("faults-e2e")
	e := newEnv(t, ns)
	f := &faulty{rate: 0.15, rng: rand.New(rand.NewSource(7)), counts: map[string]int{}}
	cfg := rest.CopyConfig(e.cp.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper { return faultyRT{faulty: f, next: rt} }
	f.on.Store(true)

	ctx, cancel := context.WithCancel(context.Background())
	var restarts atomic.Int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			ctrl := newController(t, cfg, controller.Options{Namespace: ns, Workers: 4})
			if err := ctrl.Run(ctx); err != nil {
				restarts.Add(1)
				t.Logf("controller stopped (%v); restarting it", err)
				time.Sleep(200 * time.Millisecond)
			}
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })

	documented := map[string]bool{"Pending": true, "Applied": true, "NeedsUpdate": true, "Error": true, "": true}
	for i := 0; i < n; i++ {
		e.createCM(ns, fmt.Sprintf("t%02d", i), map[string]string{"a": "1"})
		e.mustCreateOP(ns, fmt.Sprintf("p%02d", i), fmt.Sprintf("t%02d", i), map[string]any{"requeueInterval": "2s", "retryAmount": int64(0)})
	}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%02d", i)
		eventually(t, name+" Applied under faults", func() (bool, string) {
			st := e.status(ns, name)
			if !documented[fmt.Sprint(st["state"])] && st["state"] != nil {
				t.Fatalf("%s in an undocumented state: %v", name, st)
			}
			if st["state"] == "Error" {
				t.Fatalf("%s stuck in Error under transient faults: %v", name, st)
			}
			return st["state"] == "Applied" && st["reason"] == "Applied", jsonish(st)
		})
		if cm := e.cm(ns, fmt.Sprintf("t%02d", i)); cm.Labels["managed-by"] != "statecraft" || cm.Data["a"] != "1" {
			t.Errorf("t%02d: labels %v data %v", i, cm.Labels, cm.Data)
		}
	}
	f.mu.Lock()
	t.Logf("injected faults: %v; controller restarts: %d", f.counts, restarts.Load())
	injected := 0
	for k, v := range f.counts {
		if k != "watch dropped" && k != "requests" {
			injected += v
		}
	}
	f.mu.Unlock()
	if injected == 0 {
		t.Error("no fault was injected")
	}
}

// discoveryOutage answers discovery requests with 503: all of them while
// down, and the next failNext of them (a blip).
type discoveryOutage struct {
	down     atomic.Bool
	failNext atomic.Int64
	count    atomic.Int64
}

func (d *discoveryOutage) wrap(cfg *rest.Config) *rest.Config {
	cfg = rest.CopyConfig(cfg)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			if requestKind(req) == "discovery" && (d.down.Load() || d.failNext.Add(-1) >= 0) {
				d.count.Add(1)
				return statusResponse(req, http.StatusServiceUnavailable, "ServiceUnavailable"), nil
			}
			return rt.RoundTrip(req)
		})
	}
	return cfg
}

// A transient discovery failure is not an unsupported target: a kind
// installed after the controller started is looked up in discovery when a
// patch first targets it; if discovery answers 503 then, the patch must not
// end in the final Error/UnsupportedTarget (which needs a human to set the
// reapply annotation, and whose message would say the server does not serve
// the kind) but be applied once discovery answers. Two cases: one failed
// discovery request (a blip), and an outage that lasts several reconciles
// (nothing may be written meanwhile, status included).
func TestTransientDiscoveryFailureIsNotUnsupported(t *testing.T) {
	ns, group := uniq("discovery-e2e"), uniq("gizmos")+".e2e.statecraft.dev"
	e := newEnv(t, ns)
	outage := &discoveryOutage{}
	r := start(t, outage.wrap(e.cp.Config), controller.Options{Namespace: ns})
	eventually(t, "controller synced", func() (bool, string) { return r.ctrl.Idle(), "" })

	for _, c := range []struct {
		kind   string
		outage func()
	}{
		{"Gizmo", func() { outage.failNext.Store(1) }},
		{"Doodad", func() { outage.down.Store(true) }},
	} {
		plural := strings.ToLower(c.kind) + "s"
		e.installCRD(group, c.kind)
		res := schema.GroupVersionResource{Group: group, Version: "v1", Resource: plural}
		eventually(t, c.kind+" is served", func() (bool, string) {
			_, err := e.dyn.Resource(res).Namespace(ns).Create(e.ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": group + "/v1", "kind": c.kind, "metadata": map[string]any{"name": "t1"}, "spec": map[string]any{"size": int64(1)},
			}}, metav1.CreateOptions{})
			return err == nil, fmt.Sprint(err)
		})
		before := outage.count.Load()
		c.outage()
		name := plural + "-patch"
		if _, err := e.dyn.Resource(opGVR).Namespace(ns).Create(e.ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
			"metadata": map[string]any{"name": name, "namespace": ns},
			"spec": map[string]any{
				"requeueInterval": "1s",
				"targetRef":       map[string]any{"apiVersion": group + "/v1", "kind": c.kind, "name": "t1"},
				"patch":           map[string]any{"spec": map[string]any{"size": int64(2)}},
			},
		}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if outage.down.Load() {
			_, failed0 := r.ctrl.Stats()
			eventually(t, "reconciles failed during the outage", func() (bool, string) {
				_, failed := r.ctrl.Stats()
				return failed >= failed0+3, fmt.Sprint(failed-failed0, " failed reconciles")
			})
			if st := e.status(ns, name); len(st) != 0 {
				t.Errorf("status written during the discovery outage: %v", st)
			}
			outage.down.Store(false)
		}
		eventually(t, name+" Applied after the discovery failure", func() (bool, string) {
			st := e.status(ns, name)
			if st["state"] == "Error" {
				t.Fatalf("a transient discovery failure left %s in a final Error: %v", name, st)
			}
			return st["state"] == "Applied", jsonish(st)
		})
		g, err := e.dyn.Resource(res).Namespace(ns).Get(e.ctx, "t1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if size, _, _ := unstructured.NestedInt64(g.Object, "spec", "size"); size != 2 {
			t.Errorf("%s size %d, want 2", c.kind, size)
		}
		if outage.count.Load() == before {
			t.Errorf("%s: no discovery request failed: the case proves nothing", c.kind)
		}
	}
}

// installCRD installs a namespaced kind with an open schema in group/v1.
func (e *env) installCRD(group, kind string) {
	e.t.Helper()
	plural := strings.ToLower(kind) + "s"
	crdGVR := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := e.dyn.Resource(crdGVR).Create(e.ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": plural + "." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"kind": kind, "plural": plural, "singular": strings.ToLower(kind), "listKind": kind + "List"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}}},
		},
	}}, metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}
