package sim

import (
	"context"
	"reflect"
	"testing"

	"github.com/statecraft/statecraft/adapters"
)

// With shared reads, readers get one copy until the object changes, and a
// change (a write, or a server-side change such as a deletion mark) gives
// the next reader the new content.
func TestSharedReads(t *testing.T) {
	ctx := context.Background()
	for _, shared := range []bool{false, true} {
		c := New(nil, WithSharedReads(nil))
		if !shared {
			c = New(nil)
		}
		ref := adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "a"}
		if err := c.Apply(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "a", "namespace": "default", "finalizers": []any{"x/y"}}, "data": map[string]any{"k": "1"}}); err != nil {
			t.Fatal(err)
		}
		first := c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref}).Object
		second := c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref}).Object
		listed := c.Do(ctx, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default"}}).Items
		same := reflect.ValueOf(first).UnsafePointer() == reflect.ValueOf(second).UnsafePointer()
		if same != shared || len(listed) != 1 || !reflect.DeepEqual(listed[0], first) {
			t.Fatalf("shared=%v: same copy %v, listed %v", shared, same, listed)
		}
		c.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Body: raw(`{"data":{"k":"2"}}`)})
		if got := c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref}).Object; got["data"].(map[string]any)["k"] != "2" {
			t.Fatalf("shared=%v: read after a patch: %v", shared, got)
		}
		c.Do(ctx, adapters.Request{Verb: adapters.Delete, Ref: ref}) // held by its finalizer: marked, touched
		if got := c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref}).Object; metaString(got, "deletionTimestamp") == "" {
			t.Fatalf("shared=%v: read after a deletion mark: %v", shared, got)
		}
		if first["data"].(map[string]any)["k"] != "1" {
			t.Fatalf("shared=%v: an earlier reader's copy changed under it", shared)
		}
	}
}
