package sim

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
)

// Restore keeps what a real server set (uid, creationTimestamp,
// generation), so that an owner reference by uid still names its owner and
// a status's observedGeneration still matches; a later spec change still
// moves the generation on, and deleting the owner still collects the
// dependent.
func TestRestoreKeepsServerFields(t *testing.T) {
	ctx := context.Background()
	c := New(nil, WithSharedReads(nil))
	c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, KindOptions{HasStatus: true})
	owner := map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default", "uid": "0b4c1e1e-aaaa-4bbb-8ccc-000000000001",
			"generation": int64(7), "creationTimestamp": "2025-03-01T10:00:00Z", "resourceVersion": "991"},
		"spec": map[string]any{"size": int64(1)}, "status": map[string]any{"observedGeneration": int64(7)}}
	dependent := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "d", "namespace": "default", "uid": "0b4c1e1e-aaaa-4bbb-8ccc-000000000002",
			"ownerReferences": []any{map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "name": "w",
				"uid": "0b4c1e1e-aaaa-4bbb-8ccc-000000000001", "controller": true}}}}
	for _, o := range []map[string]any{owner, dependent} {
		if err := c.Restore(o); err != nil {
			t.Fatal(err)
		}
	}
	ref := adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: "w"}
	got := c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref}).Object
	md := metadata(got)
	if md["uid"] != "0b4c1e1e-aaaa-4bbb-8ccc-000000000001" || md["generation"] != int64(7) || md["creationTimestamp"] != "2025-03-01T10:00:00Z" {
		t.Fatalf("restored metadata %v", md)
	}
	if md["resourceVersion"] == "991" {
		t.Errorf("the resourceVersion is the simulator's own, not the recording's: %v", md["resourceVersion"])
	}
	if st, _ := got["status"].(map[string]any); st["observedGeneration"] != int64(7) {
		t.Errorf("status %v", got["status"])
	}
	c.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Body: raw(`{"spec":{"size":2}}`)})
	if g := metadata(c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref}).Object)["generation"]; g != int64(8) {
		t.Errorf("generation after a spec change = %v, want 8", g)
	}
	if res := c.Do(ctx, adapters.Request{Verb: adapters.Delete, Ref: ref}); res.Outcome != adapters.OK {
		t.Fatal(res)
	}
	dref := adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "d"}
	settle(t, c) // the garbage collector acts a moment after the delete
	if res := c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: dref}); res.Outcome != adapters.NotFound {
		t.Errorf("the dependent of a deleted restored owner: %s, want collected", res.Outcome)
	}

	// A uid is one object's.
	twin := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "twin", "namespace": "default", "uid": "0b4c1e1e-aaaa-4bbb-8ccc-000000000003"}}
	if err := c.Restore(twin); err != nil {
		t.Fatal(err)
	}
	other := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "other", "namespace": "default", "uid": "0b4c1e1e-aaaa-4bbb-8ccc-000000000003"}}
	if err := c.Restore(other); err == nil || !strings.Contains(err.Error(), "uid") {
		t.Errorf("a second object with the same uid: %v", err)
	}
	// Without server fields Restore is Apply: the simulator's uid and
	// creationTimestamp (and no generation: a ConfigMap has none).
	plain := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "plain", "namespace": "default"}}
	if err := c.Restore(plain); err != nil {
		t.Fatal(err)
	}
	if md := metadata(c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "plain"}}).Object); md["generation"] != nil ||
		!strings.HasPrefix(md["uid"].(string), "uid-") || md["creationTimestamp"] != c.Clock().Now().UTC().Format(time.RFC3339) {
		t.Errorf("plain restore metadata %v", md)
	}
}
