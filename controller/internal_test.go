package controller

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/rules"
)

// The informers freeze what they store and thaw what they replace or
// delete, so that old versions are not kept alive by the registry;
// a resync (the same object as old and new) thaws nothing.
func TestThaw(t *testing.T) {
	reg := jsonvalue.NewRegistry()
	c := &Cache{Frozen: reg}
	obj := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a", "managedFields": []any{}}}}
		if _, err := c.stripManagedFields(u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	old, cur := obj(), obj()
	if !reg.Frozen(old.Object) || !reg.Frozen(cur.Object) {
		t.Fatal("stored objects are not frozen")
	}
	c.thaw(cur, cur)
	if !reg.Frozen(cur.Object) {
		t.Error("a resync thawed the object held")
	}
	c.thaw(old, cur)
	if reg.Frozen(old.Object) || reg.Frozen(old.Object["metadata"].(map[string]any)) {
		t.Error("the replaced object is still frozen")
	}
	c.thaw(cur, nil)
	if reg.Frozen(cur.Object) {
		t.Error("the deleted object is still frozen")
	}
}

// deepEqual answers as reflect.DeepEqual does on decoded JSON values.
func TestDeepEqual(t *testing.T) {
	values := []any{
		nil, "a", "b", int64(1), float64(1), true, false,
		map[string]any{}, map[string]any(nil), map[string]any{"a": "1"}, map[string]any{"a": "2"}, map[string]any{"b": "1"},
		map[string]any{"a": map[string]any{"x": []any{int64(1), "y"}}}, map[string]any{"a": map[string]any{"x": []any{int64(1), "z"}}},
		[]any{}, []any(nil), []any{nil}, []any{int64(1)}, []any{float64(1)}, map[string]any{"a": nil},
	}
	for _, a := range values {
		for _, b := range values {
			if got, want := deepEqual(a, b), reflect.DeepEqual(a, b); got != want {
				t.Errorf("deepEqual(%#v, %#v) = %v, reflect.DeepEqual %v", a, b, got, want)
			}
		}
	}
}

// An informer's resync or relist hands an unchanged object (the same
// resourceVersion) as an update: it wakes neither the object nor its
// driven owner; a changed one wakes the owner.
func TestOnChangeIgnoresUnchanged(t *testing.T) {
	owner := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Parent"}
	child := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	c := &Controller{
		machines: map[schema.GroupVersionKind]*fsm.Machine{owner: {Name: "parent", Resources: []*rules.Resource{{APIVersion: "example.com/v1", Kind: "Parent", Scope: "Namespaced"}}}},
		queue:    workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[adapters.Ref]()),
	}
	defer c.queue.ShutDown()
	obj := func(rv, data string) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "c", "namespace": "ns", "resourceVersion": rv,
				"ownerReferences": []any{map[string]any{"apiVersion": "example.com/v1", "kind": "Parent", "name": "p", "uid": "u", "controller": true}}},
			"data": map[string]any{"k": data},
		}}
	}
	c.onChange(child, obj("5", "a"), obj("5", "a"))
	if n := c.queue.Len(); n != 0 {
		t.Fatalf("an unchanged object (same resourceVersion) queued %d objects", n)
	}
	c.onChange(child, obj("5", "a"), obj("6", "b"))
	if n := c.queue.Len(); n != 1 {
		t.Fatalf("a changed object queued %d objects, want its owner", n)
	}
	if got, _ := c.queue.Get(); got != (adapters.Ref{APIVersion: "example.com/v1", Kind: "Parent", Namespace: "ns", Name: "p"}) {
		t.Errorf("queued %v, want the owner", got)
	}
}
