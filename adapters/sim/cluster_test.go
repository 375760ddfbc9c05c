package sim

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

func TestClock(t *testing.T) {
	c := NewClock(start)
	if !c.Now().Equal(start) {
		t.Fatalf("Now = %v", c.Now())
	}
	if got := c.Advance(90 * time.Second); !got.Equal(start.Add(90 * time.Second)) {
		t.Fatalf("Advance = %v", got)
	}
	c.Set(start.Add(time.Hour))
	if !c.Now().Equal(start.Add(time.Hour)) {
		t.Fatalf("after Set: %v", c.Now())
	}
	if !NewClock(time.Time{}).Now().Equal(DefaultEpoch) {
		t.Fatal("zero start should read DefaultEpoch")
	}
}

func TestScope(t *testing.T) {
	c := newCluster(t)
	c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, KindOptions{HasStatus: true})
	for _, tc := range []struct {
		apiVersion, kind string
		want             adapters.Scope
	}{
		{"v1", "Namespace", adapters.Cluster},
		{"v1", "ConfigMap", adapters.Namespaced},
		{"v1", "Secret", adapters.Namespaced},
		{"v1", "Service", adapters.Namespaced},
		{"v1", "ServiceAccount", adapters.Namespaced},
		{"apps/v1", "Deployment", adapters.Namespaced},
		{"apps/v1", "StatefulSet", adapters.Namespaced},
		{"apps/v1", "DaemonSet", adapters.Namespaced},
		{"autoscaling/v2", "HorizontalPodAutoscaler", adapters.Namespaced},
		{"policy/v1", "PodDisruptionBudget", adapters.Namespaced},
		{"coordination.k8s.io/v1", "Lease", adapters.Namespaced},
		{"rbac.authorization.k8s.io/v1", "ClusterRole", adapters.Cluster},
		{"apiextensions.k8s.io/v1", "CustomResourceDefinition", adapters.Cluster},
		{"events.k8s.io/v1", "Event", adapters.Namespaced},
		{"example.com/v1", "Widget", adapters.Namespaced},
		{"apps/v1beta1", "Deployment", adapters.Unknown},
		{"v1", "Pod", adapters.Unknown},
	} {
		if got := c.Scope(context.Background(), tc.apiVersion, tc.kind); got != tc.want {
			t.Errorf("Scope(%s, %s) = %q, want %q", tc.apiVersion, tc.kind, got, tc.want)
		}
	}
}

func TestCreateSetsServerFields(t *testing.T) {
	c := newCluster(t)
	c.Clock().Advance(time.Minute)
	obj := create(t, c, configMap("default", "a", nil, map[string]any{"k": "v"}))
	md := obj["metadata"].(map[string]any)
	if md["uid"] == "" || !strings.HasPrefix(md["uid"].(string), "uid-") {
		t.Errorf("uid = %v", md["uid"])
	}
	if _, has := md["generation"]; has {
		t.Errorf("a ConfigMap has generation %v; the server keeps none", md["generation"])
	}
	if g := generationOf(create(t, c, deployment("d", 1))); g != 1 {
		t.Errorf("a Deployment's generation = %v, want 1", g)
	}
	if md["creationTimestamp"] != "2026-01-01T00:01:00Z" {
		t.Errorf("creationTimestamp = %v", md["creationTimestamp"])
	}
	rv := md["resourceVersion"].(string)
	second := create(t, c, configMap("default", "b", nil, nil))
	if rv2 := metaString(second, "resourceVersion"); rv2 <= rv && len(rv2) <= len(rv) {
		t.Errorf("resourceVersion did not grow: %s then %s", rv, rv2)
	}
	if metaString(second, "uid") == md["uid"] {
		t.Error("uids repeat")
	}

	// AlreadyExists is a conflict.
	res := do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: body(configMap("default", "a", nil, nil))})
	if res.Outcome != adapters.Conflict || !strings.Contains(res.Message, "already exists") {
		t.Errorf("duplicate create: %s %q", res.Outcome, res.Message)
	}
	// Results are copies.
	got, _ := get(t, c, cmRef("default", "a"))
	got["data"].(map[string]any)["k"] = "changed"
	again, _ := get(t, c, cmRef("default", "a"))
	if field(again, "/data/k") != "v" {
		t.Error("mutating a result changed the stored object")
	}
	// Missing namespace.
	res = do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("nope", "a"), Body: body(configMap("nope", "a", nil, nil))})
	if res.Outcome != adapters.NotFound {
		t.Errorf("create in missing namespace: %s", res.Outcome)
	}
	// generateName.
	gen := map[string]any{"metadata": map[string]any{"generateName": "x-"}}
	res = mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", ""), Body: body(gen)}))
	if name := metaString(res.Object, "name"); !strings.HasPrefix(name, "x-") || len(name) != 7 {
		t.Errorf("generated name %q", name)
	}
}

func TestDeterministicHistory(t *testing.T) {
	run := func() string {
		c := newCluster(t)
		for _, n := range []string{"b", "a", "c"} {
			create(t, c, configMap("default", n, map[string]any{"app": "x"}, nil))
		}
		res := do(c, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap"}})
		return string(mustJSON(res.Items))
	}
	if a, b := run(), run(); a != b {
		t.Fatalf("two runs differ:\n%s\n%s", a, b)
	}
}

func TestRequestValidation(t *testing.T) {
	c := newCluster(t)
	c.RegisterKind("example.com/v1", "Widget", adapters.Cluster, KindOptions{})
	ns := func(name string) adapters.Ref { return adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: name} }
	for _, tc := range []struct {
		name string
		req  adapters.Request
		want adapters.Outcome
		msg  string
	}{
		{"namespaced without namespace", adapters.Request{Verb: adapters.Get, Ref: cmRef("", "a")}, adapters.Unsupported, "namespaced"},
		{"cluster-scoped with namespace", adapters.Request{Verb: adapters.Get, Ref: adapters.Ref{APIVersion: "v1", Kind: "Namespace", Namespace: "x", Name: "default"}}, adapters.Unsupported, "cluster-scoped"},
		{"cluster-scoped list with namespace", adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "x"}}, adapters.Unsupported, "cluster-scoped"},
		{"unregistered kind", adapters.Request{Verb: adapters.Get, Ref: adapters.Ref{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "p"}}, adapters.Unsupported, "no kind"},
		{"unserved version", adapters.Request{Verb: adapters.Get, Ref: adapters.Ref{APIVersion: "apps/v1beta2", Kind: "Deployment", Namespace: "default", Name: "p"}}, adapters.Unsupported, "no kind"},
		{"status of a kind without it", adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "a"), Subresource: "status"}, adapters.NotFound, "the server could not find the requested resource"},
		{"unknown subresource", adapters.Request{Verb: adapters.Get, Ref: deployRef("a"), Subresource: "scale"}, adapters.NotFound, "the server could not find the requested resource"},
		{"missing object", adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "missing")}, adapters.NotFound, `configmaps "missing" not found`},
		{"missing cluster object", adapters.Request{Verb: adapters.Get, Ref: ns("missing")}, adapters.NotFound, "not found"},
		{"empty name", adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "")}, adapters.Invalid, "name"},
		{"bad body", adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: raw("{")}, adapters.Invalid, "body"},
		{"bad name", adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "A_b"), Body: raw("{}")}, adapters.Invalid, "RFC 1123"},
		{"bad label", adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: body(configMap("default", "a", map[string]any{"a": "-x"}, nil))}, adapters.Invalid, "label"},
		{"name mismatch", adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: body(configMap("default", "b", nil, nil))}, adapters.Invalid, "does not match"},
		{"namespace mismatch", adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: body(configMap("other", "a", nil, nil))}, adapters.Invalid, "namespace"},
		{"kind mismatch", adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: raw(`{"kind":"Secret"}`)}, adapters.Invalid, "kind"},
		{"unknown verb", adapters.Request{Verb: "watch", Ref: cmRef("default", "a")}, adapters.Unsupported, "watch"},
		{"bad propagation", adapters.Request{Verb: adapters.Delete, Ref: ns("default"), Propagation: "Sideways"}, adapters.Invalid, "propagationPolicy"},
		{"status create", adapters.Request{Verb: adapters.Create, Ref: deployRef("a"), Subresource: "status", Body: raw("{}")}, adapters.Unsupported, "does not allow"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := do(c, tc.req)
			if res.Outcome != tc.want || !strings.Contains(res.Message, tc.msg) {
				t.Errorf("got %s %q, want %s containing %q", res.Outcome, res.Message, tc.want, tc.msg)
			}
		})
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if res := c.Do(cancelled, adapters.Request{Verb: adapters.Get, Ref: ns("default")}); res.Outcome != adapters.Transient {
		t.Errorf("cancelled context: %s", res.Outcome)
	}
}

func TestGeneration(t *testing.T) {
	for _, tc := range []struct {
		name  string
		req   func(obj map[string]any) adapters.Request
		want  int64
		bumps bool // resourceVersion changes
	}{
		{"spec change", func(obj map[string]any) adapters.Request {
			return adapters.Request{Verb: adapters.Patch, Ref: deployRef("d"), PatchType: adapters.MergePatch, Body: raw(`{"spec":{"replicas":5}}`)}
		}, 2, true},
		{"label change", func(obj map[string]any) adapters.Request {
			return adapters.Request{Verb: adapters.Patch, Ref: deployRef("d"), PatchType: adapters.MergePatch, Body: raw(`{"metadata":{"labels":{"a":"b"}}}`)}
		}, 1, true},
		// A Deployment's annotations are copied to its ReplicaSets: the
		// server bumps its generation when they change.
		{"annotation change by update", func(obj map[string]any) adapters.Request {
			metadata(obj)["annotations"] = map[string]any{"x": "y"}
			return adapters.Request{Verb: adapters.Update, Ref: deployRef("d"), Body: body(obj)}
		}, 2, true},
		{"status subresource", func(obj map[string]any) adapters.Request {
			return adapters.Request{Verb: adapters.Patch, Ref: deployRef("d"), Subresource: "status", PatchType: adapters.MergePatch, Body: raw(`{"status":{"replicas":3}}`)}
		}, 1, true},
		{"status in main resource is ignored", func(obj map[string]any) adapters.Request {
			return adapters.Request{Verb: adapters.Patch, Ref: deployRef("d"), PatchType: adapters.MergePatch, Body: raw(`{"status":{"replicas":3}}`)}
		}, 1, false},
		{"no-op patch", func(obj map[string]any) adapters.Request {
			return adapters.Request{Verb: adapters.Patch, Ref: deployRef("d"), PatchType: adapters.MergePatch, Body: raw(`{"spec":{"replicas":2}}`)}
		}, 1, false},
		{"spec change by update", func(obj map[string]any) adapters.Request {
			obj["spec"].(map[string]any)["paused"] = true
			return adapters.Request{Verb: adapters.Update, Ref: deployRef("d"), Body: body(obj)}
		}, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			obj := create(t, c, deployment("d", 2))
			res := mustOK(t, do(c, tc.req(obj)))
			if g := generationOf(res.Object); g != tc.want {
				t.Errorf("generation = %d, want %d", g, tc.want)
			}
			changed := metaString(res.Object, "resourceVersion") != metaString(obj, "resourceVersion")
			if changed != tc.bumps {
				t.Errorf("resourceVersion changed = %v, want %v", changed, tc.bumps)
			}
		})
	}
	// The server keeps no generation for a ConfigMap or a Namespace.
	c := newCluster(t)
	create(t, c, configMap("default", "a", nil, map[string]any{"k": "v"}))
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, Ref: cmRef("default", "a"), PatchType: adapters.MergePatch, Body: raw(`{"data":{"k":"w"}}`)}))
	if _, has := metadata(res.Object)["generation"]; has {
		t.Errorf("ConfigMap data change: generation %v", metadata(res.Object)["generation"])
	}
	ns := mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: "n"}, Body: raw(`{"metadata":{"name":"n"}}`)})).Object
	if _, has := metadata(ns)["generation"]; has {
		t.Errorf("Namespace: generation %v", metadata(ns)["generation"])
	}
	if l := labelMap(ns)["kubernetes.io/metadata.name"]; l != "n" {
		t.Errorf("Namespace label kubernetes.io/metadata.name = %v, want n", l)
	}
}

func TestOptimisticConcurrency(t *testing.T) {
	for _, tc := range []struct {
		name string
		rv   func(current string) string
		want adapters.Outcome
	}{
		{"current", func(cur string) string { return cur }, adapters.OK},
		{"empty is unconditional", func(string) string { return "" }, adapters.OK},
		{"stale", func(string) string { return "1" }, adapters.Conflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			obj := create(t, c, configMap("default", "a", nil, map[string]any{"k": "v"}))
			obj["data"] = map[string]any{"k": "w"}
			metadata(obj)["resourceVersion"] = tc.rv(metaString(obj, "resourceVersion"))
			res := do(c, adapters.Request{Verb: adapters.Update, Ref: cmRef("default", "a"), Body: body(obj)})
			if res.Outcome != tc.want {
				t.Fatalf("update: %s (%s), want %s", res.Outcome, res.Message, tc.want)
			}
			patch := body(map[string]any{"metadata": map[string]any{"resourceVersion": tc.rv(metaString(obj, "resourceVersion"))}, "data": map[string]any{"p": "q"}})
			if tc.want == adapters.OK {
				cur, _ := get(t, c, cmRef("default", "a"))
				patch = body(map[string]any{"metadata": map[string]any{"resourceVersion": tc.rv(metaString(cur, "resourceVersion"))}, "data": map[string]any{"p": "q"}})
			}
			res = do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: patch})
			if res.Outcome != tc.want {
				t.Fatalf("patch: %s (%s), want %s", res.Outcome, res.Message, tc.want)
			}
		})
	}
	c := newCluster(t)
	res := do(c, adapters.Request{Verb: adapters.Update, Ref: cmRef("default", "missing"), Body: body(configMap("default", "missing", nil, nil))})
	if res.Outcome != adapters.NotFound {
		t.Errorf("update of a missing object: %s", res.Outcome)
	}
}

func TestDryRunStoresNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		req  adapters.Request
	}{
		{"create", adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "new"), Body: body(configMap("default", "new", nil, nil))}},
		{"update", adapters.Request{Verb: adapters.Update, Ref: cmRef("default", "a"), Body: body(configMap("default", "a", nil, map[string]any{"k": "dry"}))}},
		{"merge patch", adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"k":"dry"}}`)}},
		{"json patch", adapters.Request{Verb: adapters.Patch, PatchType: adapters.JSONPatch, Ref: cmRef("default", "a"), Body: raw(`[{"op":"replace","path":"/data/k","value":"dry"}]`)}},
		{"apply", adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, FieldManager: "m", Force: true, Ref: cmRef("default", "a"), Body: body(configMap("default", "a", nil, map[string]any{"k": "dry"}))}},
		{"apply create", adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, FieldManager: "m", Ref: cmRef("default", "new"), Body: body(configMap("default", "new", nil, nil))}},
		{"delete", adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "a")}},
		{"delete namespace", adapters.Request{Verb: adapters.Delete, Ref: adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: "default"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			create(t, c, configMap("default", "a", nil, map[string]any{"k": "v"}))
			before := c.Objects("v1", "ConfigMap")
			nsBefore := c.Objects("v1", "Namespace")
			rv := c.rv
			req := tc.req
			req.DryRun = true
			res := mustOK(t, do(c, req))
			if req.Verb != adapters.Delete && field(res.Object, "/data/k") != "dry" && req.Ref.Name != "new" {
				t.Errorf("dry-run result does not show the change: %v", res.Object)
			}
			if !jsonvalue.Equal(before, c.Objects("v1", "ConfigMap")) || !jsonvalue.Equal(nsBefore, c.Objects("v1", "Namespace")) {
				t.Error("dry-run changed the stored objects")
			}
			if c.rv != rv {
				t.Errorf("dry-run bumped the resourceVersion counter %d → %d", rv, c.rv)
			}
			if recs := c.Records(); !recs[len(recs)-1].DryRun {
				t.Error("record does not say dry-run")
			}
		})
	}
}

func TestStatusSubresource(t *testing.T) {
	c := newCluster(t)
	d := deployment("d", 1)
	d["status"] = map[string]any{"replicas": 9}
	obj := create(t, c, d)
	if st, _ := obj["status"].(map[string]any); len(st) != 0 {
		t.Errorf("create kept status: %v", obj["status"])
	}
	// A status write changes only status.
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, Ref: deployRef("d"), Subresource: "status", PatchType: adapters.MergePatch,
		Body: raw(`{"spec":{"replicas":7},"metadata":{"labels":{"x":"y"}},"status":{"replicas":1}}`)}))
	if field(res.Object, "/spec/replicas") != int64(1) || field(res.Object, "/status/replicas") != int64(1) || field(res.Object, "/metadata/labels") != nil {
		t.Errorf("status patch: %v", res.Object)
	}
	// A main-resource update ignores status.
	obj = res.Object
	obj["status"] = map[string]any{"replicas": 42}
	obj["spec"].(map[string]any)["replicas"] = int64(3)
	res = mustOK(t, do(c, adapters.Request{Verb: adapters.Update, Ref: deployRef("d"), Body: body(obj)}))
	if field(res.Object, "/status/replicas") != int64(1) || field(res.Object, "/spec/replicas") != int64(3) {
		t.Errorf("main update: %v", res.Object)
	}
	// Status update through Update.
	obj = res.Object
	obj["status"] = map[string]any{"replicas": 3}
	obj["spec"].(map[string]any)["replicas"] = int64(8)
	res = mustOK(t, do(c, adapters.Request{Verb: adapters.Update, Ref: deployRef("d"), Subresource: "status", Body: body(obj)}))
	if field(res.Object, "/status/replicas") != int64(3) || field(res.Object, "/spec/replicas") != int64(3) {
		t.Errorf("status update: %v", res.Object)
	}
	// A kind without status subresource stores status with the object.
	c.RegisterKind("example.com/v1", "Plain", adapters.Namespaced, KindOptions{})
	plain := map[string]any{"apiVersion": "example.com/v1", "kind": "Plain", "metadata": map[string]any{"name": "p", "namespace": "default"}, "status": map[string]any{"a": "b"}}
	if got := create(t, c, plain); field(got, "/status/a") != "b" {
		t.Errorf("plain kind lost status: %v", got)
	}
}

func TestListSelectors(t *testing.T) {
	c := newCluster(t)
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: "other"}, Body: raw(`{}`)}))
	create(t, c, configMap("default", "b", map[string]any{"app": "web", "tier": "front"}, nil))
	create(t, c, configMap("default", "a", map[string]any{"app": "db", "n": "5"}, nil))
	create(t, c, configMap("other", "a", map[string]any{"app": "web"}, nil))
	create(t, c, configMap("other", "c", nil, nil))
	for _, tc := range []struct {
		ns, sel string
		want    string // namespace/name list
		bad     bool
	}{
		{"", "", "default/a default/b other/a other/c", false},
		{"default", "", "default/a default/b", false},
		{"", "app=web", "default/b other/a", false},
		{"", "app==web", "default/b other/a", false},
		{"", "app!=web", "default/a other/c", false},
		{"", "app in (db, web)", "default/a default/b other/a", false},
		{"", "app notin (web)", "default/a other/c", false},
		{"", "app", "default/a default/b other/a", false},
		{"", "!app", "other/c", false},
		{"", "app=web,tier=front", "default/b", false},
		{"", "app in (web),!tier", "other/a", false},
		{"", "n>4", "default/a", false},
		{"", "n<4", "", false},
		{"other", "app", "other/a", false},
		{"", "app in web", "", true},
		{"", "=x", "", true},
	} {
		t.Run(tc.ns+"?"+tc.sel, func(t *testing.T) {
			res := do(c, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: tc.ns}, LabelSelector: tc.sel})
			if tc.bad {
				if res.Outcome != adapters.Invalid {
					t.Errorf("outcome %s, want invalid", res.Outcome)
				}
				return
			}
			mustOK(t, res)
			var got []string
			for _, it := range res.Items {
				got = append(got, metaString(it, "namespace")+"/"+metaString(it, "name"))
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("got %q, want %q", strings.Join(got, " "), tc.want)
			}
		})
	}
}

func TestPatchTypes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		pt    adapters.PatchType
		patch string
		want  adapters.Outcome
		check func(obj map[string]any) bool
	}{
		{"merge sets and removes", adapters.MergePatch, `{"data":{"k":null,"n":"1"}}`, adapters.OK,
			func(o map[string]any) bool { return field(o, "/data/k") == nil && field(o, "/data/n") == "1" }},
		{"json add", adapters.JSONPatch, `[{"op":"add","path":"/metadata/labels","value":{"a":"b"}}]`, adapters.OK,
			func(o map[string]any) bool { return field(o, "/metadata/labels/a") == "b" }},
		{"json test passes", adapters.JSONPatch, `[{"op":"test","path":"/data/k","value":"v"},{"op":"remove","path":"/data/k"}]`, adapters.OK,
			func(o map[string]any) bool { _, has := getPath(o, "/data/k"); return !has }},
		{"json test fails", adapters.JSONPatch, `[{"op":"test","path":"/data/k","value":"x"}]`, adapters.Invalid, nil},
		{"json remove missing", adapters.JSONPatch, `[{"op":"remove","path":"/data/zz"}]`, adapters.Invalid, nil},
		{"malformed merge", adapters.MergePatch, `{`, adapters.Invalid, nil},
		{"rename", adapters.MergePatch, `{"metadata":{"name":"b"}}`, adapters.Invalid, nil},
		{"strategic", "strategic", `{}`, adapters.Unsupported, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			create(t, c, configMap("default", "a", nil, map[string]any{"k": "v"}))
			res := do(c, adapters.Request{Verb: adapters.Patch, PatchType: tc.pt, Ref: cmRef("default", "a"), Body: raw(tc.patch)})
			if res.Outcome != tc.want {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Message, tc.want)
			}
			if tc.check != nil && !tc.check(res.Object) {
				t.Errorf("unexpected result %v", res.Object)
			}
			if stored, _ := c.Object(cmRef("default", "a")); tc.check != nil && !tc.check(stored) {
				t.Errorf("unexpected stored object %v", stored)
			}
		})
	}
	c := newCluster(t)
	if res := do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "missing"), Body: raw(`{}`)}); res.Outcome != adapters.NotFound {
		t.Errorf("patch of a missing object: %s", res.Outcome)
	}
}

func TestRecordsAndCounts(t *testing.T) {
	c := newCluster(t)
	create(t, c, configMap("default", "a", nil, nil))
	c.Clock().Advance(time.Minute)
	do(c, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "a")})
	do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"a":"b"}}`), DryRun: true})
	do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"a":"b"}}`), Identity: "alice"})
	do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "zz"), Identity: "alice"})
	recs := c.Records()
	if len(recs) != 5 {
		t.Fatalf("%d records", len(recs))
	}
	want := []string{
		"2026-01-01T00:00:00Z create ConfigMap/default/a: ok",
		"2026-01-01T00:01:00Z get ConfigMap/default/a: ok",
		"2026-01-01T00:01:00Z patch ConfigMap/default/a (merge, dry-run): ok",
		"2026-01-01T00:01:00Z patch ConfigMap/default/a (merge) as alice: ok",
		`2026-01-01T00:01:00Z delete ConfigMap/default/zz as alice: not_found: configmaps "zz" not found`,
	}
	for i, w := range want {
		if recs[i].String() != w {
			t.Errorf("record %d:\n got %s\nwant %s", i, recs[i], w)
		}
	}
	for _, tc := range []struct {
		verb adapters.Verb
		id   string
		want int
	}{
		{"*", "*", 4}, {adapters.Patch, "*", 2}, {"*", "alice", 2}, {"*", "", 2}, {adapters.Get, "*", 0}, {adapters.Delete, "alice", 1},
	} {
		if got := c.CountWrites(tc.verb, tc.id); got != tc.want {
			t.Errorf("CountWrites(%q, %q) = %d, want %d", tc.verb, tc.id, got, tc.want)
		}
	}
	if got := c.WriteCounts(); len(got) != 4 || got[0] != (WriteCount{"", adapters.Create, 1}) || got[3] != (WriteCount{"alice", adapters.Patch, 1}) {
		t.Errorf("WriteCounts = %v", got)
	}
	if len(c.Writes()) != 4 {
		t.Errorf("Writes = %d", len(c.Writes()))
	}
	c.ResetRecords()
	if len(c.Records()) != 0 {
		t.Error("ResetRecords left records")
	}
}

func TestStagingHelpers(t *testing.T) {
	c := newCluster(t)
	d := deployment("d", 1)
	d["status"] = map[string]any{"replicas": 1}
	if err := c.Apply(d); err != nil {
		t.Fatal(err)
	}
	got, found := c.Object(deployRef("d"))
	if !found || field(got, "/status/replicas") != int64(1) || generationOf(got) != 1 || metaString(got, "uid") == "" {
		t.Fatalf("staged object %v", got)
	}
	d["spec"].(map[string]any)["replicas"] = 4
	if err := c.Apply(d); err != nil {
		t.Fatal(err)
	}
	again, _ := c.Object(deployRef("d"))
	if generationOf(again) != 2 || metaString(again, "uid") != metaString(got, "uid") || field(again, "/spec/replicas") != int64(4) {
		t.Errorf("replaced object %v", again)
	}
	if err := c.Apply(map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{"name": "p", "namespace": "default"}}); err == nil {
		t.Error("Apply of an unregistered kind succeeded")
	}
	if err := c.Apply(configMap("", "x", nil, nil)); err == nil {
		t.Error("Apply of a namespaced kind without namespace succeeded")
	}
	if len(c.Records()) != 0 {
		t.Error("staging was logged")
	}
	if n := len(c.Objects("v1", "Namespace")); n != len(DefaultNamespaces) {
		t.Errorf("%d namespaces", n)
	}
}

// Every change is reported as it is made (a status write as status-only),
// a write that changes nothing is not, and discovery moves only with the
// kinds served.
func TestChangeReports(t *testing.T) {
	c := New(NewClock(DefaultEpoch))
	c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, KindOptions{HasStatus: true})
	ctx := context.Background()
	ref := adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: "w"}
	var got []Change
	c.OnChange(func(ch Change) { got = append(got, ch) })
	do := func(req adapters.Request, want ...Change) {
		t.Helper()
		got = nil
		if res := c.Do(ctx, req); res.Outcome != adapters.OK {
			t.Fatalf("%s: %s %s", req.Verb, res.Outcome, res.Message)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %s: reported %+v, want %+v", req.Verb, req.Subresource, got, want)
		}
	}
	d0 := c.DiscoveryChanges()
	do(adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"a":1}}`)},
		Change{Ref: ref})
	do(adapters.Request{Verb: adapters.Patch, Subresource: "status", PatchType: adapters.MergePatch, Ref: ref, Body: raw(`{"status":{"ok":true}}`)},
		Change{Ref: ref, StatusOnly: true})
	// The same status again changes nothing.
	do(adapters.Request{Verb: adapters.Patch, Subresource: "status", PatchType: adapters.MergePatch, Ref: ref, Body: raw(`{"status":{"ok":true}}`)})
	other := ref
	other.Namespace = "kube-system"
	do(adapters.Request{Verb: adapters.Create, Ref: other, Body: raw(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"kube-system"}}`)},
		Change{Ref: other})
	do(adapters.Request{Verb: adapters.Delete, Ref: ref}, Change{Ref: ref})
	if _, ok := c.Peek(ref); ok {
		t.Fatal("a deleted object is still stored")
	}
	if c.DiscoveryChanges() != d0 {
		t.Fatal("discovery moved without a kind change")
	}
	c.RegisterKind("example.com/v1", "Gadget", adapters.Cluster, KindOptions{})
	if c.DiscoveryChanges() == d0 {
		t.Fatal("registering a kind did not move discovery")
	}
}

// A patch shares unchanged values with the stored object it replaces; a
// refused patch leaves the stored object as it was, and a reader's copy
// of an earlier version never changes.
func TestPatchSharesSafely(t *testing.T) {
	c := New(NewClock(DefaultEpoch), WithSharedReads(nil))
	c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, KindOptions{HasStatus: true, Immutable: []string{"/spec/fixed"}})
	ctx := context.Background()
	ref := adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: "w"}
	do := func(req adapters.Request) adapters.Result {
		t.Helper()
		req.Ref = ref
		return c.Do(ctx, req)
	}
	if res := do(adapters.Request{Verb: adapters.Create, Body: raw(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default","labels":{"a":"1"}},"spec":{"fixed":"x","deep":{"list":[1,2]}}}`)}); res.Outcome != adapters.OK {
		t.Fatal(res.Message)
	}
	first, _ := c.Peek(ref)
	firstJSON := mustJSON(first)
	if res := do(adapters.Request{Verb: adapters.Patch, Subresource: "status", PatchType: adapters.MergePatch, Body: raw(`{"status":{"ok":true}}`)}); res.Outcome != adapters.OK {
		t.Fatal(res.Message)
	}
	if res := do(adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Body: raw(`{"metadata":{"labels":{"b":"2"}},"spec":{"deep":{"more":true}}}`)}); res.Outcome != adapters.OK {
		t.Fatal(res.Message)
	}
	before, _ := c.Object(ref)
	if res := do(adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Body: raw(`{"metadata":{"labels":{"c":"3"}},"spec":{"fixed":"y","deep":{"list":[9]}}}`)}); res.Outcome != adapters.Invalid {
		t.Fatalf("changing an immutable field: %s %s", res.Outcome, res.Message)
	}
	after, _ := c.Object(ref)
	if !jsonvalue.Equal(before, after) {
		t.Errorf("a refused patch changed the stored object:\n%s\n%s", mustJSON(before), mustJSON(after))
	}
	if got := mustJSON(first); string(got) != string(firstJSON) {
		t.Errorf("a reader's copy changed:\n%s\n%s", firstJSON, got)
	}
	want := map[string]any{"fixed": "x", "deep": map[string]any{"list": []any{int64(1), int64(2)}, "more": true}}
	if !jsonvalue.Equal(after["spec"], want) || !jsonvalue.Equal(after["status"], map[string]any{"ok": true}) {
		t.Errorf("stored %s", mustJSON(after))
	}
}

// TestServerChangesLeaveReadsAlone: readers share the stored object itself
// (WithSharedReads), so the server's own changes (deletion with
// finalizers, the garbage collector dropping an owner reference, the end of
// a foreground deletion) must replace it rather than change it in place.
func TestServerChangesLeaveReadsAlone(t *testing.T) {
	c := New(NewClock(DefaultEpoch), WithSharedReads(nil))
	c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, KindOptions{HasStatus: true})
	ctx := context.Background()
	ref := func(name string) adapters.Ref {
		return adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: name}
	}
	create := func(body string) {
		t.Helper()
		if res := c.Do(ctx, adapters.Request{Verb: adapters.Create, Ref: ref(""), Body: raw(body)}); res.Outcome != adapters.OK {
			t.Fatal(res.Message)
		}
	}
	create(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"owner","namespace":"default","finalizers":["keep"]},"spec":{"a":1}}`)
	owner, _ := c.Peek(ref("owner"))
	uid := metaString(owner, "uid")
	create(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"dep","namespace":"default","ownerReferences":[{"apiVersion":"example.com/v1","kind":"Widget","name":"owner","uid":"` + uid + `","blockOwnerDeletion":true}]},"spec":{"b":2}}`)
	dep, _ := c.Peek(ref("dep"))
	ownerJSON, depJSON := string(mustJSON(owner)), string(mustJSON(dep))

	// Orphan: the dependent loses its owner reference; the owner is marked
	// deleting (it has a finalizer).
	if res := c.Do(ctx, adapters.Request{Verb: adapters.Delete, Ref: ref("owner"), Propagation: "Orphan"}); res.Outcome != adapters.OK {
		t.Fatal(res.Message)
	}
	settle(t, c)
	if got := string(mustJSON(owner)); got != ownerJSON {
		t.Errorf("marking the owner deleting changed a reader's copy:\n%s\n%s", ownerJSON, got)
	}
	if got := string(mustJSON(dep)); got != depJSON {
		t.Errorf("orphaning changed a reader's copy:\n%s\n%s", depJSON, got)
	}
	nowOwner, _ := c.Peek(ref("owner"))
	nowDep, _ := c.Peek(ref("dep"))
	if metaString(nowOwner, "deletionTimestamp") == "" || metadata(nowDep)["ownerReferences"] != nil {
		t.Errorf("the server's changes were not stored: %s %s", mustJSON(nowOwner), mustJSON(nowDep))
	}

	// Foreground: the owner is marked deleting with the foreground
	// finalizer, its dependent is collected, and the finalizer goes.
	create(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"fg","namespace":"default","finalizers":["keep"]}}`)
	fg, _ := c.Peek(ref("fg"))
	fgJSON := string(mustJSON(fg))
	create(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"child","namespace":"default","ownerReferences":[{"apiVersion":"example.com/v1","kind":"Widget","name":"fg","uid":"` + metaString(fg, "uid") + `","blockOwnerDeletion":true}]}}`)
	if res := c.Do(ctx, adapters.Request{Verb: adapters.Delete, Ref: ref("fg"), Propagation: "Foreground"}); res.Outcome != adapters.OK {
		t.Fatal(res.Message)
	}
	settle(t, c)
	if got := string(mustJSON(fg)); got != fgJSON {
		t.Errorf("the foreground deletion changed a reader's copy:\n%s\n%s", fgJSON, got)
	}
	if _, still := c.Peek(ref("child")); still {
		t.Fatal("the dependent of a foreground deletion was not removed")
	}
	done, _ := c.Peek(ref("fg"))
	if fins := stringList(metadata(done)["finalizers"]); metaString(done, "deletionTimestamp") == "" || len(fins) != 1 || fins[0] != "keep" {
		t.Errorf("foreground deletion stored %s", mustJSON(done))
	}
}

// Every result holds canonical JSON values, as the adapters' contract says
// (the engine does not check them): after creates, merge and JSON patches,
// apply, status writes, gets and lists, with and without shared reads. A
// body whose number is an integral float (2.0) is stored as the integer a
// client reads back from kube-apiserver.
func TestResultsAreCanonical(t *testing.T) {
	for _, shared := range []bool{false, true} {
		opts := []Option{}
		if shared {
			opts = append(opts, WithSharedReads(nil))
		}
		c := New(NewClock(DefaultEpoch), opts...)
		c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, KindOptions{HasStatus: true})
		ctx := context.Background()
		ref := adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: "w"}
		for _, req := range []adapters.Request{
			{Verb: adapters.Create, Body: raw(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":{"n":1,"f":1.5,"big":12345678901,"l":[1,{"x":2.5}]}}`)},
			{Verb: adapters.Patch, PatchType: adapters.MergePatch, Body: raw(`{"spec":{"m":{"k":3}}}`)},
			{Verb: adapters.Patch, PatchType: adapters.MergePatch, Body: map[string]any{"spec": map[string]any{"p": 4}}},
			{Verb: adapters.Patch, PatchType: adapters.JSONPatch, Body: raw(`[{"op":"add","path":"/spec/j","value":5}]`)},
			{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, FieldManager: "m", Body: raw("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: default\nspec:\n  y: 6\n")},
			{Verb: adapters.Patch, Subresource: "status", PatchType: adapters.MergePatch, Body: raw(`{"status":{"count":7,"ratio":0.5}}`)},
			{Verb: adapters.Get},
			{Verb: adapters.List},
			{Verb: adapters.Patch, PatchType: adapters.MergePatch, Body: map[string]any{"spec": map[string]any{"two": 2.0}}},
			{Verb: adapters.Get},
			{Verb: adapters.List},
		} {
			req.Ref = ref
			if req.Verb == adapters.List {
				req.Ref.Name = ""
			}
			res := c.Do(ctx, req)
			if res.Outcome != adapters.OK {
				t.Fatalf("%s %s: %s", req.Verb, req.PatchType, res.Message)
			}
			if res.Object != nil && !jsonvalue.IsCanonical(res.Object) {
				t.Errorf("shared=%v %s %s: object is not canonical: %#v", shared, req.Verb, req.PatchType, res.Object)
			}
			for _, it := range res.Items {
				if !jsonvalue.IsCanonical(it) {
					t.Errorf("shared=%v list: item is not canonical: %#v", shared, it)
				}
			}
		}
		if obj, _ := c.Peek(ref); obj["spec"].(map[string]any)["two"] != int64(2) {
			t.Errorf("shared=%v: 2.0 stored as %#v, not as the integer 2", shared, obj["spec"].(map[string]any)["two"])
		}
	}
}
