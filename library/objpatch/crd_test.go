package objpatch

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"sigs.k8s.io/yaml"
)

// at walks a decoded YAML document by map keys and list indices.
func at(t *testing.T, v any, path ...any) any {
	t.Helper()
	cur := v
	for i, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := cur.(map[string]any)
			if !ok {
				t.Fatalf("%v: not an object at %v", path, path[:i])
			}
			next, ok := m[k]
			if !ok {
				t.Fatalf("%v: missing %q", path, k)
			}
			cur = next
		case int:
			l, ok := cur.([]any)
			if !ok || k >= len(l) {
				t.Fatalf("%v: no element %d at %v", path, k, path[:i])
			}
			cur = l[k]
		}
	}
	return cur
}

func TestCRDs(t *testing.T) {
	cases := []struct {
		file, name, kind, plural, scope string
	}{
		{"rightsizing.kubex.ai_objectpatches.yaml", "objectpatches.rightsizing.kubex.ai", "ObjectPatch", "objectpatches", "Namespaced"},
		{"rightsizing.kubex.ai_clusterobjectpatches.yaml", "clusterobjectpatches.rightsizing.kubex.ai", "ClusterObjectPatch", "clusterobjectpatches", "Cluster"},
	}
	for _, c := range cases {
		t.Run(c.kind, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("..", "..", "spec", "crds", c.file))
			if err != nil {
				t.Fatal(err)
			}
			var crd map[string]any
			if err := yaml.UnmarshalStrict(raw, &crd); err != nil {
				t.Fatal(err)
			}
			eq := func(got, want any, path ...any) {
				t.Helper()
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%v = %#v, want %#v", path, got, want)
				}
			}
			get := func(path ...any) any { t.Helper(); return at(t, crd, path...) }
			eq(get("apiVersion"), "apiextensions.k8s.io/v1", "apiVersion")
			eq(get("kind"), "CustomResourceDefinition", "kind")
			eq(get("metadata", "name"), c.name, "metadata.name")
			eq(get("spec", "group"), "rightsizing.kubex.ai", "group")
			eq(get("spec", "names", "kind"), c.kind, "names.kind")
			eq(get("spec", "names", "plural"), c.plural, "names.plural")
			eq(get("spec", "scope"), c.scope, "scope")
			versions := get("spec", "versions").([]any)
			eq(len(versions), 1, "len(versions)")
			v := versions[0]
			eq(at(t, v, "name"), "v1alpha1", "version")
			eq(at(t, v, "served"), true, "served")
			eq(at(t, v, "storage"), true, "storage")
			eq(at(t, v, "subresources", "status"), map[string]any{}, "subresources.status")
			var cols []string
			for _, col := range at(t, v, "additionalPrinterColumns").([]any) {
				if _, wide := col.(map[string]any)["priority"]; !wide {
					cols = append(cols, at(t, col, "name").(string))
				}
			}
			// kubectl get shows the target, state, Ready condition, outcome,
			// reason and age (issues 6 and 16).
			eq(cols, []string{"Kind", "Target", "State", "Ready", "Outcome", "Reason", "Age"}, "printer columns")
			for i, path := range []string{".spec.targetRef.kind", ".spec.targetRef.name", ".status.state", `.status.conditions[?(@.type=="Ready")].status`, ".status.outcome", ".status.reason", ".metadata.creationTimestamp"} {
				eq(at(t, v, "additionalPrinterColumns", i, "jsonPath"), path, cols[i]+" column")
			}
			eq(at(t, v, "additionalPrinterColumns", 6, "type"), "date", "Age column")

			schema := at(t, v, "schema", "openAPIV3Schema")
			spec := at(t, schema, "properties", "spec")
			sp := func(path ...any) any { t.Helper(); return at(t, spec, path...) }

			// targetRef: apiVersion, kind, name; no namespace; immutable.
			eq(sp("required"), []any{"targetRef"}, "spec.required")
			eq(sp("properties", "targetRef", "required"), []any{"apiVersion", "kind", "name"}, "targetRef.required")
			props := sp("properties", "targetRef", "properties").(map[string]any)
			eq(len(props), 3, "len(targetRef.properties)")
			if _, ok := props["namespace"]; ok {
				t.Error("targetRef must not have a namespace")
			}
			eq(sp("properties", "targetRef", "x-kubernetes-validations", 0, "rule"), "self == oldSelf", "targetRef immutability rule")

			eq(sp("properties", "patch", "type"), "object", "patch.type")
			eq(sp("properties", "patch", "x-kubernetes-preserve-unknown-fields"), true, "patch preserves unknown fields")

			jp := sp("properties", "jsonPatch")
			eq(at(t, jp, "maxItems"), float64(MaxOps), "jsonPatch.maxItems")
			items := at(t, jp, "items", "properties")
			eq(at(t, items, "op", "enum"), []any{"add", "remove", "replace"}, "op.enum")
			eq(at(t, items, "path", "maxLength"), float64(MaxPathLength), "path.maxLength")
			eq(at(t, items, "selector", "maxLength"), float64(MaxSelectorLength), "selector.maxLength")
			eq(at(t, items, "matchPolicy", "enum"), []any{"ExactlyOne", "All"}, "matchPolicy.enum")
			eq(at(t, items, "matchPolicy", "default"), "ExactlyOne", "matchPolicy.default")
			eq(at(t, items, "value", "x-kubernetes-preserve-unknown-fields"), true, "value preserves unknown fields")
			eq(at(t, items, "value", "nullable"), true, "value keeps a literal null so that Validate can reject it")
			eq(at(t, jp, "items", "required"), []any{"op", "path", "selector"}, "items.required")

			eq(sp("properties", "retryAmount", "type"), "integer", "retryAmount.type")
			eq(sp("properties", "retryAmount", "minimum"), float64(0), "retryAmount.minimum")
			eq(sp("properties", "retryAmount", "default"), float64(3), "retryAmount.default")
			eq(sp("properties", "requeueInterval", "default"), "5m", "requeueInterval.default")
			eq(sp("properties", "requeueInterval", "x-kubernetes-validations", 0, "rule"), "duration(self) > duration('0s')", "requeueInterval positive")
			const durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`
			eq(sp("properties", "requeueInterval", "pattern"), durationPattern, "requeueInterval.pattern")
			eq(sp("properties", "drift", "properties", "retryInterval", "pattern"), durationPattern, "drift.retryInterval.pattern")
			eq(sp("properties", "drift", "properties", "stabilizationWindow", "pattern"), durationPattern, "drift.stabilizationWindow.pattern")
			drift := sp("properties", "drift", "properties")
			eq(at(t, drift, "retryInterval", "default"), "5m", "drift.retryInterval.default")
			eq(at(t, drift, "retryInterval", "x-kubernetes-validations", 0, "rule"), "duration(self) > duration('0s') && duration(self) <= duration('24h')", "drift.retryInterval bounds")
			eq(at(t, drift, "retryAmount", "minimum"), float64(0), "drift.retryAmount.minimum")
			eq(at(t, drift, "retryAmount", "default"), float64(3), "drift.retryAmount.default")
			eq(at(t, drift, "stabilizationWindow", "default"), "15m", "drift.stabilizationWindow.default")

			status := at(t, schema, "properties", "status")
			eq(at(t, status, "x-kubernetes-preserve-unknown-fields"), true, "status preserves unknown fields")
			for _, f := range []string{"state", "outcome", "reason", "message", "observedGeneration", "retryCount", "driftRetryCount", "nextDriftRetryTime", "lastAttemptTime", "lastAppliedTime", "conditions"} {
				at(t, status, "properties", f)
			}
			for _, f := range []string{"nextDriftRetryTime", "lastAttemptTime", "lastAppliedTime"} {
				eq(at(t, status, "properties", f, "format"), "date-time", f+".format")
			}
			conds := at(t, status, "properties", "conditions")
			eq(at(t, conds, "x-kubernetes-list-type"), "map", "conditions list type")
			eq(at(t, conds, "x-kubernetes-list-map-keys"), []any{"type"}, "conditions map keys")
			eq(at(t, conds, "items", "required"), []any{"type", "status", "lastTransitionTime", "reason", "message"}, "condition.required")
			eq(at(t, conds, "items", "properties", "status", "enum"), []any{"True", "False", "Unknown"}, "condition.status.enum")
		})
	}
}

// TestCRDsMatch checks that the two CRDs share one schema.
func TestCRDsMatch(t *testing.T) {
	load := func(f string) any {
		raw, err := os.ReadFile(filepath.Join("..", "..", "spec", "crds", f))
		if err != nil {
			t.Fatal(err)
		}
		var v map[string]any
		if err := yaml.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	a := at(t, load("rightsizing.kubex.ai_objectpatches.yaml"), "spec", "versions", 0, "schema", "openAPIV3Schema", "properties")
	b := at(t, load("rightsizing.kubex.ai_clusterobjectpatches.yaml"), "spec", "versions", 0, "schema", "openAPIV3Schema", "properties")
	if !reflect.DeepEqual(a, b) {
		t.Error("ObjectPatch and ClusterObjectPatch schemas differ")
	}
}
