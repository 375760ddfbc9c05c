package controller_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/internal/controlplane"
)

var (
	installGVR = schema.GroupVersionResource{Group: "ichor.maesh.dev", Version: "v1alpha1", Resource: "ichorinstallations"}
	clusterGVR = schema.GroupVersionResource{Group: "ichor.maesh.dev", Version: "v1alpha1", Resource: "talosclusters"}
	opGVR2     = schema.GroupVersionResource{Group: "ichor.maesh.dev", Version: "v1alpha1", Resource: "talosoperations"}
)

const (
	engineUser    = "system:serviceaccount:statecraft-system:statecraft"
	autoPatchUser = "system:serviceaccount:ichor-system:ichor-auto-patch"
)

// TestAutoPatchIdentityAndAdmission runs the shipped autopatch policy
// against a real kube-apiserver with the deploy manifests of
// examples/autopatch/deploy: the engine runs as its own ServiceAccount,
// which may not update a TalosCluster; the version write and the operation
// go through impersonation of ichor-auto-patch and the admission policy
// lets them through; forged writes are refused: the engine's own, and
// ichor-auto-patch moving to another minor or touching another field; and
// the compatibility policy refuses any writer's version change that goes
// back a minor, skips one or leaves the compatibility table.
func TestAutoPatchIdentityAndAdmission(t *testing.T) {
	cp, kubectl := ownControlPlane(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admin := dynamic.NewForConfigOrDie(cp.Config)
	kc := kubernetes.NewForConfigOrDie(cp.Config)

	for _, ns := range []string{"ichor-system", "fleet", "statecraft-system"} {
		kubectl("", "create", "namespace", ns)
	}
	kubectl("", "apply", "-f", filepath.Join(root, "examples", "autopatch", "deploy"))

	// ichor-auto-patch may get and update TalosClusters and create
	// TalosOperations, and nothing else; the engine's own identity may not
	// update TalosClusters.
	for _, c := range []struct {
		user, resource, verb string
		allowed              bool
	}{
		{autoPatchUser, "talosclusters", "get", true},
		{autoPatchUser, "talosclusters", "update", true},
		{autoPatchUser, "talosoperations", "create", true},
		{autoPatchUser, "talosclusters", "patch", false},
		{autoPatchUser, "talosclusters", "delete", false},
		{autoPatchUser, "talosoperations", "update", false},
		{autoPatchUser, "ichorinstallations", "get", false},
	} {
		sar, err := kc.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: c.user, Groups: []string{"system:serviceaccounts"}, ResourceAttributes: &authorizationv1.ResourceAttributes{Group: "ichor.maesh.dev", Resource: c.resource, Verb: c.verb, Namespace: "fleet"},
		}}, metav1.CreateOptions{})
		if err != nil || sar.Status.Allowed != c.allowed {
			t.Errorf("%s %s %s: allowed %v, want %v (%v)", c.user, c.verb, c.resource, sar != nil && sar.Status.Allowed, c.allowed, err)
		}
	}
	// Nothing outside the two ichor.maesh.dev grants (AP-73).
	for _, c := range []struct{ group, resource, verb, ns string }{
		{"ichor.maesh.dev", "talosclusters", "list", "fleet"},
		{"ichor.maesh.dev", "talosclusters", "create", "fleet"},
		{"ichor.maesh.dev", "talosoperations", "delete", "fleet"},
		{"ichor.maesh.dev", "talosoperations", "get", "fleet"},
		{"ichor.maesh.dev", "ichorinstallations", "update", "ichor-system"},
		{"", "secrets", "get", "ichor-system"},
		{"", "configmaps", "create", "fleet"},
		{"", "pods", "list", ""},
		{"", "serviceaccounts", "impersonate", "ichor-system"},
		{"rbac.authorization.k8s.io", "clusterroles", "escalate", ""},
		{"coordination.k8s.io", "leases", "update", "ichor-system"},
	} {
		sar, err := kc.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: autoPatchUser, Groups: []string{"system:serviceaccounts"}, ResourceAttributes: &authorizationv1.ResourceAttributes{Group: c.group, Resource: c.resource, Verb: c.verb, Namespace: c.ns},
		}}, metav1.CreateOptions{})
		if err != nil || sar.Status.Allowed {
			t.Errorf("%s may %s %s.%s in %q (%v)", autoPatchUser, c.verb, c.resource, c.group, c.ns, err)
		}
	}
	// The engine may impersonate ichor-auto-patch, and no other account.
	for sa, want := range map[string]bool{"ichor-auto-patch": true, "default": false} {
		sar, err := kc.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: engineUser, ResourceAttributes: &authorizationv1.ResourceAttributes{Resource: "serviceaccounts", Verb: "impersonate", Namespace: "ichor-system", Name: sa},
		}}, metav1.CreateOptions{})
		if err != nil || sar.Status.Allowed != want {
			t.Errorf("the engine impersonating %s: allowed %v, want %v (%v)", sa, sar != nil && sar.Status.Allowed, want, err)
		}
	}
	for _, verb := range []string{"update", "patch"} {
		sar, err := kc.AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
			User: engineUser, ResourceAttributes: &authorizationv1.ResourceAttributes{Group: "ichor.maesh.dev", Resource: "talosclusters", Verb: verb, Namespace: "fleet"},
		}}, metav1.CreateOptions{})
		if err != nil || sar.Status.Allowed {
			t.Fatalf("the engine's own identity may %s talosclusters (%v)", verb, err)
		}
	}

	// The installation (release lists checked just now) and one cluster a
	// Talos patch behind.
	create := func(gvr schema.GroupVersionResource, ns string, obj map[string]any) {
		t.Helper()
		u := &unstructured.Unstructured{Object: obj}
		st, hasStatus := obj["status"]
		created, err := admin.Resource(gvr).Namespace(ns).Create(ctx, u, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if hasStatus {
			created.Object["status"] = st
			if _, err := admin.Resource(gvr).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	create(installGVR, "ichor-system", map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "IchorInstallation",
		"metadata": map[string]any{"name": "ichor", "namespace": "ichor-system"},
		"spec":     map[string]any{"version": "1.4.0", "autoPatch": map[string]any{"enabled": true}},
		"status": map[string]any{"installedVersion": "1.4.0", "upgradeTargets": map[string]any{
			"checkedAt":  time.Now().UTC().Format(time.RFC3339),
			"talos":      []any{"v1.10.3", "v1.10.5", "v1.11.0"},
			"kubernetes": []any{"v1.32.4", "v1.32.6"},
			"compatibility": []any{
				map[string]any{"talos": "1.10", "kubernetes": []any{"1.31", "1.32"}, "cilium": []any{"1.17"}},
				map[string]any{"talos": "1.11", "kubernetes": []any{"1.32"}, "cilium": []any{"1.17"}},
			},
		}},
	})
	// The API server refuses a malformed window or an unknown component
	// through the shipped CRD's schema, before any controller sees it
	// (AP-15, AP-16); a valid edit of the same fields is accepted.
	for _, c := range []struct {
		autoPatch map[string]any
		refused   string // a fragment of the refusal, "" when accepted
	}{
		{map[string]any{"window": "2:00-05:00"}, "spec.autoPatch.window"},
		{map[string]any{"window": "02:00-24:00"}, "spec.autoPatch.window"},
		{map[string]any{"window": "03:00-03:00"}, "spec.autoPatch.window"},
		{map[string]any{"components": []any{"talos", "flannel"}}, "spec.autoPatch.components"},
		{map[string]any{"window": "22:00-02:00", "components": []any{"talos", "kubernetes"}}, ""},
	} {
		body, _ := json.Marshal(map[string]any{"spec": map[string]any{"autoPatch": c.autoPatch}})
		_, err := admin.Resource(installGVR).Namespace("ichor-system").Patch(ctx, "ichor", types.MergePatchType, body, metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("autoPatch %v refused: %v", c.autoPatch, err)
		case c.refused != "" && (err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("autoPatch %v: %v, want Invalid naming %s", c.autoPatch, err, c.refused)
		}
	}
	create(clusterGVR, "fleet", map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "TalosCluster",
		"metadata": map[string]any{"name": "prod", "namespace": "fleet"},
		"spec":     map[string]any{"talosVersion": "v1.10.2", "kubernetesVersion": "v1.32.3", "endpoint": "https://prod.fleet.example:6443", "cni": map[string]any{"preset": "cilium"}},
		"status": map[string]any{"ciliumVersion": "v1.17.4", "machines": []any{
			map[string]any{"name": "cp-1", "approved": true, "ready": true},
		}},
	})

	// The engine, as its own ServiceAccount.
	engineCfg, err := cp.AddUser(engineUser, "system:serviceaccounts", "system:serviceaccounts:statecraft-system")
	if err != nil {
		t.Fatal(err)
	}
	ms := shippedMachines(t, nil, "autopatch")
	start(t, engineCfg, controller.Options{}, ms...)

	// The Talos patch starts: the version written, the operation created
	// with its annotations, both through ichor-auto-patch.
	deadline := time.Now().Add(90 * time.Second)
	var op *unstructured.Unstructured
	for time.Now().Before(deadline) {
		op, _ = admin.Resource(opGVR2).Namespace("fleet").Get(ctx, "prod-autopatch-talos-v1-10-5", metav1.GetOptions{})
		if op != nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if op == nil {
		inst, _ := admin.Resource(installGVR).Namespace("ichor-system").Get(ctx, "ichor", metav1.GetOptions{})
		t.Fatalf("no operation started; installation status: %v", inst.Object["status"])
	}
	if a := op.GetAnnotations(); a["ichor.maesh.dev/auto-patch"] != "true" || a["ichor.maesh.dev/started-by"] != "ichor-auto-patch" {
		t.Errorf("operation annotations %v", a)
	}
	cluster, err := admin.Resource(clusterGVR).Namespace("fleet").Get(ctx, "prod", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(cluster.Object, "spec", "talosVersion"); v != "v1.10.5" {
		t.Fatalf("talosVersion %q, want v1.10.5 (written as ichor-auto-patch: the engine itself may not)", v)
	}

	// Forged writes are refused.
	patch := func(cfg *rest.Config, body string) error {
		_, err := dynamic.NewForConfigOrDie(cfg).Resource(clusterGVR).Namespace("fleet").Patch(ctx, "prod", types.MergePatchType, []byte(body), metav1.PatchOptions{})
		return err
	}
	asAutoPatch := rest.CopyConfig(engineCfg)
	asAutoPatch.Impersonate = rest.ImpersonationConfig{UserName: autoPatchUser}
	// (update is what the account may do; a merge patch needs patch, which
	// it lacks, so forge with update.)
	update := func(cfg *rest.Config, mutate func(u *unstructured.Unstructured)) error {
		c := dynamic.NewForConfigOrDie(cfg).Resource(clusterGVR).Namespace("fleet")
		u, err := c.Get(ctx, "prod", metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(u)
		_, err = c.Update(ctx, u, metav1.UpdateOptions{})
		return err
	}
	if err := patch(engineCfg, `{"spec":{"talosVersion":"v1.10.6"}}`); err == nil {
		t.Error("the engine's own identity patched a TalosCluster spec")
	}
	// The API server loads a new policy and binding shortly after they are
	// created, not with the create: wait until a forged write (dry run) is
	// refused, so that the writes below meet the policy in force.
	for policyDeadline := time.Now().Add(30 * time.Second); ; {
		c := dynamic.NewForConfigOrDie(asAutoPatch).Resource(clusterGVR).Namespace("fleet")
		u, err := c.Get(ctx, "prod", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		unstructured.SetNestedField(u.Object, "v1.11.0", "spec", "talosVersion")
		_, err = c.Update(ctx, u, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		if err != nil && strings.Contains(err.Error(), "ichor-auto-patch-limits") {
			break
		}
		if time.Now().After(policyDeadline) {
			t.Fatalf("ichor-auto-patch-limits not in force after 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for what, mutate := range map[string]func(u *unstructured.Unstructured){
		"a new minor": func(u *unstructured.Unstructured) {
			unstructured.SetNestedField(u.Object, "v1.11.0", "spec", "talosVersion")
		},
		"an older patch": func(u *unstructured.Unstructured) {
			unstructured.SetNestedField(u.Object, "v1.10.3", "spec", "talosVersion")
		},
		"another field": func(u *unstructured.Unstructured) {
			unstructured.SetNestedField(u.Object, "https://elsewhere:6443", "spec", "endpoint")
		},
		"a label": func(u *unstructured.Unstructured) {
			u.SetLabels(map[string]string{"forged": "yes"})
		},
		"an annotation": func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"forged": "yes"})
		},
		"a finalizer": func(u *unstructured.Unstructured) {
			u.SetFinalizers([]string{"example.com/forged"})
		},
	} {
		err := update(asAutoPatch, mutate)
		if err == nil || !strings.Contains(err.Error(), "ichor-auto-patch-limits") {
			t.Errorf("ichor-auto-patch writing %s: %v, want a refusal by the admission policy", what, err)
		}
	}
	// The compatibility check (AP-82) holds for every writer, a cluster
	// admin included: a version change may not go to an older minor, skip
	// one, or leave the installation's compatibility table (talos 1.10 with
	// kubernetes 1.31 or 1.32, talos 1.11 with 1.32 here). Dry runs as the
	// admin, whom ichor-auto-patch-limits does not limit.
	adminUpdate := func(mutate func(u *unstructured.Unstructured)) error {
		c := admin.Resource(clusterGVR).Namespace("fleet")
		u, err := c.Get(ctx, "prod", metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(u)
		_, err = c.Update(ctx, u, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
		return err
	}
	setVersions := func(talos, kubernetes string) func(u *unstructured.Unstructured) {
		return func(u *unstructured.Unstructured) {
			if talos != "" {
				unstructured.SetNestedField(u.Object, talos, "spec", "talosVersion")
			}
			if kubernetes != "" {
				unstructured.SetNestedField(u.Object, kubernetes, "spec", "kubernetesVersion")
			}
		}
	}
	for policyDeadline := time.Now().Add(30 * time.Second); ; {
		err := adminUpdate(setVersions("v1.12.0", ""))
		if err != nil && strings.Contains(err.Error(), "ichor-compatibility") {
			break
		}
		if time.Now().After(policyDeadline) {
			t.Fatalf("ichor-compatibility not in force after 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, c := range []struct {
		talos, kubernetes string
		refused           string // the policy's message, "" when accepted
	}{
		{"v1.12.0", "", "ichor-compatibility: Talos v1.10.5 → v1.12.0 goes to an older minor or skips one"},
		{"v1.9.9", "", "ichor-compatibility: Talos v1.10.5 → v1.9.9 goes to an older minor or skips one"},
		{"", "v1.31.9", "ichor-compatibility: Kubernetes v1.32.3 → v1.31.9 goes to an older minor or skips one"},
		{"", "v1.33.1", "ichor-compatibility: Talos v1.10.5 with Kubernetes v1.33.1 is not in the compatibility table"},
		{"v1.11.0", "v1.33.1", "ichor-compatibility: Talos v1.11.0 with Kubernetes v1.33.1 is not in the compatibility table"},
		{"v1.11.0", "", ""},
		{"1.10.6", "", "is not a pair of versions"},
		{"v1.10.6", "", ""},
		{"", "v1.32.9", ""},
	} {
		err := adminUpdate(setVersions(c.talos, c.kubernetes))
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("the admin moving to %q/%q: %v", c.talos, c.kubernetes, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("the admin moving to %q/%q: %v, want a refusal: %s", c.talos, c.kubernetes, err, c.refused)
		}
	}
	// Another field passes when the versions stay.
	if err := adminUpdate(func(u *unstructured.Unstructured) {
		unstructured.SetNestedField(u.Object, "https://elsewhere:6443", "spec", "endpoint")
	}); err != nil {
		t.Errorf("the admin changing spec.endpoint: %v", err)
	}

	// What the account may do passes the policy: a newer patch of the minor.
	if err := update(asAutoPatch, func(u *unstructured.Unstructured) {
		unstructured.SetNestedField(u.Object, "v1.32.6", "spec", "kubernetesVersion")
	}); err != nil {
		t.Errorf("ichor-auto-patch moving Kubernetes to a newer patch: %v", err)
	}
}
