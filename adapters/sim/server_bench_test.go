package sim

import (
	"fmt"
	"os"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/adapters"
)

// crdObject reads a shipped CRD from spec/crds.
func crdObject(t testing.TB, file string) map[string]any {
	t.Helper()
	data, err := os.ReadFile("../../spec/crds/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var obj map[string]any
	if err := yaml.Unmarshal(data, &obj); err != nil {
		t.Fatal(err)
	}
	n, err := normalize(obj)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func objectPatch(ns, name string) map[string]any {
	return map[string]any{"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
		"metadata": map[string]any{"name": name, "namespace": ns},
		"spec": map[string]any{
			"requeueInterval": "5m",
			"drift":           map[string]any{"retryInterval": "5m", "retryAmount": 3, "stabilizationWindow": "15m"},
			"targetRef":       map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "t"},
			"patch":           map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "kubex"}}},
		}}
}

func opStatus(i int) map[string]any {
	ts := fmt.Sprintf("2026-01-01T00:%02d:00Z", i%60)
	return map[string]any{"status": map[string]any{
		"state": "Applied", "outcome": "Success", "reason": "Applied", "observedGeneration": 1,
		"retryCount": 0, "driftRetryCount": i % 3, "lastAttemptTime": ts, "lastAppliedTime": ts, "proposal": "APPLIED",
		"conditions": []any{
			map[string]any{"type": "Ready", "status": "True", "reason": "Applied", "message": "applied", "lastTransitionTime": ts, "observedGeneration": 1},
			map[string]any{"type": "Drifted", "status": "False", "reason": "Applied", "message": "clean", "lastTransitionTime": ts, "observedGeneration": 1},
		}}}
}

// BenchmarkStatusWrite measures the engine's commonest write: a merge
// patch of an ObjectPatch's status.
func BenchmarkStatusWrite(b *testing.B) {
	c := New(NewClock(start), WithSharedReads(nil), WithoutFieldManagement())
	if err := c.Apply(crdObject(b, "rightsizing.kubex.ai_objectpatches.yaml")); err != nil {
		b.Fatal(err)
	}
	if err := c.Apply(objectPatch("default", "p")); err != nil {
		b.Fatal(err)
	}
	ref := adapters.Ref{APIVersion: "rightsizing.kubex.ai/v1alpha1", Kind: "ObjectPatch", Namespace: "default", Name: "p"}
	bodies := make([]any, 60)
	for i := range bodies {
		bodies[i] = body(opStatus(i))
	}
	ctx := b.Context()
	b.ResetTimer()
	for i := range b.N {
		res := c.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Subresource: "status", Body: bodies[i%60]})
		if res.Outcome != adapters.OK {
			b.Fatal(res.Message)
		}
	}
}

// BenchmarkLabelPatch measures a label merge patch on a Deployment.
func BenchmarkLabelPatch(b *testing.B) {
	c := New(NewClock(start), WithSharedReads(nil), WithoutFieldManagement())
	if err := c.Apply(deployment("d", 2)); err != nil {
		b.Fatal(err)
	}
	bodies := make([]any, 60)
	for i := range bodies {
		bodies[i] = body(map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": fmt.Sprint("x", i)}}})
	}
	ctx := b.Context()
	b.ResetTimer()
	for i := range b.N {
		res := c.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: deployRef("d"), Body: bodies[i%60]})
		if res.Outcome != adapters.OK {
			b.Fatal(res.Message)
		}
	}
}
