package controller_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/internal/controlplane"
)

// TestAutoPatchSettingsValidationPolicy shows that the shipped
// ValidatingAdmissionPolicy ichor-settings-validation
// (examples/autopatch/deploy/admission.yaml), the webhook's half of AP-15
// and AP-16, refuses a malformed window and an unknown component on its own,
// apart from the CRD's schema: the kube-apiserver here serves the
// IchorInstallation CRD with the window's pattern and CEL rule and the
// components' enum and maxItems removed. Before the policy is applied the
// API server stores those values (so the refusals below are the policy's,
// not the schema's); with it in force, the same writes are refused with the
// policy's message, valid ones pass, and a stored malformed value does not
// block an edit of another field.
func TestAutoPatchSettingsValidationPolicy(t *testing.T) {
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	crdDir := t.TempDir()
	stripped := stripSettingsSchema(t, filepath.Join(root, "spec", "crds", "ichor.maesh.dev_ichorinstallations.yaml"))
	if err := os.WriteFile(filepath.Join(crdDir, "ichorinstallations.yaml"), stripped, 0o644); err != nil {
		t.Fatal(err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cp := controlplane.StartForTest(t, controlplane.Options{CRDDirs: []string{crdDir}, KubeconfigPath: kubeconfig})
	path := kubectlPath(t)
	kubectl := func(args ...string) {
		t.Helper()
		if out, err := runKubectl(context.Background(), path, kubeconfig, "", args...); err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	ctx := context.Background()
	admin := dynamic.NewForConfigOrDie(cp.Config).Resource(installGVR).Namespace("ichor-system")
	kubectl("create", "namespace", "ichor-system")
	if _, err := admin.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "IchorInstallation",
		"metadata": map[string]any{"name": "ichor", "namespace": "ichor-system"},
		"spec":     map[string]any{"version": "1.4.0"},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch := func(autoPatch map[string]any, dryRun bool) error {
		body, _ := json.Marshal(map[string]any{"spec": map[string]any{"autoPatch": autoPatch}})
		opts := metav1.PatchOptions{}
		if dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err := admin.Patch(ctx, "ichor", types.MergePatchType, body, opts)
		return err
	}
	bad := []struct {
		autoPatch map[string]any
		message   string // the policy's message names the field and the value
	}{
		{map[string]any{"window": "2:00-05:00"}, "spec.autoPatch.window 2:00-05:00 is not a daily UTC window"},
		{map[string]any{"window": "02:00-24:00"}, "spec.autoPatch.window 02:00-24:00 is not a daily UTC window"},
		{map[string]any{"window": "03:00-03:00"}, "spec.autoPatch.window 03:00-03:00 is not a daily UTC window"},
		{map[string]any{"window": "02:00"}, "spec.autoPatch.window 02:00 is not a daily UTC window"},
		{map[string]any{"components": []any{"talos", "flannel"}}, "spec.autoPatch.components holds an unknown component: flannel"},
		{map[string]any{"components": []any{"Talos"}}, "spec.autoPatch.components holds an unknown component: Talos"},
	}
	// Without the policy, the stripped CRD lets every one through.
	for _, c := range bad {
		if err := patch(c.autoPatch, true); err != nil {
			t.Fatalf("without the policy, the stripped CRD refused %v: %v (the test needs a CRD that does not check it)", c.autoPatch, err)
		}
	}
	// Store a malformed window now, to show later that it does not block
	// other edits (it is the engine's to report).
	if err := patch(map[string]any{"window": "25:00-26:00"}, false); err != nil {
		t.Fatal(err)
	}

	kubectl("apply", "-f", filepath.Join(root, "examples", "autopatch", "deploy", "admission.yaml"))
	// The API server loads a new policy shortly after it is created: wait
	// until the first malformed value meets it.
	for deadline := time.Now().Add(30 * time.Second); ; {
		err := patch(map[string]any{"window": "2:00-05:00"}, true)
		if err != nil && strings.Contains(err.Error(), "ichor-settings-validation") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("ichor-settings-validation not in force after 30s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, c := range bad {
		err := patch(c.autoPatch, true)
		if err == nil || !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "ichor-settings-validation: "+c.message) {
			t.Errorf("autoPatch %v: %v, want Invalid by ichor-settings-validation: %s", c.autoPatch, err, c.message)
		}
	}
	// A create carrying a malformed value is refused as well.
	_, err = admin.Create(ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "IchorInstallation",
		"metadata": map[string]any{"name": "other", "namespace": "ichor-system"},
		"spec":     map[string]any{"version": "1.4.0", "autoPatch": map[string]any{"components": []any{"flannel"}}},
	}}, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
	if err == nil || !strings.Contains(err.Error(), "ichor-settings-validation") {
		t.Errorf("create with components [flannel]: %v, want a refusal by ichor-settings-validation", err)
	}
	// The stored malformed window does not block an edit of another field,
	// nor of another settings field; replacing it with a valid one passes.
	if _, err := admin.Patch(ctx, "ichor", types.MergePatchType, []byte(`{"spec":{"version":"1.4.1"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("spec.version beside a stored malformed window: %v", err)
	}
	if err := patch(map[string]any{"enabled": true}, true); err != nil {
		t.Errorf("enabled beside a stored malformed window: %v", err)
	}
	for _, ok := range []map[string]any{
		{"window": "22:00-02:00"},
		{"window": ""},
		{"window": "02:00-05:00", "components": []any{"talos", "cilium", "kubernetes"}},
		{"components": []any{}},
	} {
		if err := patch(ok, true); err != nil {
			t.Errorf("autoPatch %v refused: %v", ok, err)
		}
	}
}

// stripSettingsSchema returns the IchorInstallation CRD with every check on
// spec.autoPatch.window and spec.autoPatch.components removed except their
// types.
func stripSettingsSchema(t *testing.T, file string) []byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
	removed := 0
	for i, v := range versions {
		vm := v.(map[string]any)
		props, found, _ := unstructured.NestedMap(vm, "schema", "openAPIV3Schema", "properties", "spec", "properties", "autoPatch", "properties")
		if !found {
			continue
		}
		window := props["window"].(map[string]any)
		for _, k := range []string{"pattern", "x-kubernetes-validations"} {
			if _, ok := window[k]; ok {
				delete(window, k)
				removed++
			}
		}
		components := props["components"].(map[string]any)
		delete(components, "maxItems")
		items := components["items"].(map[string]any)
		if _, ok := items["enum"]; ok {
			delete(items, "enum")
			removed++
		}
		if err := unstructured.SetNestedMap(vm, props, "schema", "openAPIV3Schema", "properties", "spec", "properties", "autoPatch", "properties"); err != nil {
			t.Fatal(err)
		}
		versions[i] = vm
	}
	if removed != 3 {
		t.Fatalf("%s: removed %d of the window's pattern and rule and the components' enum, want 3", file, removed)
	}
	if err := unstructured.SetNestedSlice(crd, versions, "spec", "versions"); err != nil {
		t.Fatal(err)
	}
	out, err := yaml.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
