package controller_test

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/jsonvalue"
)

// The cache's reads on a real API server: lists sorted by namespace and
// name, filtered by label selector, shared between reads yet each read its
// own slice, following changes made by others, never undoing the cache's
// own writes (several in a row, read back at once), objects created and
// deleted by others, and no object carrying metadata.managedFields.
func TestCacheReads(t *testing.T) {
	ns, other := uniq("cache-reads"), uniq("cache-reads-other")
	e := newEnv(t, ns, other)
	for _, name := range []string{"c", "a", "b"} {
		e.createCM(ns, name, map[string]string{"x": "0"})
	}
	e.createCM(other, "a", map[string]string{"x": "0"})
	client, err := kube.New(e.cp.Config, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := controller.NewCache(client, time.Hour, time.Now, nil)
	c.SharedReads = true
	t.Cleanup(c.Stop)
	if err := c.Watch(e.ctx, "v1", "ConfigMap"); err != nil {
		t.Fatal(err)
	}
	cm := func(ns, name string) adapters.Ref {
		return adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name}
	}
	list := func(ns, selector string) []map[string]any {
		t.Helper()
		res := c.Do(e.ctx, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns}, LabelSelector: selector})
		if res.Outcome != adapters.OK {
			t.Fatalf("list %s %q: %s %s", ns, selector, res.Outcome, res.Message)
		}
		for _, it := range res.Items {
			noManagedFields(t, it)
		}
		return res.Items
	}
	names := func(items []map[string]any) []string {
		var out []string
		for _, it := range items {
			md := it["metadata"].(map[string]any)
			if n := md["namespace"]; n == ns || n == other {
				out = append(out, fmt.Sprintf("%s/%s", n, md["name"]))
			}
		}
		return out
	}
	data := func(obj map[string]any) any {
		d, _ := obj["data"].(map[string]any)
		return d["x"]
	}

	if got, want := names(list(ns, "")), []string{ns + "/a", ns + "/b", ns + "/c"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list = %v, want %v", got, want)
	}
	if got, want := names(list(ns, "app=b")), []string{ns + "/b"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list app=b = %v, want %v", got, want)
	}
	if got, want := names(list("", "")), []string{ns + "/a", ns + "/b", ns + "/c", other + "/a"}; !reflect.DeepEqual(got, want) {
		t.Errorf("list of every namespace = %v, want %v", got, want)
	}
	first := list(ns, "")
	first[0] = nil
	if again := list(ns, ""); again[0] == nil {
		t.Errorf("a reader's change to its list slice shows in the next read")
	}

	// Changes by another client show up.
	if _, err := e.kc.CoreV1().ConfigMaps(ns).Patch(e.ctx, "a", types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"b"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "the cache follows another client's change", func() (bool, string) {
		got := names(list(ns, "app=b"))
		return reflect.DeepEqual(got, []string{ns + "/a", ns + "/b"}), fmt.Sprint(got)
	})

	// Own writes, several in a row to one object, are read back at once,
	// by get and by list, whether or not the informer has caught up.
	for i := 1; i <= 20; i++ {
		want := fmt.Sprint(i)
		for _, ref := range []adapters.Ref{cm(ns, "b"), cm(ns, "b"), cm(ns, "c")} {
			res := c.Do(e.ctx, adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.MergePatch, Body: raw(`{"data":{"x":"` + want + `"}}`)})
			if res.Outcome != adapters.OK {
				t.Fatalf("patch %s: %s %s", ref, res.Outcome, res.Message)
			}
			noManagedFields(t, res.Object)
		}
		got := c.Do(e.ctx, adapters.Request{Verb: adapters.Get, Ref: cm(ns, "b")})
		if got.Outcome != adapters.OK || data(got.Object) != want {
			t.Fatalf("write %d: get reads x=%v (%s)", i, data(got.Object), got.Outcome)
		}
		noManagedFields(t, got.Object)
		items := list(ns, "")
		if data(items[1]) != want || data(items[2]) != want {
			t.Fatalf("write %d: list reads x=%v, %v", i, data(items[1]), data(items[2]))
		}
	}
	// Once the informer caught up, what others write shows again.
	if _, err := e.kc.CoreV1().ConfigMaps(ns).Patch(e.ctx, "b", types.MergePatchType, []byte(`{"data":{"x":"other"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "another client's write after the cache's own", func() (bool, string) {
		got := c.Do(e.ctx, adapters.Request{Verb: adapters.Get, Ref: cm(ns, "b")})
		items := list(ns, "")
		return data(got.Object) == "other" && data(items[1]) == "other", fmt.Sprint(data(got.Object), data(items[1]))
	})

	// Objects created and deleted by others come and go in the lists
	// (which are brought up to date from the previous ones).
	e.createCM(ns, "d", map[string]string{"x": "0"})
	if err := e.kc.CoreV1().ConfigMaps(ns).Delete(e.ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "creates and deletes by another client", func() (bool, string) {
		all, sel := names(list(ns, "")), names(list(ns, "app=b"))
		return reflect.DeepEqual(all, []string{ns + "/b", ns + "/c", ns + "/d"}) && reflect.DeepEqual(sel, []string{ns + "/b"}), fmt.Sprint(all, sel)
	})

	// An object another client created a moment ago is found by a get at
	// once, before the informer has it (the server answers what the cache
	// does not hold): a patch created just after its target must not read
	// the target as missing and wait minutes for its recheck. Twenty in a
	// row, each read straight after its create, outrun the informer.
	for i := 0; i < 20; i++ {
		name := fmt.Sprintf("fresh-%02d", i)
		e.createCM(ns, name, map[string]string{"x": "0"})
		if got := c.Do(e.ctx, adapters.Request{Verb: adapters.Get, Ref: cm(ns, name)}); got.Outcome != adapters.OK {
			t.Fatalf("get of %s straight after another client created it: %s %s", name, got.Outcome, got.Message)
		}
	}
	// And an object that does not exist is not found, from the server.
	if got := c.Do(e.ctx, adapters.Request{Verb: adapters.Get, Ref: cm(ns, "never")}); got.Outcome != adapters.NotFound {
		t.Fatalf("get of a ConfigMap nobody created: %s %s", got.Outcome, got.Message)
	}
}

func noManagedFields(t *testing.T, obj map[string]any) {
	t.Helper()
	md, _ := obj["metadata"].(map[string]any)
	if _, ok := md["managedFields"]; ok {
		t.Fatalf("%v/%v carries metadata.managedFields", md["namespace"], md["name"])
	}
}

// raw returns the JSON text s as a request body (a canonical JSON value),
// or s itself when it is not JSON (a body the API must refuse).
func raw(s string) any {
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		return s
	}
	return v
}
