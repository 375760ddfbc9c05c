package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/record"
	"github.com/statecraft/statecraft/rules/policies"
)

var (
	recOPGVR  = schema.GroupVersionResource{Group: "rightsizing.kubex.ai", Version: "v1alpha1", Resource: "objectpatches"}
	recCODGVR = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterobjectdeployments"}
	recCOSGVR = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterobjectsets"}
)

// cli runs the command line in this process.
func cli(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

func waitFor(t *testing.T, what string, d time.Duration, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	last := ""
	for time.Now().Before(deadline) {
		ok, state := cond()
		if ok {
			return
		}
		last = state
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s: not reached in %s; last seen: %s", what, d, last)
}

// The flight recorder end to end on kube-apiserver, through the command
// line. statecraft record runs the engine, as a user that may do all its
// machines need but touch Secrets, while an ObjectPatch's target drifts and
// is repaired, another ObjectPatch's target is a Secret (TargetAccessDenied
// under real RBAC), and a ClusterObjectDeployment rolls out a second
// revision. statecraft replay with the recorded rules reproduces every
// decision; with a lower drift_backoff_cap the drifting patch, and only
// it, is repaired sooner, and nothing else changes; with a shorter
// requeue_interval default nothing changes at all (the shipped CRD defaults
// every patch's own spec.requeueInterval, which wins). statecraft diff runs
// the recording as a scenario. statecraft why on the patch in Error names
// the transition and clause that put it there and what would get it out.
// A second statecraft record into the same folder, after another drift
// while no engine ran, continues the recording through a restart, in small
// segments that rotate; it still replays faithfully from its oldest kept
// checkpoint.
func TestRecordReplayWhy(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cp := controlplane.StartForTest(t, controlplane.Options{CRDDirs: []string{filepath.Join(root, "spec", "crds")}})
	ctx := context.Background()
	kc := kubernetes.NewForConfigOrDie(cp.Config)
	dyn := dynamic.NewForConfigOrDie(cp.Config)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	const ns, user = "rec", "statecraft-recorded"
	_, err = kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	must(err)
	_, err = kc.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"a": "1"}}, metav1.CreateOptions{})
	must(err)
	_, err = kc.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "guarded"}, Data: map[string][]byte{"k": []byte("v")}}, metav1.CreateOptions{})
	must(err)
	all := []string{"get", "list", "watch", "create", "update", "patch", "delete"}
	_, err = kc.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{"rightsizing.kubex.ai", "olm.operatorframework.io"}, Resources: []string{"*"}, Verbs: all},
		{APIGroups: []string{""}, Resources: []string{"configmaps", "namespaces"}, Verbs: all},
		{APIGroups: []string{"", "events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"create", "patch"}},
		// The recording keeps the CRDs of the kinds it records, as this
		// cluster serves them.
		{APIGroups: []string{"apiextensions.k8s.io"}, Resources: []string{"customresourcedefinitions"}, Verbs: []string{"get"}},
	}}, metav1.CreateOptions{})
	must(err)
	_, err = kc.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: user},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: user}}}, metav1.CreateOptions{})
	must(err)
	ucfg, err := cp.AddUser(user)
	must(err)
	tmp := t.TempDir()
	engineKC, adminKC := filepath.Join(tmp, "engine.kubeconfig"), filepath.Join(tmp, "admin.kubeconfig")
	must(controlplane.WriteKubeconfig(engineKC, ucfg, user))
	must(controlplane.WriteKubeconfig(adminKC, cp.Config, "admin"))
	dir := filepath.Join(tmp, "rec")
	defer func() {
		if t.Failed() {
			keep := filepath.Join(os.TempDir(), "statecraft-record-e2e")
			os.RemoveAll(keep)
			if err := os.CopyFS(keep, os.DirFS(dir)); err == nil {
				t.Logf("the recording is kept in %s", keep)
			}
		}
	}()
	const rulesFlag = "objectpatch,clusterobjectdeployment,clusterobjectset"
	recording := func(d time.Duration, extra ...string) chan [3]string {
		done := make(chan [3]string, 1)
		go func() {
			// One worker: reconciles that overlap in time interleave their
			// reads and writes in an order a replay cannot know.
			code, out, errs := cli(append([]string{"record", "--kubeconfig", engineKC, "--for", d.String(), "--out", dir, "--rules", rulesFlag, "--workers", "1"}, extra...)...)
			done <- [3]string{fmt.Sprint(code), out, errs}
		}()
		return done
	}
	finished := func(done chan [3]string) {
		t.Helper()
		r := <-done
		if r[0] != "0" || !strings.Contains(r[1], "recorded "+dir) {
			t.Fatalf("record: exit %s\n%s\n%s", r[0], r[1], lastLines(r[2], 30))
		}
		t.Log(r[1])
	}
	started := func(segments int) {
		t.Helper()
		waitFor(t, "the recording started", time.Minute, func() (bool, string) {
			m, err := os.ReadFile(filepath.Join(dir, record.ManifestFile))
			if err != nil {
				return false, err.Error()
			}
			var man record.Manifest
			if err := json.Unmarshal(m, &man); err != nil {
				return false, err.Error()
			}
			return len(man.Segments) >= segments, fmt.Sprint(len(man.Segments), " segments")
		})
	}
	status := func(gvr schema.GroupVersionResource, namespace, name string) (map[string]any, string) {
		r := dyn.Resource(gvr).Namespace(namespace)
		u, err := r.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err.Error()
		}
		st, _, _ := unstructured.NestedMap(u.Object, "status")
		return st, fmt.Sprint(st["state"], "/", st["reason"])
	}
	waitState := func(gvr schema.GroupVersionResource, namespace, name, want string) {
		t.Helper()
		waitFor(t, name+" "+want, time.Minute, func() (bool, string) {
			_, s := status(gvr, namespace, name)
			return s == want, s
		})
	}
	createOP := func(name string, target, extra map[string]any) {
		spec := map[string]any{"targetRef": target,
			"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "statecraft"}}}}
		for k, v := range extra {
			spec[k] = v
		}
		_, err := dyn.Resource(recOPGVR).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
			"metadata": map[string]any{"name": name, "namespace": ns}, "spec": spec}}, metav1.CreateOptions{})
		must(err)
	}
	drift := func() {
		_, err := kc.CoreV1().ConfigMaps(ns).Patch(ctx, "settings", types.MergePatchType, []byte(`{"metadata":{"labels":{"managed-by":"someone-else"}}}`), metav1.PatchOptions{FieldManager: "another-actor"})
		must(err)
	}

	// ---- Record: drift and repair, a denial, a rollout. ----
	done := recording(26 * time.Second)
	started(1)
	began := time.Now()
	createOP("drift-patch", map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "settings"},
		map[string]any{"requeueInterval": "10s", "drift": map[string]any{"retryInterval": "6s", "retryAmount": int64(3), "stabilizationWindow": "1h"}})
	createOP("denied-patch", map[string]any{"apiVersion": "v1", "kind": "Secret", "name": "guarded"}, nil)
	example, err := os.ReadFile(filepath.Join(root, "examples", "cod", "my-app.yaml"))
	must(err)
	var cod map[string]any
	must(yaml.Unmarshal(example, &cod))
	_, err = dyn.Resource(recCODGVR).Create(ctx, &unstructured.Unstructured{Object: cod}, metav1.CreateOptions{})
	must(err)
	waitState(recOPGVR, ns, "drift-patch", "Applied/Applied")
	waitState(recOPGVR, ns, "denied-patch", "Error/TargetAccessDenied")
	waitState(recCOSGVR, "", "my-app-1", "Ready/Ready")
	time.Sleep(time.Until(began.Add(3 * time.Second)))
	drift()
	_, err = dyn.Resource(recCODGVR).Patch(ctx, "my-app", types.MergePatchType, []byte(`{"spec":{"template":{"spec":{"phases":[{"name":"configuration","objects":[{"type":"InlineManifest","inlineManifest":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"my-app-settings","namespace":"default"},"data":{"message":"Hello from revision B"}}}]}]}}}}`), metav1.PatchOptions{})
	must(err)
	waitState(recCOSGVR, "", "my-app-2", "Ready/Ready")
	waitFor(t, "the drift found at the 10s recheck and repaired 6s later", time.Minute, func() (bool, string) {
		st, s := status(recOPGVR, ns, "drift-patch")
		return s == "Applied/Applied" && fmt.Sprint(st["driftRetryCount"]) == "1", s + fmt.Sprint(" driftRetryCount=", st["driftRetryCount"])
	})
	finished(done)

	first, err := record.Load(dir)
	must(err)
	crds := map[string]bool{}
	for _, o := range first.Objects {
		if o["kind"] == "CustomResourceDefinition" {
			crds[o["metadata"].(map[string]any)["name"].(string)] = true
		}
	}
	for _, want := range []string{"objectpatches.rightsizing.kubex.ai", "clusterobjectdeployments.olm.operatorframework.io", "clusterobjectsets.olm.operatorframework.io"} {
		if !crds[want] {
			t.Errorf("the recording's checkpoint holds no CRD %s (it holds %v)", want, crds)
		}
	}

	// ---- Replay with the recorded rules: every decision reproduced. ----
	code, out, errs := cli("replay", dir)
	if code != 0 || !strings.Contains(out, "fidelity: replayed with the rules it was recorded under, reconciling when the controller did, the simulator reproduces the ") {
		t.Fatalf("replay: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli("replay", dir, "-o", "json")
	var same struct {
		Recorded, Replayed []record.Decision
		Faithful           bool
	}
	must(json.Unmarshal([]byte(out), &same))
	if code != 0 || !same.Faithful || len(same.Recorded) != len(same.Replayed) || len(same.Recorded) < 30 {
		t.Fatalf("replay -o json: exit %d, faithful %v, %d recorded, %d replayed", code, same.Faithful, len(same.Recorded), len(same.Replayed))
	}
	for i := range same.Recorded {
		if a, b := same.Recorded[i].Key(), same.Replayed[i].Key(); a != b {
			t.Errorf("decision %d: recorded %s, replayed %s", i, a, b)
		}
	}
	for _, want := range []string{
		`ObjectPatch/rec/denied-patch: Pending → Error by "access denied" reason TargetAccessDenied`,
		`ObjectPatch/rec/drift-patch: Applied → NeedsUpdate by "drift found" reason Drifted`,
		`ObjectPatch/rec/drift-patch: NeedsUpdate → Pending by "repair drift" reason Pending`,
		`  patch ConfigMap/rec/settings (merge): ok`,
		`  create ClusterObjectSet/my-app-2: ok`,
		`ClusterObjectSet/my-app-1: TearingDown → Archived by "torn down" reason Archived`,
	} {
		found := false
		for _, d := range same.Recorded {
			found = found || d.Key() == want
		}
		if !found {
			t.Errorf("no recorded decision %s", want)
		}
	}

	// ---- A lower cap on the drift repair delay: exactly the repair moves. ----
	code, out, _ = cli("replay", dir, "--param", "objectpatch.drift_backoff_cap=1s", "-o", "json")
	var capped struct {
		Faithful         bool
		BehaviourChanged bool
		Changed          []record.ObjectDiff
	}
	must(json.Unmarshal([]byte(out), &capped))
	if code != 1 || !capped.Faithful || !capped.BehaviourChanged || len(capped.Changed) != 1 || capped.Changed[0].Object != "ObjectPatch/rec/drift-patch" {
		t.Fatalf("replay --param drift_backoff_cap=1s: exit %d, changed %+v", code, capped.Changed)
	}
	var found, repair time.Duration
	moved := 0
	for _, row := range capped.Changed[0].Rows {
		if row.Old == nil || row.New == nil || row.Old.Key() != row.New.Key() {
			t.Errorf("a decision only one run made: %+v / %+v", row.Old, row.New)
			continue
		}
		switch {
		case row.New.Transition == "drift found":
			found = row.New.At
			if row.Old.At != row.New.At || *row.Old.Wake != row.Old.At+6*time.Second || *row.New.Wake != row.New.At+time.Second {
				t.Errorf("drift found at %s waiting %s, was at %s waiting %s: want the same time, a 1s wait for 6s",
					record.Stamp(row.New.At), *row.New.Wake-row.New.At, record.Stamp(row.Old.At), *row.Old.Wake-row.Old.At)
			}
		case row.New.Transition == "repair drift":
			repair = row.New.At
		}
		if !row.Same && row.Old.At != row.New.At {
			moved++
			if row.Old.At-row.New.At != 5*time.Second {
				t.Errorf("%s moved from %s to %s: want 5s sooner", row.New.Key(), record.Stamp(row.Old.At), record.Stamp(row.New.At))
			}
		}
	}
	// The repair's own decisions move: the transition to Pending, its two
	// patches of the target, the transition to Applied and the status write.
	if found == 0 || repair != found+time.Second || moved != 5 {
		t.Errorf("drift found at %s, repaired at %s, %d decisions moved: want the repair 1s after, 5 decisions 5s sooner", record.Stamp(found), record.Stamp(repair), moved)
	}
	code, out, _ = cli("replay", dir, "--param", "objectpatch.drift_backoff_cap=1s", "--format", "markdown")
	if code != 1 || !strings.Contains(out, "**Behaviour:** with `--param objectpatch.drift_backoff_cap=1s`, 1 object decides differently") ||
		!strings.Contains(out, "<details><summary><code>ObjectPatch/rec/drift-patch</code></summary>") {
		t.Errorf("replay --format markdown: exit %d\n%s", code, out)
	}
	// The same as a new version of the rule file.
	src, _, _ := policies.Source("objectpatch")
	capFile := filepath.Join(tmp, "objectpatch.hcl")
	must(os.WriteFile(capFile, bytes.Replace(src, []byte(`param "drift_backoff_cap" {
    type    = duration
    default = "24h"`), []byte(`param "drift_backoff_cap" {
    type    = duration
    default = "1s"`), 1), 0o644))
	code, out, _ = cli("replay", dir, "--rules", capFile)
	if code != 1 || !strings.Contains(out, "behaviour: with --rules "+capFile+", 1 object decides differently") || !strings.Contains(out, "  ObjectPatch/rec/drift-patch\n") {
		t.Errorf("replay --rules: exit %d\n%s", code, out)
	}
	// A shorter requeue_interval default: every patch has its own.
	code, out, _ = cli("replay", dir, "--param", "objectpatch.requeue_interval=5s")
	if code != 0 || !strings.Contains(out, "behaviour: with --param objectpatch.requeue_interval=5s, every object decides as with the recorded rules") {
		t.Errorf("replay --param requeue_interval=5s: exit %d\n%s", code, out)
	}
	// statecraft diff runs the recording as one of its scenarios.
	code, out, _ = cli("diff", "objectpatch", capFile, "--scenarios", dir)
	if code != 1 || !strings.Contains(out, "behaviour: 1 of 1 scenarios differ") || !strings.Contains(out, filepath.Join(dir, record.ScenarioFile)) {
		t.Errorf("diff --scenarios RECORDING: exit %d\n%s", code, out)
	}

	// ---- statecraft why on the patch in Error. ----
	code, out, errs = cli("why", "ObjectPatch/rec/denied-patch", "--kubeconfig", adminKC, "--rules", rulesFlag)
	t.Logf("why:\n%s", out)
	for _, want := range []string{
		"state: Error (final), reason TargetAccessDenied: secrets \"guarded\" is forbidden",
		`Error came by "access denied" (Pending → Error)`,
		`because target.outcome == "forbidden" = true`,
		"nothing fires: it stays in Error until one of these becomes true",
		`✗ "reapply" → Pending: reapply = false`,
		`✗ "spec changed" → Pending: self.metadata.generation != status.?observedGeneration.orValue(0) = false`,
		"Error has no recheck",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("why: no %q in\n%s%s", want, out, errs)
		}
	}
	code, out, _ = cli("why", "objectpatches/rec/denied-patch", "--kubeconfig", adminKC, "--rules", rulesFlag, "-o", "json")
	var why whyReport
	must(json.Unmarshal([]byte(out), &why))
	if code != 0 || why.State != "Error" || len(why.Decisions) == 0 || why.Decisions[0].Transition != "access denied" || why.Now.Fires != "" {
		t.Errorf("why -o json: exit %d, %+v", code, why)
	}
	if code, _, errs := cli("why", "ObjectPatch/rec/nothing", "--kubeconfig", adminKC, "--rules", rulesFlag); code != 2 || !strings.Contains(errs, "ObjectPatch/rec/nothing not found") {
		t.Errorf("why on a missing object: exit %d, %s", code, errs)
	}

	// ---- Continue the recording after a restart, in rotating segments. ----
	drift() // while no engine runs
	// The second repair of the streak waits twice as long: 12s.
	done = recording(22*time.Second, "--max-segment-bytes", "4096", "--max-segments", "3")
	waitFor(t, "the drift found by the restarted engine and repaired", time.Minute, func() (bool, string) {
		st, s := status(recOPGVR, ns, "drift-patch")
		return s == "Applied/Applied" && fmt.Sprint(st["driftRetryCount"]) == "2", s + fmt.Sprint(" driftRetryCount=", st["driftRetryCount"])
	})
	finished(done)
	rec, err := record.Load(dir)
	must(err)
	man := rec.Manifest
	if len(man.Processes) != 2 || man.Dropped == 0 || len(man.Segments) > 3 {
		t.Errorf("after the restart: %d processes, %d segments kept, %d dropped; want 2 processes and rotation", len(man.Processes), len(man.Segments), man.Dropped)
	}
	code, out, errs = cli("replay", dir)
	if code != 0 {
		t.Errorf("replay of the continued, rotated recording: exit %d\n%s%s", code, out, errs)
	}
	t.Logf("replay after the restart and rotation:\n%s", out)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
