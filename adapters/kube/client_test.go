package kube

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/adapters"
)

func TestVerbsOnConfigMaps(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	ref := cmRef(ns, "one")

	// create: apiVersion, kind, name and namespace come from the reference.
	created := expect(t, c, adapters.Request{Verb: adapters.Create, Ref: ref,
		Body: raw(`{"metadata":{"labels":{"app":"x"}},"data":{"a":"1"}}`)}, adapters.OK)
	if field(created.Object, "data", "a") != "1" || field(created.Object, "metadata", "uid") == "" {
		t.Fatalf("create returned %v", created.Object)
	}
	if mf := field(created.Object, "metadata", "managedFields"); !strings.Contains(mf, "statecraft-test") {
		t.Errorf("create: default field manager not used: %s", mf)
	}

	// get
	got := expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.OK)
	if field(got.Object, "metadata", "resourceVersion") != field(created.Object, "metadata", "resourceVersion") {
		t.Fatalf("get: resourceVersion %s, created %s", field(got.Object, "metadata", "resourceVersion"),
			field(created.Object, "metadata", "resourceVersion"))
	}

	// update, carrying the resourceVersion read
	upd := got.Object
	upd["data"] = map[string]any{"a": "2"}
	updated := expect(t, c, adapters.Request{Verb: adapters.Update, Ref: ref, Body: upd}, adapters.OK)
	if field(updated.Object, "data", "a") != "2" {
		t.Fatalf("update returned %v", updated.Object)
	}

	// merge patch (the default patch type), with a field manager
	patched := expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.MergePatch,
		FieldManager: "merger", Body: raw(`{"data":{"b":"3","a":null}}`)}, adapters.OK)
	if field(patched.Object, "data", "b") != "3" || field(patched.Object, "data", "a") != "" {
		t.Fatalf("merge patch returned %v", patched.Object["data"])
	}
	if mf := field(patched.Object, "metadata", "managedFields"); !strings.Contains(mf, "merger") {
		t.Errorf("merge patch: field manager not recorded: %s", mf)
	}

	// JSON patch
	patched = expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.JSONPatch,
		Body: raw(`[{"op":"add","path":"/data/c","value":"4"},{"op":"remove","path":"/data/b"}]`)}, adapters.OK)
	if field(patched.Object, "data", "c") != "4" || field(patched.Object, "data", "b") != "" {
		t.Fatalf("json patch returned %v", patched.Object["data"])
	}
	// a JSON patch whose test fails is the request's fault
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.JSONPatch,
		Body: raw(`[{"op":"test","path":"/data/c","value":"nope"}]`)}, adapters.Invalid)

	// server-side apply
	applied := expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.ApplyPatch,
		FieldManager: "applier", Force: true,
		Body: raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"one"},"data":{"d":"5"}}`)}, adapters.OK)
	if field(applied.Object, "data", "d") != "5" || field(applied.Object, "data", "c") != "4" {
		t.Fatalf("apply returned %v", applied.Object["data"])
	}

	// server-side apply creates a missing object
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: cmRef(ns, "applied"), PatchType: adapters.ApplyPatch,
		FieldManager: "applier",
		Body:         raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"applied"},"data":{"x":"y"}}`)}, adapters.OK)

	// delete, then get and delete again are NotFound
	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: ref, Propagation: "Background"}, adapters.OK)
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.NotFound)
	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: ref}, adapters.NotFound)
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, Body: raw(`{"data":{"z":"1"}}`)}, adapters.NotFound)
	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: cmRef(ns, "applied"), Propagation: "Orphan"}, adapters.OK)
	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: cmRef(ns, "applied"), Propagation: "Sideways"}, adapters.Invalid)
}

func TestListSelectsAndSorts(t *testing.T) {
	c := cluster(t)
	nsB := namespace(t, c)
	nsA := namespace(t, c)
	if nsA > nsB {
		nsA, nsB = nsB, nsA
	}
	for _, o := range []struct{ ns, name, tier string }{
		{nsB, "b", "web"}, {nsA, "c", "web"}, {nsB, "a", "web"}, {nsA, "a", "db"}, {nsA, "b", "web"},
	} {
		expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(o.ns, o.name),
			Body: raw(`{"metadata":{"labels":{"statecraft-test":"list","tier":"` + o.tier + `"}}}`)}, adapters.OK)
	}
	names := func(items []map[string]any) string {
		var s []string
		for _, it := range items {
			s = append(s, field(it, "metadata", "namespace")+"/"+field(it, "metadata", "name"))
		}
		return strings.Join(s, " ")
	}

	// every namespace, sorted by namespace then name
	all := expect(t, c, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap"},
		LabelSelector: "statecraft-test=list,tier=web"}, adapters.OK)
	if got, want := names(all.Items), nsA+"/b "+nsA+"/c "+nsB+"/a "+nsB+"/b"; got != want {
		t.Fatalf("list all namespaces = %q, want %q", got, want)
	}
	// one namespace
	one := expect(t, c, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: nsA},
		LabelSelector: "statecraft-test=list"}, adapters.OK)
	if got, want := names(one.Items), nsA+"/a "+nsA+"/b "+nsA+"/c"; got != want {
		t.Fatalf("list one namespace = %q, want %q", got, want)
	}
	// a malformed selector is the request's fault
	expect(t, c, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: nsA},
		LabelSelector: "tier in (web"}, adapters.Invalid)
}

func TestDryRunStoresNothing(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	ref := cmRef(ns, "dry")

	res := expect(t, c, adapters.Request{Verb: adapters.Create, Ref: ref, DryRun: true, Body: raw(`{"data":{"a":"1"}}`)}, adapters.OK)
	if field(res.Object, "data", "a") != "1" {
		t.Fatalf("dry-run create returned %v", res.Object)
	}
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.NotFound)

	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{"data":{"a":"1"}}`)}, adapters.OK)
	for _, pt := range []adapters.PatchType{adapters.MergePatch, adapters.JSONPatch, adapters.ApplyPatch} {
		body := map[adapters.PatchType]string{
			adapters.MergePatch: `{"data":{"a":"2"}}`,
			adapters.JSONPatch:  `[{"op":"replace","path":"/data/a","value":"2"}]`,
			adapters.ApplyPatch: `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dry"},"data":{"a":"2"}}`,
		}[pt]
		res = expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: pt, DryRun: true, Force: true,
			Body: raw(body)}, adapters.OK)
		if field(res.Object, "data", "a") != "2" {
			t.Fatalf("dry-run %s patch returned %v", pt, res.Object["data"])
		}
	}
	// a dry run that would be rejected is classified like the real thing
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: widgetRef(ns, "bad"), DryRun: true,
		Body: raw(`{"spec":{"size":-1}}`)}, adapters.Invalid)

	got := expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.OK)
	upd := got.Object
	upd["data"] = map[string]any{"a": "3"}
	expect(t, c, adapters.Request{Verb: adapters.Update, Ref: ref, DryRun: true, Body: upd}, adapters.OK)
	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: ref, DryRun: true}, adapters.OK)

	after := expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.OK)
	if field(after.Object, "data", "a") != "1" {
		t.Fatalf("after dry runs data = %v, want a=1", after.Object["data"])
	}
	if field(after.Object, "metadata", "resourceVersion") != field(got.Object, "metadata", "resourceVersion") {
		t.Fatalf("dry runs changed the resourceVersion")
	}
}

func TestStatusSubresource(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	ref := widgetRef(ns, "w")

	created := expect(t, c, adapters.Request{Verb: adapters.Create, Ref: ref,
		Body: raw(`{"spec":{"size":1},"status":{"phase":"Ignored"}}`)}, adapters.OK)
	if field(created.Object, "status", "phase") != "" {
		t.Fatalf("create wrote status through the main resource: %v", created.Object["status"])
	}

	// a status patch writes status and ignores spec
	res := expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, Subresource: "status", PatchType: adapters.MergePatch,
		Body: raw(`{"spec":{"size":9},"status":{"phase":"Applied"}}`)}, adapters.OK)
	if field(res.Object, "status", "phase") != "Applied" || field(res.Object, "spec", "size") != "1" {
		t.Fatalf("status patch returned %v", res.Object)
	}
	// a main-resource patch ignores status
	res = expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.MergePatch,
		Body: raw(`{"spec":{"size":2},"status":{"phase":"Overwritten"}}`)}, adapters.OK)
	if field(res.Object, "status", "phase") != "Applied" || field(res.Object, "spec", "size") != "2" {
		t.Fatalf("main patch returned %v", res.Object)
	}

	// get and update through the status subresource
	got := expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref, Subresource: "status"}, adapters.OK)
	obj := got.Object
	obj["status"] = map[string]any{"phase": "Error"}
	res = expect(t, c, adapters.Request{Verb: adapters.Update, Ref: ref, Subresource: "status", Body: obj}, adapters.OK)
	if field(res.Object, "status", "phase") != "Error" {
		t.Fatalf("status update returned %v", res.Object["status"])
	}
	// the stale object now conflicts
	expect(t, c, adapters.Request{Verb: adapters.Update, Ref: ref, Subresource: "status", Body: obj}, adapters.Conflict)

	// server-side apply on status, dry run first
	body := raw(`{"apiVersion":"test.statecraft.dev/v1","kind":"Widget","metadata":{"name":"w"},"status":{"phase":"Pending"}}`)
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, Subresource: "status", PatchType: adapters.ApplyPatch,
		FieldManager: "status-applier", Force: true, DryRun: true, Body: body}, adapters.OK)
	if got := expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.OK); field(got.Object, "status", "phase") != "Error" {
		t.Fatalf("dry-run status apply stored %v", got.Object["status"])
	}
	res = expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, Subresource: "status", PatchType: adapters.ApplyPatch,
		FieldManager: "status-applier", Force: true, Body: body}, adapters.OK)
	if field(res.Object, "status", "phase") != "Pending" {
		t.Fatalf("status apply returned %v", res.Object["status"])
	}

	// ConfigMaps have no status subresource
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "cm"), Body: raw(`{}`)}, adapters.OK)
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: cmRef(ns, "cm"), Subresource: "status",
		Body: raw(`{"status":{}}`)}, adapters.NotFound)
}

func TestValidationIsInvalid(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: widgetRef(ns, "neg"), Body: raw(`{"spec":{"size":-1}}`)}, adapters.Invalid)
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: widgetRef(ns, "ok"), Body: raw(`{"spec":{"size":1}}`)}, adapters.OK)
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: widgetRef(ns, "ok"), Body: raw(`{"spec":{"size":"big"}}`)}, adapters.Invalid)
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: widgetRef(ns, "ok"), Body: raw(`not json`)}, adapters.Invalid)
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: widgetRef(ns, "ok"), PatchType: "strategic", Body: raw(`{}`)}, adapters.Invalid)
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "Not_A_Name"), Body: raw(`{}`)}, adapters.Invalid)
	// bodies the adapter refuses before sending
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "x"), Body: raw(`{`)}, adapters.Invalid)
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "x"), Body: raw(`{"metadata":{"name":"y"}}`)}, adapters.Invalid)
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, "x"), Body: raw(`{"kind":"Secret"}`)}, adapters.Invalid)
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: cmRef(ns, "")}, adapters.Invalid)
	// a create in a namespace that does not exist
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(ns+"-absent", "x"), Body: raw(`{}`)}, adapters.NotFound)
	// generateName instead of a name
	res := expect(t, c, adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, ""),
		Body: raw(`{"metadata":{"generateName":"gen-"}}`)}, adapters.OK)
	if !strings.HasPrefix(field(res.Object, "metadata", "name"), "gen-") {
		t.Fatalf("generateName: %v", res.Object["metadata"])
	}
}

func TestConflicts(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	ref := cmRef(ns, "c")
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{"data":{"a":"1"}}`)}, adapters.OK)
	// AlreadyExists
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{}`)}, adapters.Conflict)

	// a stale resourceVersion
	stale := expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.OK).Object
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, Body: raw(`{"data":{"a":"2"}}`)}, adapters.OK)
	stale["data"] = map[string]any{"a": "3"}
	expect(t, c, adapters.Request{Verb: adapters.Update, Ref: ref, Body: stale}, adapters.Conflict)
	// a merge patch that pins the stale resourceVersion
	rv := field(stale, "metadata", "resourceVersion")
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref,
		Body: raw(`{"metadata":{"resourceVersion":"` + rv + `"},"data":{"a":"4"}}`)}, adapters.Conflict)

	// server-side apply: another manager's field without force conflicts
	apply := func(manager, value string, force bool) adapters.Request {
		return adapters.Request{Verb: adapters.Patch, Ref: ref, PatchType: adapters.ApplyPatch, FieldManager: manager, Force: force,
			Body: raw(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"owned":"` + value + `"}}`)}
	}
	expect(t, c, apply("first", "1", false), adapters.OK)
	expect(t, c, apply("second", "2", false), adapters.Conflict)
	res := expect(t, c, apply("second", "2", true), adapters.OK)
	if field(res.Object, "data", "owned") != "2" {
		t.Fatalf("forced apply returned %v", res.Object["data"])
	}
}

func TestScopeAndUnsupported(t *testing.T) {
	c := cluster(t)
	ctx := context.Background()
	for _, tc := range []struct {
		apiVersion, kind string
		want             adapters.Scope
	}{
		{"v1", "ConfigMap", adapters.Namespaced},
		{"v1", "Namespace", adapters.Cluster},
		{"apps/v1", "Deployment", adapters.Namespaced},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", adapters.Cluster},
		{"test.statecraft.dev/v1", "Widget", adapters.Namespaced},
		{"test.statecraft.dev/v1", "Gadget", adapters.Cluster},
		{"test.statecraft.dev/v1", "Gizmo", adapters.Unknown},
		{"test.statecraft.dev/v2", "Widget", adapters.Unknown},
		{"apps/v9", "Deployment", adapters.Unknown},
		{"nonsense/v1/extra", "Thing", adapters.Unknown},
		{"", "ConfigMap", adapters.Unknown},
	} {
		if got := c.Scope(ctx, tc.apiVersion, tc.kind); got != tc.want {
			t.Errorf("Scope(%s, %s) = %q, want %q", tc.apiVersion, tc.kind, got, tc.want)
		}
	}

	ns := namespace(t, c)
	for _, ref := range []adapters.Ref{
		{APIVersion: "test.statecraft.dev/v1", Kind: "Gizmo", Namespace: ns, Name: "x"},
		{APIVersion: "apps/v9", Kind: "Deployment", Namespace: ns, Name: "x"},
		// scope mismatches
		{APIVersion: "v1", Kind: "ConfigMap", Name: "x"},
		{APIVersion: "test.statecraft.dev/v1", Kind: "Gadget", Namespace: ns, Name: "x"},
	} {
		expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.Unsupported)
	}
	expect(t, c, adapters.Request{Verb: "watch", Ref: cmRef(ns, "x")}, adapters.Unsupported)

	// a cluster-scoped custom resource round trip
	g := adapters.Ref{APIVersion: "test.statecraft.dev/v1", Kind: "Gadget", Name: ns + "-gadget"}
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: g, Body: raw(`{"spec":{"any":"thing"}}`)}, adapters.OK)
	res := expect(t, c, adapters.Request{Verb: adapters.Get, Ref: g}, adapters.OK)
	if field(res.Object, "spec", "any") != "thing" {
		t.Fatalf("gadget %v", res.Object)
	}
	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: g}, adapters.OK)
}

func TestMapperRefreshesOnMiss(t *testing.T) {
	c := cluster(t)
	// A fresh client whose discovery cache predates the CRD.
	fresh, err := New(testPlane.Config, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const apiVersion, kind = "late.statecraft.dev/v1", "Latecomer"
	if s := fresh.Scope(context.Background(), "v1", "ConfigMap"); s != adapters.Namespaced {
		t.Fatalf("scope of ConfigMap = %q", s)
	}
	if s := fresh.Scope(context.Background(), apiVersion, kind); s != adapters.Unknown {
		t.Fatalf("scope before the CRD = %q", s)
	}
	before := fresh.Refreshes()
	if before == 0 {
		t.Fatalf("a miss did not refresh discovery")
	}

	crd := `{"metadata":{"name":"latecomers.late.statecraft.dev"},"spec":{"group":"late.statecraft.dev","scope":"Cluster",
	"names":{"kind":"Latecomer","listKind":"LatecomerList","plural":"latecomers","singular":"latecomer"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	expect(t, c, adapters.Request{Verb: adapters.Create,
		Ref:  adapters.Ref{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		Body: raw(crd)}, adapters.OK)

	deadline := time.Now().Add(30 * time.Second)
	for fresh.Scope(context.Background(), apiVersion, kind) != adapters.Cluster {
		if time.Now().After(deadline) {
			t.Fatalf("the new kind never became known")
		}
		time.Sleep(100 * time.Millisecond)
	}
	// once known, hits do not refresh
	n := fresh.Refreshes()
	ref := adapters.Ref{APIVersion: apiVersion, Kind: kind, Name: "first"}
	expect(t, fresh, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{}`)}, adapters.OK)
	expect(t, fresh, adapters.Request{Verb: adapters.Get, Ref: ref}, adapters.OK)
	if fresh.Refreshes() != n {
		t.Fatalf("hits refreshed discovery: %d -> %d", n, fresh.Refreshes())
	}
}

func TestImpersonationDeniedByRBAC(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	ref := cmRef(ns, "target")
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{"data":{"a":"1"}}`)}, adapters.OK)

	const alice = "alice@example.com"
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref, Identity: alice}, adapters.Forbidden)
	expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, Identity: alice, Body: raw(`{"data":{"a":"2"}}`)}, adapters.Forbidden)
	// Forbidden wins over NotFound: alice may not learn what exists.
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: cmRef(ns, "absent"), Identity: alice}, adapters.Forbidden)

	// grant alice get and patch on configmaps in the namespace only
	expect(t, c, adapters.Request{Verb: adapters.Create,
		Ref:  adapters.Ref{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role", Namespace: ns, Name: "cm-patcher"},
		Body: raw(`{"rules":[{"apiGroups":[""],"resources":["configmaps"],"verbs":["get","patch"]}]}`)}, adapters.OK)
	expect(t, c, adapters.Request{Verb: adapters.Create,
		Ref: adapters.Ref{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: ns, Name: "alice"},
		Body: raw(`{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"cm-patcher"},
			"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"` + alice + `"}]}`)}, adapters.OK)

	// RBAC is evaluated from an informer cache in the API server: wait for it.
	deadline := time.Now().Add(10 * time.Second)
	for c.Do(context.Background(), adapters.Request{Verb: adapters.Get, Ref: ref, Identity: alice}).Outcome != adapters.OK {
		if time.Now().After(deadline) {
			t.Fatal("the RoleBinding never took effect")
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := expect(t, c, adapters.Request{Verb: adapters.Patch, Ref: ref, Identity: alice, FieldManager: "alice-tool",
		Body: raw(`{"data":{"a":"2"}}`)}, adapters.OK)
	if mf := field(res.Object, "metadata", "managedFields"); !strings.Contains(mf, "alice-tool") {
		t.Errorf("impersonated patch: field manager missing: %s", mf)
	}
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: cmRef(ns, "absent"), Identity: alice}, adapters.NotFound)
	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: ref, Identity: alice}, adapters.Forbidden)
	expect(t, c, adapters.Request{Verb: adapters.List, Ref: cmRef(ns, ""), Identity: alice}, adapters.Forbidden)
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "kube-root-ca.crt"), Identity: alice}, adapters.Forbidden)
	// the engine's own identity is unaffected
	expect(t, c, adapters.Request{Verb: adapters.List, Ref: cmRef(ns, "")}, adapters.OK)

	// a service account identity gets its groups from the API server
	sa := "system:serviceaccount:" + ns + ":delegate"
	expect(t, c, adapters.Request{Verb: adapters.Get, Ref: ref, Identity: sa}, adapters.Forbidden)
	expect(t, c, adapters.Request{Verb: adapters.Create,
		Ref: adapters.Ref{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: ns, Name: "sas"},
		Body: raw(`{"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"cm-patcher"},
			"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"Group","name":"system:serviceaccounts:` + ns + `"}]}`)}, adapters.OK)
	deadline = time.Now().Add(10 * time.Second)
	for c.Do(context.Background(), adapters.Request{Verb: adapters.Get, Ref: ref, Identity: sa}).Outcome != adapters.OK {
		if time.Now().After(deadline) {
			t.Fatal("the group RoleBinding never took effect for the service account")
		}
		time.Sleep(50 * time.Millisecond)
	}

	// a user who may not impersonate is refused
	bobCfg, err := testPlane.AddUser("bob")
	if err != nil {
		t.Fatal(err)
	}
	bob, err := New(bobCfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// bob cannot even discover (discovery is allowed to system:authenticated), so use a kind he can map
	res = bob.Do(context.Background(), adapters.Request{Verb: adapters.Get, Ref: ref, Identity: alice})
	if res.Outcome != adapters.Forbidden {
		t.Fatalf("bob impersonating alice: %q %s", res.Outcome, res.Message)
	}
	if !strings.Contains(res.Message, "impersonate") {
		t.Errorf("bob impersonating alice: message %q does not mention impersonation", res.Message)
	}
}

func TestUnreachableServerIsTransient(t *testing.T) {
	cfg := &rest.Config{Host: "https://127.0.0.1:1", Timeout: 2 * time.Second}
	c, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	res := c.Do(context.Background(), adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "x")})
	if res.Outcome != adapters.Transient || res.Message == "" {
		t.Fatalf("unreachable server: %q %q", res.Outcome, res.Message)
	}
	if s := c.Scope(context.Background(), "v1", "ConfigMap"); s != adapters.Unknown {
		t.Fatalf("scope against an unreachable server = %q", s)
	}
}

func TestConcurrentRequests(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ident := ""
			if i%4 == 0 {
				ident = "nobody"
			}
			name := "cm" + string(rune('a'+i))
			res := c.Do(context.Background(), adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, name), Body: raw(`{}`), Identity: ident})
			want := adapters.OK
			if ident != "" {
				want = adapters.Forbidden
			}
			if res.Outcome != want {
				errs <- name + ": " + string(res.Outcome) + " " + res.Message
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	list := expect(t, c, adapters.Request{Verb: adapters.List, Ref: cmRef(ns, "")}, adapters.OK)
	// 12 created plus the namespace's kube-root-ca.crt, if a controller made it
	if n := len(list.Items); n < 12 {
		t.Fatalf("list after concurrent creates: %d items", n)
	}
}

// Remembered mappings last only while discovery is not refreshed: a kind
// whose CRD is deleted is Unknown once a later miss refreshed discovery,
// even though its mapping was remembered.
func TestRememberedMappingsForgottenOnRefresh(t *testing.T) {
	c := cluster(t)
	fresh, err := New(testPlane.Config, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const apiVersion, kind = "gone.statecraft.dev/v1", "Goner"
	crdRef := adapters.Ref{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "goners.gone.statecraft.dev"}
	crd := `{"metadata":{"name":"goners.gone.statecraft.dev"},"spec":{"group":"gone.statecraft.dev","scope":"Cluster",
	"names":{"kind":"Goner","listKind":"GonerList","plural":"goners","singular":"goner"},
	"versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	expect(t, c, adapters.Request{Verb: adapters.Create, Ref: crdRef, Body: raw(crd)}, adapters.OK)
	deadline := time.Now().Add(30 * time.Second)
	for fresh.Scope(context.Background(), apiVersion, kind) != adapters.Cluster {
		if time.Now().After(deadline) {
			t.Fatalf("the new kind never became known")
		}
		time.Sleep(100 * time.Millisecond)
	}
	n := fresh.Refreshes()
	for i := 0; i < 3; i++ {
		if s := fresh.Scope(context.Background(), apiVersion, kind); s != adapters.Cluster {
			t.Fatalf("remembered scope = %q", s)
		}
	}
	if fresh.Refreshes() != n {
		t.Fatalf("hits refreshed discovery")
	}

	expect(t, c, adapters.Request{Verb: adapters.Delete, Ref: crdRef}, adapters.OK)
	deadline = time.Now().Add(30 * time.Second)
	for {
		// A miss on another kind refreshes discovery; the deleted kind must
		// then be looked up again, not answered from memory.
		fresh.Scope(context.Background(), "gone.statecraft.dev/v1", "NeverServed")
		if fresh.Scope(context.Background(), apiVersion, kind) == adapters.Unknown {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a deleted kind is still answered after discovery was refreshed")
		}
		time.Sleep(200 * time.Millisecond)
	}
}
