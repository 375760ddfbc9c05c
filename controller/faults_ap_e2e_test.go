package controller_test

// The automatic patcher's world of the fault schedules (faults_e2e_test.go):
// an IchorInstallation with auto-patch on and three TalosClusters a Talos
// patch behind, driven by the shipped autopatch policy with a one-second
// tick. The world plays the operation executor: it completes the
// operations of c1 and c3 and pauses c2's, which halts the patcher; c3's
// machines become Ready only once the halt is seen, and the script then
// acknowledges it, after which c3 is patched. The checker asserts on what
// the server received:
//   - never two operations on one cluster, and a failed (paused) operation
//     never retried: each cluster's operation created once;
//   - nothing starts while the halt is unacknowledged: c3's operation is
//     created after the acknowledgement;
//   - never a version the patcher did not decide: every version write of
//     a cluster follows a status write recording that start
//     (status.autoPatch.starting naming the cluster and the version), and
//     writes that version;
//   - convergence and the quiet world, as in the other worlds.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/statecraft/statecraft/rules"
)

const (
	apFrom = "v1.10.2"
	apTo   = "v1.10.5"
	// apPaused is the cluster whose operation the executor pauses.
	apPaused = "c2"
)

var apClusters = []string{"c1", "c2", "c3"}

// apTune runs the patcher at a one-second tick without jitter, retrying a
// failed create after a second: the seed's minute would make each schedule
// minutes long.
func apTune(m *rules.Machine) {
	for _, p := range m.Params {
		switch p.Name {
		case "tick", "create_retry_delay":
			p.Default = "1s"
		case "tick_jitter":
			p.Default = "0s"
		}
	}
}

func apOpName(cluster string) string { return cluster + "-autopatch-talos-v1-10-5" }

// apGrant lets ichor-auto-patch (the identity the policy writes as) update
// TalosClusters and create TalosOperations in every namespace, as the
// shipped deploy manifests do in theirs.
func (r *faultRun) apGrant() {
	rc := r.kc.RbacV1()
	r.retry("ClusterRole faults-ichor-auto-patch", func() error {
		_, err := rc.ClusterRoles().Create(r.ctx, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "faults-ichor-auto-patch"},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{"ichor.maesh.dev"}, Resources: []string{"talosclusters"}, Verbs: []string{"get", "update"}},
				{APIGroups: []string{"ichor.maesh.dev"}, Resources: []string{"talosoperations"}, Verbs: []string{"create"}},
			},
		}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
	r.retry("ClusterRoleBinding faults-ichor-auto-patch", func() error {
		_, err := rc.ClusterRoleBindings().Create(r.ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: "faults-ichor-auto-patch"},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "faults-ichor-auto-patch"},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: "ichor-auto-patch", Namespace: "ichor-system"}},
		}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

// apCreate creates an object of the world in ns and then sets its status,
// as the operator that owns it would.
func (r *faultRun) apCreate(gvr schema.GroupVersionResource, obj map[string]any) {
	u := &unstructured.Unstructured{Object: obj}
	u.SetNamespace(r.ns)
	st, hasStatus := obj["status"]
	r.retry("create "+u.GetKind()+" "+u.GetName(), func() error {
		created, err := r.dyn.Resource(gvr).Namespace(r.ns).Create(r.ctx, u, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			created, err = r.dyn.Resource(gvr).Namespace(r.ns).Get(r.ctx, u.GetName(), metav1.GetOptions{})
		}
		if err != nil || !hasStatus {
			return err
		}
		created.Object["status"] = st
		_, err = r.dyn.Resource(gvr).Namespace(r.ns).UpdateStatus(r.ctx, created, metav1.UpdateOptions{})
		return err
	})
}

func apCluster(name string, ready bool) map[string]any {
	return map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "TalosCluster",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"talosVersion": apFrom, "kubernetesVersion": "v1.32.3", "endpoint": "https://" + name + ".example:6443", "cni": map[string]any{"preset": "cilium"}},
		"status": map[string]any{"machines": []any{
			map[string]any{"name": "cp-1", "approved": true, "ready": ready},
		}},
	}
}

// apWorld is the automatic patcher world's script; an executor goroutine
// runs the operations until the schedule ends.
func (r *faultRun) apWorld() {
	r.apGrant()
	r.apCreate(installGVR, map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "IchorInstallation",
		"metadata": map[string]any{"name": "ichor"},
		"spec":     map[string]any{"version": "1.4.0", "autoPatch": map[string]any{"enabled": true}},
		"status": map[string]any{"installedVersion": "1.4.0", "upgradeTargets": map[string]any{
			"checkedAt":     time.Now().UTC().Format(time.RFC3339),
			"talos":         []any{"v1.10.3", apTo, "v1.11.0"},
			"kubernetes":    []any{"v1.32.4"},
			"compatibility": []any{map[string]any{"talos": "1.10", "kubernetes": []any{"1.31", "1.32"}, "cilium": []any{"1.17"}}},
		}},
	})
	for _, c := range apClusters {
		r.apCreate(clusterGVR, apCluster(c, c != "c3"))
	}
	go r.apExecutor()

	// The halt on c2's paused operation (or a minute: the checker says
	// what did not happen); then c3's machines are Ready, and three ticks
	// later, in which nothing may start, the halt is acknowledged.
	halted := r.ns + "/" + apOpName(apPaused)
	deadline := time.Now().Add(time.Minute)
	for time.Now().Before(deadline) {
		if u, err := r.dyn.Resource(installGVR).Namespace(r.ns).Get(r.ctx, "ichor", metav1.GetOptions{}); err == nil {
			if h, _, _ := unstructured.NestedString(u.Object, "status", "autoPatch", "haltedOperation"); h == halted {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.retry("c3's machines Ready", func() error {
		u, err := r.dyn.Resource(clusterGVR).Namespace(r.ns).Get(r.ctx, "c3", metav1.GetOptions{})
		if err != nil {
			return err
		}
		u.Object["status"] = apCluster("c3", true)["status"]
		_, err = r.dyn.Resource(clusterGVR).Namespace(r.ns).UpdateStatus(r.ctx, u, metav1.UpdateOptions{})
		return err
	})
	time.Sleep(3 * time.Second)
	r.retry("acknowledge the halt", func() error {
		u, err := r.dyn.Resource(installGVR).Namespace(r.ns).Get(r.ctx, "ichor", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(u.Object, halted, "spec", "autoPatch", "acknowledgedHalt"); err != nil {
			return err
		}
		_, err = r.dyn.Resource(installGVR).Namespace(r.ns).Update(r.ctx, u, metav1.UpdateOptions{})
		return err
	})
	r.mu.Lock()
	r.acknowledgedAt = time.Now()
	r.mu.Unlock()
	time.Sleep(time.Second)
}

// apExecutor is the operation executor: every operation of the world
// without a phase is completed, c2's paused (a failed step), until the run
// ends.
func (r *faultRun) apExecutor() {
	for r.ctx.Err() == nil {
		list, err := r.dyn.Resource(opGVR2).Namespace(r.ns).List(r.ctx, metav1.ListOptions{})
		if err == nil {
			for i := range list.Items {
				op := &list.Items[i]
				if ph, _, _ := unstructured.NestedString(op.Object, "status", "phase"); ph != "" {
					continue
				}
				st := map[string]any{"phase": "Completed"}
				if cl, _, _ := unstructured.NestedString(op.Object, "spec", "cluster"); cl == apPaused {
					st = map[string]any{"phase": "Paused", "failureReason": "step 2 of 3 failed: node cp-1 did not come back"}
				}
				op.Object["status"] = st
				// A conflict or an API server down: the next round.
				_, _ = r.dyn.Resource(opGVR2).Namespace(r.ns).UpdateStatus(r.ctx, op, metav1.UpdateOptions{})
			}
		}
		select {
		case <-r.ctx.Done():
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// apConverged: the patcher active again with its spec observed, the halt
// acknowledged and remembered, every cluster at the patch version, and
// exactly the three operations: c1's and c3's completed, c2's paused.
func (r *faultRun) apConverged() (bool, string) {
	var bad []string
	u, err := r.dyn.Resource(installGVR).Namespace(r.ns).Get(r.ctx, "ichor", metav1.GetOptions{})
	if err != nil {
		return false, err.Error()
	}
	st, _, _ := unstructured.NestedMap(u.Object, "status")
	og, _ := st["observedGeneration"].(int64)
	ack, _, _ := unstructured.NestedStringSlice(u.Object, "status", "autoPatch", "acknowledged")
	if st["state"] != "Active" || og != u.GetGeneration() || len(ack) != 1 || ack[0] != r.ns+"/"+apOpName(apPaused) {
		bad = append(bad, fmt.Sprintf("installation: state %v reason %v observedGeneration %d of %d, acknowledged %v", st["state"], st["reason"], og, u.GetGeneration(), ack))
	}
	for _, c := range apClusters {
		cl, err := r.dyn.Resource(clusterGVR).Namespace(r.ns).Get(r.ctx, c, metav1.GetOptions{})
		if err != nil {
			bad = append(bad, c+": "+err.Error())
			continue
		}
		if v, _, _ := unstructured.NestedString(cl.Object, "spec", "talosVersion"); v != apTo {
			bad = append(bad, fmt.Sprintf("%s: talosVersion %s", c, v))
		}
	}
	ops, err := r.dyn.Resource(opGVR2).Namespace(r.ns).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		return false, strings.Join(append(bad, "operations: "+err.Error()), "; ")
	}
	phases := map[string]string{}
	for _, op := range ops.Items {
		phases[op.GetName()], _, _ = unstructured.NestedString(op.Object, "status", "phase")
	}
	want := map[string]string{apOpName("c1"): "Completed", apOpName("c2"): "Paused", apOpName("c3"): "Completed"}
	if fmt.Sprint(phases) != fmt.Sprint(want) {
		bad = append(bad, fmt.Sprintf("operations %v, want %v", phases, want))
	}
	return len(bad) == 0, strings.Join(bad, "; ")
}

// checkAP checks the automatic patcher's safety properties on what the
// server received.
func (r *faultRun) checkAP(recs []reqRecord) []string {
	r.mu.Lock()
	acknowledgedAt := r.acknowledgedAt
	r.mu.Unlock()
	return checkAPRecords(r.ns, recs, acknowledgedAt)
}

// checkAPRecords: each cluster's operation created once, c3's after the
// halt's acknowledgement (acknowledgedAt), and every version write of a
// cluster after a status write recording its start, with that version.
func checkAPRecords(ns string, recs []reqRecord, acknowledgedAt time.Time) []string {
	var v []string
	opsPath := "/apis/ichor.maesh.dev/v1alpha1/namespaces/" + ns + "/talosoperations"
	clusterPath := "/apis/ichor.maesh.dev/v1alpha1/namespaces/" + ns + "/talosclusters/"
	statusPath := "/apis/ichor.maesh.dev/v1alpha1/namespaces/" + ns + "/ichorinstallations/ichor/status"
	created := map[string]int{}
	decided := map[string]time.Time{} // cluster → the first recorded start of it
	// The installation's status as the engine's merge patches leave it:
	// a patch carries only what changed since the status it read.
	status := []byte(`{}`)
	for _, rec := range recs {
		if !rec.write() || rec.Status == 0 || rec.Status >= 300 {
			continue
		}
		var body map[string]any
		_ = json.Unmarshal(rec.Body, &body)
		switch {
		case rec.Path == statusPath:
			merged, err := jsonpatch.MergePatch(status, rec.Body)
			if err != nil {
				v = append(v, fmt.Sprintf("%s: a status write that is no merge patch: %v", rec.Proc, err))
				continue
			}
			status = merged
			var st map[string]any
			_ = json.Unmarshal(status, &st)
			starting, _, _ := unstructured.NestedMap(st, "status", "autoPatch", "starting")
			if cl, _ := starting["cluster"].(string); cl != "" && starting["to"] == apTo {
				if _, ok := decided[cl]; !ok {
					decided[cl] = rec.At
				}
			}
		case rec.Method == http.MethodPost && rec.Path == opsPath:
			cl, _, _ := unstructured.NestedString(body, "spec", "cluster")
			created[cl]++
			if cl == "c3" && (acknowledgedAt.IsZero() || rec.At.Before(acknowledgedAt)) {
				v = append(v, fmt.Sprintf("%s created c3's operation while the halt on %s was not acknowledged", rec.Proc, apOpName(apPaused)))
			}
		case strings.HasPrefix(rec.Path, clusterPath) && !strings.HasSuffix(rec.Path, "/status"):
			cl := strings.TrimPrefix(rec.Path, clusterPath)
			to, _, _ := unstructured.NestedString(body, "spec", "talosVersion")
			at, ok := decided[ns+"/"+cl]
			if to != apTo || !ok || at.After(rec.At) {
				v = append(v, fmt.Sprintf("%s wrote talosVersion %q to %s, no start of it to %s recorded before", rec.Proc, to, cl, apTo))
			}
		}
	}
	for _, c := range apClusters {
		if created[c] != 1 {
			v = append(v, fmt.Sprintf("cluster %s: %d operations created, want one (never two, never a retry)", c, created[c]))
		}
	}
	return v
}

// apCleanup deletes the world's objects: the patcher lists clusters and
// operations in every namespace, so a later schedule's must not see them.
func (r *faultRun) apCleanup() {
	for _, gvr := range []schema.GroupVersionResource{installGVR, opGVR2, clusterGVR} {
		r.retry("delete "+gvr.Resource, func() error {
			return r.dyn.Resource(gvr).Namespace(r.ns).DeleteCollection(r.ctx, metav1.DeleteOptions{}, metav1.ListOptions{})
		})
	}
	r.retry("the world's objects gone", func() error {
		for _, gvr := range []schema.GroupVersionResource{installGVR, opGVR2, clusterGVR} {
			list, err := r.dyn.Resource(gvr).Namespace(r.ns).List(r.ctx, metav1.ListOptions{})
			if err != nil {
				return err
			}
			if len(list.Items) > 0 {
				return fmt.Errorf("%d %s left", len(list.Items), gvr.Resource)
			}
		}
		return nil
	})
}
