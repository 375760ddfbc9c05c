package sim

import (
	"strings"
	"testing"

	"github.com/statecraft/statecraft/adapters"
)

func ownedBy(obj map[string]any, owners ...map[string]any) map[string]any {
	var refs []any
	for _, o := range owners {
		refs = append(refs, map[string]any{
			"apiVersion": o["apiVersion"], "kind": o["kind"], "name": metaString(o, "name"),
			"uid": metaString(o, "uid"), "blockOwnerDeletion": true,
		})
	}
	metadata(obj)["ownerReferences"] = refs
	return obj
}

func withFinalizers(obj map[string]any, fins ...string) map[string]any {
	metadata(obj)["finalizers"] = toAnyList(fins)
	return obj
}

func exists(c *Cluster, ref adapters.Ref) bool {
	_, found := c.Object(ref)
	return found
}

func removeFinalizers(t *testing.T, c *Cluster, ref adapters.Ref) adapters.Result {
	t.Helper()
	return do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Body: raw(`{"metadata":{"finalizers":null}}`)})
}

// settle lets the simulated controllers act until they have nothing left
// to do, moving the clock to each of their runs.
func settle(t *testing.T, c *Cluster) {
	t.Helper()
	for range 100 {
		at, due := c.NextControllerRun()
		if !due {
			return
		}
		c.Clock().Set(at)
		c.RunControllers()
	}
	t.Fatal("the controllers did not settle")
}

func TestGarbageCollection(t *testing.T) {
	for _, tc := range []struct {
		name        string
		propagation string
		childFin    bool // the child has a finalizer
		// right after the owner's Delete
		ownerGoneAtOnce bool
		// once the controllers settled
		ownerGone, childGone, grandchildGone, childKeepsRef bool
	}{
		{"background", "", false, true, true, true, true, false},
		{"explicit background", "Background", false, true, true, true, true, false},
		{"orphan", "Orphan", false, false, true, false, false, false},
		{"foreground", "Foreground", false, false, true, true, true, false},
		{"foreground waits for a finalizing dependent", "Foreground", true, false, false, false, true, true},
		// The deleting child is still a live owner: its dependents wait for it.
		{"background with a finalizing dependent", "Background", true, true, true, false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			owner := create(t, c, deployment("owner", 1))
			child := configMap("default", "child", nil, nil)
			ownedBy(child, owner)
			if tc.childFin {
				withFinalizers(child, "example.com/hold")
			}
			child = create(t, c, child)
			create(t, c, ownedBy(configMap("default", "grandchild", nil, nil), child))

			res := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: deployRef("owner"), Propagation: tc.propagation}))
			if got := !exists(c, deployRef("owner")); got != tc.ownerGoneAtOnce {
				t.Fatalf("owner gone at once = %v, want %v", got, tc.ownerGoneAtOnce)
			}
			// The server answers a completed delete with no object, one
			// that leaves the object with its finalizers with the object.
			if tc.ownerGoneAtOnce != (res.Object == nil) {
				t.Errorf("delete answered %v", res.Object)
			}
			if !exists(c, cmRef("default", "child")) {
				t.Fatal("the child went with the delete, before the garbage collector acted")
			}
			settle(t, c)
			if got := !exists(c, deployRef("owner")); got != tc.ownerGone {
				t.Fatalf("owner gone = %v, want %v", got, tc.ownerGone)
			}
			if got := !exists(c, cmRef("default", "child")); got != tc.childGone {
				t.Fatalf("child gone = %v, want %v", got, tc.childGone)
			}
			if got := !exists(c, cmRef("default", "grandchild")); got != tc.grandchildGone {
				t.Fatalf("grandchild gone = %v, want %v", got, tc.grandchildGone)
			}
			if !tc.ownerGone {
				stored, _ := c.Object(deployRef("owner"))
				if metaString(stored, "deletionTimestamp") == "" || !contains(stringList(metadata(stored)["finalizers"]), "foregroundDeletion") {
					t.Errorf("waiting owner: %v", stored["metadata"])
				}
			}
			if stored, found := c.Object(cmRef("default", "child")); found {
				_, hasRef := metadata(stored)["ownerReferences"]
				if hasRef != tc.childKeepsRef {
					t.Errorf("child keeps owner reference = %v, want %v", hasRef, tc.childKeepsRef)
				}
			}
			for _, r := range c.Writes() {
				if r.Identity != "" && r.Identity != GarbageCollectorIdentity {
					t.Errorf("a write as %q", r.Identity)
				}
				if r.Identity == GarbageCollectorIdentity && !r.Time.After(start) {
					t.Errorf("the garbage collector acted at %v, with the delete", r.Time)
				}
			}
			if tc.childFin {
				// Releasing the child ends every pending deletion.
				mustOK(t, removeFinalizers(t, c, cmRef("default", "child")))
				settle(t, c)
				for _, ref := range []adapters.Ref{deployRef("owner"), cmRef("default", "child"), cmRef("default", "grandchild")} {
					if exists(c, ref) {
						t.Errorf("%s still exists after the finalizer was removed", ref)
					}
				}
			}
		})
	}
}

func TestGarbageCollectionKeepsDependentsWithLiveOwners(t *testing.T) {
	c := newCluster(t)
	a := create(t, c, configMap("default", "a", nil, nil))
	b := create(t, c, configMap("default", "b", nil, nil))
	create(t, c, ownedBy(configMap("default", "shared", nil, nil), a, b))
	mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "a")}))
	settle(t, c)
	shared, found := c.Object(cmRef("default", "shared"))
	if !found {
		t.Fatal("dependent with a live owner was deleted")
	}
	refs := metadata(shared)["ownerReferences"].([]any)
	if len(refs) != 1 || refs[0].(map[string]any)["name"] != "b" {
		t.Errorf("owner references %v", refs)
	}
	mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "b")}))
	settle(t, c)
	if exists(c, cmRef("default", "shared")) {
		t.Error("dependent survived its last owner")
	}
	// An owner of a kind the server does not serve cannot be looked up:
	// the garbage collector leaves its dependent alone, as kube's does.
	odd := configMap("default", "odd", nil, nil)
	metadata(odd)["ownerReferences"] = []any{map[string]any{"apiVersion": "example.com/v1", "kind": "Other", "name": "x", "uid": "nope"}}
	create(t, c, odd)
	// One of a served kind with another uid is gone: collected.
	stale := configMap("default", "stale", nil, nil)
	metadata(stale)["ownerReferences"] = []any{map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "odd", "uid": "not-odd"}}
	create(t, c, stale)
	settle(t, c)
	if !exists(c, cmRef("default", "odd")) || exists(c, cmRef("default", "stale")) {
		t.Errorf("odd kept %v, stale kept %v", exists(c, cmRef("default", "odd")), exists(c, cmRef("default", "stale")))
	}
}

func TestFinalizers(t *testing.T) {
	c := newCluster(t)
	obj := create(t, c, withFinalizers(deployment("a", 1), "example.com/a", "example.com/b"))
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: deployRef("a")}))
	if metaString(res.Object, "deletionTimestamp") != "2026-01-01T00:00:00Z" || generationOf(res.Object) != 2 {
		t.Errorf("deleting object: %v", res.Object["metadata"])
	}
	if metaString(res.Object, "resourceVersion") == metaString(obj, "resourceVersion") {
		t.Error("setting deletionTimestamp did not bump resourceVersion")
	}
	// A second delete changes nothing.
	again := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: deployRef("a")}))
	if metaString(again.Object, "resourceVersion") != metaString(res.Object, "resourceVersion") {
		t.Error("second delete changed the object")
	}
	// New finalizers may not be added; the timestamp may not be cleared.
	bad := do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.JSONPatch, Ref: deployRef("a"),
		Body: raw(`[{"op":"add","path":"/metadata/finalizers/-","value":"example.com/c"}]`)})
	if bad.Outcome != adapters.Invalid || !strings.Contains(bad.Message, "no new finalizers") {
		t.Errorf("adding a finalizer while deleting: %s %q", bad.Outcome, bad.Message)
	}
	kept := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: deployRef("a"),
		Body: raw(`{"metadata":{"deletionTimestamp":null,"finalizers":["example.com/b"]}}`)}))
	if metaString(kept.Object, "deletionTimestamp") == "" {
		t.Error("a client cleared deletionTimestamp")
	}
	if !exists(c, deployRef("a")) {
		t.Fatal("object went while a finalizer remained")
	}
	// Removing the last finalizer removes the object.
	final := mustOK(t, removeFinalizers(t, c, deployRef("a")))
	if exists(c, deployRef("a")) {
		t.Error("object stayed after its last finalizer was removed")
	}
	if final.Object == nil {
		t.Error("no object in the result of the last update")
	}
	// Dry-run of the finalizing delete.
	create(t, c, withFinalizers(configMap("default", "b", nil, nil), "x.io/y"))
	dry := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "b"), DryRun: true}))
	if metaString(dry.Object, "deletionTimestamp") == "" {
		t.Error("dry-run delete result lacks deletionTimestamp")
	}
	if stored, _ := c.Object(cmRef("default", "b")); metaString(stored, "deletionTimestamp") != "" {
		t.Error("dry-run delete marked the object")
	}
	// A ConfigMap keeps no generation, before or after.
	marked := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "b")}))
	if _, has := metadata(marked.Object)["generation"]; has {
		t.Errorf("a deleting ConfigMap has generation %v", metadata(marked.Object)["generation"])
	}
}

func TestNamespaceDeletion(t *testing.T) {
	c := newCluster(t)
	nsRef := adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: "team"}
	ns := mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: nsRef, Body: raw(`{}`)})).Object
	if pathValue(ns, "/status/phase") != "Active" {
		t.Errorf("new namespace: %v", ns)
	}
	create(t, c, configMap("team", "plain", nil, nil))
	create(t, c, withFinalizers(configMap("team", "held", nil, nil), "x.io/hold"))
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: nsRef}))
	if pathValue(res.Object, "/status/phase") != "Terminating" {
		t.Errorf("deleting namespace: %v", res.Object)
	}
	if !exists(c, cmRef("team", "plain")) {
		t.Fatal("the content went with the delete, before the namespace controller acted")
	}
	fail := do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("team", "new"), Body: raw(`{}`)})
	if fail.Outcome != adapters.Forbidden || !strings.Contains(fail.Message, "being terminated") {
		t.Errorf("create in terminating namespace: %s %q", fail.Outcome, fail.Message)
	}
	settle(t, c)
	if exists(c, cmRef("team", "plain")) || !exists(c, cmRef("team", "held")) || !exists(c, nsRef) {
		t.Fatal("namespace content not handled as expected")
	}
	mustOK(t, removeFinalizers(t, c, cmRef("team", "held")))
	settle(t, c)
	if exists(c, nsRef) || exists(c, cmRef("team", "held")) {
		t.Error("namespace or content remained")
	}
	var seen []string
	for _, r := range c.Writes() {
		if r.Identity == NamespaceControllerIdentity {
			seen = append(seen, string(r.Verb)+" "+r.Ref.String()+" "+r.Subresource)
		}
	}
	if want := []string{"delete ConfigMap/team/held ", "delete ConfigMap/team/plain ", "update Namespace/team finalize"}; strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("the namespace controller did %q, want %q", seen, want)
	}
	// WithoutNamespaceCheck lets content appear anywhere.
	lenient := newCluster(t, WithoutNamespaceCheck())
	create(t, lenient, configMap("nowhere", "a", nil, nil))
}

func TestCustomResourceDefinitions(t *testing.T) {
	c := newCluster(t)
	crd := map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "objectpatches.rightsizing.kubex.ai"},
		"spec": map[string]any{
			"group": "rightsizing.kubex.ai", "scope": "Namespaced",
			"names": map[string]any{"kind": "ObjectPatch", "plural": "objectpatches"},
			"versions": []any{
				map[string]any{"name": "v1alpha1", "served": true, "storage": true, "subresources": map[string]any{"status": map[string]any{}},
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
				map[string]any{"name": "v1alpha0", "served": false, "storage": false,
					"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}}},
			},
		},
	}
	crdRef := RefOf(crd)
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: crdRef, Body: body(crd)}))
	stored, _ := c.Object(crdRef)
	if !strings.Contains(string(mustJSON(stored["status"])), `"Established"`) {
		t.Errorf("CRD status %v", stored["status"])
	}
	ctx := t.Context()
	if s := c.Scope(ctx, "rightsizing.kubex.ai/v1alpha1", "ObjectPatch"); s != adapters.Namespaced {
		t.Errorf("served scope %q", s)
	}
	if s := c.Scope(ctx, "rightsizing.kubex.ai/v1alpha0", "ObjectPatch"); s != adapters.Unknown {
		t.Errorf("unserved version scope %q", s)
	}
	cr := map[string]any{"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
		"metadata": map[string]any{"name": "p", "namespace": "default"}, "spec": map[string]any{"a": 1}}
	create(t, c, cr)
	st := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Subresource: "status", Ref: RefOf(cr), Body: raw(`{"status":{"phase":"Applied"}}`)}))
	if field(st.Object, "/status/phase") != "Applied" {
		t.Errorf("CR status %v", st.Object)
	}
	denied := do(c, adapters.Request{Verb: adapters.Get, Ref: RefOf(cr)})
	mustOK(t, denied)
	mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: crdRef}))
	settle(t, c)
	if s := c.Scope(ctx, "rightsizing.kubex.ai/v1alpha1", "ObjectPatch"); s != adapters.Unknown {
		t.Errorf("scope after CRD deletion %q", s)
	}
	if n := len(c.Objects("rightsizing.kubex.ai/v1alpha1", "ObjectPatch")); n != 0 {
		t.Errorf("%d custom resources outlived their CRD", n)
	}
}

func TestLeases(t *testing.T) {
	c := newCluster(t)
	ref := adapters.Ref{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Namespace: "kube-system", Name: "statecraft"}
	lease := map[string]any{"spec": map[string]any{"holderIdentity": "a", "leaseDurationSeconds": 15, "renewTime": "2026-01-01T00:00:00.000000Z"}}
	obj := mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: body(lease)})).Object
	// Two candidates race to take over with the same resourceVersion.
	take := func(holder string) adapters.Result {
		o := copyObject(obj)
		o["spec"].(map[string]any)["holderIdentity"] = holder
		return do(c, adapters.Request{Verb: adapters.Update, Ref: ref, Body: body(o), Identity: holder})
	}
	mustOK(t, take("b"))
	if res := take("c"); res.Outcome != adapters.Conflict {
		t.Errorf("second takeover: %s", res.Outcome)
	}
	got, _ := c.Object(ref)
	if field(got, "/spec/holderIdentity") != "b" {
		t.Errorf("holder %v", field(got, "/spec/holderIdentity"))
	}
}
