package kube

import (
	"context"
	"testing"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
)

// A delete answers as the server does, on both adapters: with no object
// when the object is gone, with the object when its finalizers hold it
// (deletionTimestamp set), Orphan propagation adding the orphan finalizer.
func TestDeleteAnswers(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	s := sim.New(nil)
	if err := s.Apply(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": ns}}); err != nil {
		t.Fatal(err)
	}
	for name, api := range map[string]adapters.API{"kube-apiserver": c, "simulator": s} {
		do := func(req adapters.Request) adapters.Result {
			res := api.Do(context.Background(), req)
			if res.Outcome != adapters.OK {
				t.Fatalf("%s: %s %s: %s %s", name, req.Verb, req.Ref, res.Outcome, res.Message)
			}
			return res
		}
		do(adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "gone"), Body: raw(`{"data":{"a":"1"}}`)})
		if res := do(adapters.Request{Verb: adapters.Delete, Ref: cmRef(ns, "gone")}); res.Object != nil {
			t.Errorf("%s: a completed delete answered %v", name, res.Object)
		}
		do(adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "held"), Body: raw(`{"metadata":{"finalizers":["example.com/hold"]}}`)})
		res := do(adapters.Request{Verb: adapters.Delete, Ref: cmRef(ns, "held")})
		if field(res.Object, "metadata", "deletionTimestamp") == "" {
			t.Errorf("%s: a held delete answered %v", name, res.Object)
		}
		do(adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "orphaned"), Body: raw(`{}`)})
		res = do(adapters.Request{Verb: adapters.Delete, Ref: cmRef(ns, "orphaned"), Propagation: "Orphan"})
		if fins, _ := res.Object["metadata"].(map[string]any)["finalizers"].([]any); len(fins) != 1 || fins[0] != "orphan" {
			t.Errorf("%s: an orphaning delete answered %v", name, res.Object)
		}
		for _, n := range []string{"held", "orphaned"} {
			do(adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef(ns, n), Body: raw(`{"metadata":{"finalizers":null}}`)})
		}
	}
}
