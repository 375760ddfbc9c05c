package controller

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/statecraft/statecraft/internal/jsonvalue"
)

// The informers freeze what they store and thaw what they replace or
// delete, so that old versions are not kept alive by jsonvalue's registry;
// a resync (the same object as old and new) thaws nothing.
func TestThaw(t *testing.T) {
	obj := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a", "managedFields": []any{}}}}
		if _, err := stripManagedFields(u); err != nil {
			t.Fatal(err)
		}
		return u
	}
	old, cur := obj(), obj()
	if !jsonvalue.Frozen(old.Object) || !jsonvalue.Frozen(cur.Object) {
		t.Fatal("stored objects are not frozen")
	}
	thaw(cur, cur)
	if !jsonvalue.Frozen(cur.Object) {
		t.Error("a resync thawed the object held")
	}
	thaw(old, cur)
	if jsonvalue.Frozen(old.Object) || jsonvalue.Frozen(old.Object["metadata"].(map[string]any)) {
		t.Error("the replaced object is still frozen")
	}
	thaw(cur, nil)
	if jsonvalue.Frozen(cur.Object) {
		t.Error("the deleted object is still frozen")
	}
}
