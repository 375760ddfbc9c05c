package controller_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
)

// An object the cache's own client created is read and listed at once,
// before the informer shows it, and a write to it after its creation
// too: a reconcile that creates an object and lists its kind again (a
// ClusterObjectDeployment creating a revision) must find it, or it tries
// to create it again. A replay of a recording found the duplicate create
// (issue 20).
func TestCacheReadsItsOwnCreates(t *testing.T) {
	ns := uniq("cache-creates")
	e := newEnv(t, ns)
	e.createCM(ns, "a", nil)
	client, err := kube.New(e.cp.Config, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := controller.NewCache(client, time.Hour, time.Now, nil)
	t.Cleanup(c.Stop)
	if err := c.Watch(e.ctx, "v1", "ConfigMap"); err != nil {
		t.Fatal(err)
	}
	list := func(selector string) []string {
		t.Helper()
		res := c.Do(e.ctx, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns}, LabelSelector: selector})
		var out []string
		for _, it := range res.Items {
			out = append(out, it["metadata"].(map[string]any)["name"].(string))
		}
		return out
	}
	for i := range 20 {
		name := fmt.Sprintf("made-%02d", i)
		ref := adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name}
		res := c.Do(e.ctx, adapters.Request{Verb: adapters.Create, Ref: ref, Body: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": map[string]any{"made": "yes"}}}})
		if res.Outcome != adapters.OK {
			t.Fatalf("create %s: %s %s", name, res.Outcome, res.Message)
		}
		if got := c.Do(e.ctx, adapters.Request{Verb: adapters.Get, Ref: ref}); got.Outcome != adapters.OK {
			t.Fatalf("get right after creating %s: %s", name, got.Outcome)
		}
		all, made, none := list(""), list("made=yes"), list("made=no")
		if len(all) != i+2 || all[i+1] != name || all[0] != "a" || len(made) != i+1 || len(none) != 0 {
			t.Fatalf("lists right after creating %s: all %v, made=yes %v, made=no %v", name, all, made, none)
		}
		res = c.Do(e.ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Body: map[string]any{"data": map[string]any{"n": fmt.Sprint(i)}}})
		if res.Outcome != adapters.OK {
			t.Fatal(res)
		}
		got := c.Do(e.ctx, adapters.Request{Verb: adapters.Get, Ref: ref})
		if d, _ := got.Object["data"].(map[string]any); got.Outcome != adapters.OK || d["n"] != fmt.Sprint(i) {
			t.Fatalf("get right after patching the new %s: %s %v", name, got.Outcome, got.Object["data"])
		}
	}
}
