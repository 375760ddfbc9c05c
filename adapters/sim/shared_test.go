package sim

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
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

// A released cluster leaves nothing frozen in its registry: no copy it
// handed out (read, listed or a write's answer) and nothing remembered on
// one. It still answers, and freezes what it hands out next.
func TestReleaseThawsWhatWasHandedOut(t *testing.T) {
	ctx := context.Background()
	reg := jsonvalue.NewRegistry()
	c := New(nil, WithSharedReads(reg))
	refA := adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "a"}
	refB := adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "b"}
	for _, name := range []string{"a", "b"} {
		if err := c.Apply(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": "default"}, "data": map[string]any{"k": "1"}}); err != nil {
			t.Fatal(err)
		}
	}
	get := func(ref adapters.Ref) map[string]any {
		return c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref}).Object
	}
	get(refA)
	written := c.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: refA, Body: raw(`{"data":{"k":"2"}}`)}).Object
	current := get(refB)
	listed := c.Do(ctx, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "Namespace"}}).Items
	held := map[string]map[string]any{"written": written, "current": current, "current's data": current["data"].(map[string]any)}
	for i, it := range listed {
		held[fmt.Sprintf("listed[%d]", i)] = it
	}
	for name, v := range held {
		if !reg.Frozen(v) {
			t.Fatalf("before Release, the %s copy is not frozen", name)
		}
	}
	if n := jsonvalue.Remember(reg, current, "test", func() int { return 1 }); n != 1 {
		t.Fatal(n)
	}
	c.Release()
	for name, v := range held {
		if reg.Frozen(v) {
			t.Errorf("after Release, the %s copy is still frozen", name)
		}
	}
	if n := jsonvalue.Remember(reg, current, "test", func() int { return 2 }); n != 2 {
		t.Errorf("after Release, a value remembered on the current copy is still answered (%d)", n)
	}
	again := get(refA)
	if !reg.Frozen(again) || again["data"].(map[string]any)["k"] != "2" {
		t.Fatalf("after Release, a read gives %v (frozen %v)", again, reg.Frozen(again))
	}
}

// With shared reads, a list that finds the very objects of the last answer
// to the same query answers the same slice; a change of one of them, a
// new object, a removed one or another selector answers a new one, with
// what the list finds.
func TestSharedListAnsweredAgain(t *testing.T) {
	ctx := context.Background()
	c := New(nil, WithSharedReads(nil))
	for _, name := range []string{"a", "b", "c"} {
		if err := c.Apply(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"app": "x"}}, "data": map[string]any{"k": "1"}}); err != nil {
			t.Fatal(err)
		}
	}
	list := func(selector string) []map[string]any {
		t.Helper()
		res := c.Do(ctx, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default"}, LabelSelector: selector})
		if res.Outcome != adapters.OK {
			t.Fatalf("list: %s %s", res.Outcome, res.Message)
		}
		return res.Items
	}
	names := func(items []map[string]any) string {
		out := ""
		for _, it := range items {
			out += metaString(it, "name") + "=" + it["data"].(map[string]any)["k"].(string) + " "
		}
		return out
	}
	same := func(a, b []map[string]any) bool { return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] }
	first := list("")
	if again := list(""); !same(first, again) {
		t.Fatalf("an unchanged list is answered with another slice: %v then %v", names(first), names(again))
	}
	if other := list("app=x"); same(first, other) || names(other) != names(first) {
		t.Fatalf("another selector: %v (the same slice: %v)", names(other), same(first, other))
	}
	ref := adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "b"}
	c.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Body: raw(`{"data":{"k":"2"}}`)})
	changed := list("")
	if same(first, changed) || names(changed) != "a=1 b=2 c=1 " || names(first) != "a=1 b=1 c=1 " {
		t.Fatalf("after a change: %v (before: %v; the same slice: %v)", names(changed), names(first), same(first, changed))
	}
	c.Do(ctx, adapters.Request{Verb: adapters.Delete, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "c"}})
	if shorter := list(""); same(changed, shorter) || names(shorter) != "a=1 b=2 " {
		t.Fatalf("after a removal: %v", names(shorter))
	}
	if err := c.Apply(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "d", "namespace": "default"}, "data": map[string]any{"k": "1"}}); err != nil {
		t.Fatal(err)
	}
	if longer := list(""); names(longer) != "a=1 b=2 d=1 " {
		t.Fatalf("after a create: %v", names(longer))
	}
	if selected := list("app=x"); names(selected) != "a=1 b=2 " {
		t.Fatalf("selected after the changes: %v", names(selected))
	}
}
