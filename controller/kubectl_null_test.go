package controller_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestClientSideApplyConsumesNull proves OP-43 beside OP-42: client-side
// `kubectl apply` turns a literal null under spec.patch into its own
// instruction to delete the key, so the stored patch has no null to remove
// the target's field with; `kubectl apply --server-side` stores the null.
func TestClientSideApplyConsumesNull(t *testing.T) {
	e := newEnv(t, "nulls")
	manifest := func(name, labels string) string {
		return `apiVersion: rightsizing.kubex.ai/v1alpha1
kind: ObjectPatch
metadata:
  name: ` + name + `
  namespace: nulls
spec:
  targetRef: {apiVersion: v1, kind: ConfigMap, name: target}
  patch:
    metadata:
      labels:
` + labels
	}
	stored := func(name string) (map[string]any, bool) {
		t.Helper()
		u, err := e.op("nulls", name)
		if err != nil {
			t.Fatal(err)
		}
		labels, _, _ := unstructured.NestedMap(u.Object, "spec", "patch", "metadata", "labels")
		v, has := labels["obsolete"]
		return labels, has && v == nil
	}
	// Client-side: first without the key, then with obsolete: null.
	e.kubectl(manifest("client-side", "        managed-by: kubex\n"), "apply", "-f", "-")
	e.kubectl(manifest("client-side", "        managed-by: kubex\n        obsolete: null\n"), "apply", "-f", "-")
	if labels, hasNull := stored("client-side"); hasNull {
		t.Errorf("client-side apply stored the literal null: %v", labels)
	}
	// Server-side: the literal null is stored, so the patch removes the label.
	e.kubectl(manifest("server-side", "        managed-by: kubex\n        obsolete: null\n"), "apply", "--server-side", "-f", "-")
	if labels, hasNull := stored("server-side"); !hasNull {
		t.Errorf("server-side apply did not store the literal null: %v", labels)
	}
}
