package sim

import (
	"strings"
	"testing"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/statecraft/statecraft/adapters"
)

func applyReq(manager string, force bool, obj map[string]any) adapters.Request {
	return adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: RefOf(obj),
		FieldManager: manager, Force: force, Body: body(obj)}
}

func TestServerSideApply(t *testing.T) {
	type step struct {
		req   adapters.Request
		want  adapters.Outcome
		msg   string
		check map[string]any // pointer → expected value (nil: absent)
	}
	cm := func(data map[string]any) map[string]any { return configMap("default", "a", nil, data) }
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"apply creates", []step{
			{applyReq("alpha", false, cm(map[string]any{"x": "1"})), adapters.OK, "", map[string]any{"/data/x": "1", "/metadata/generation": nil}},
		}},
		{"same manager changes and drops its fields", []step{
			{applyReq("alpha", false, cm(map[string]any{"x": "1", "y": "2"})), adapters.OK, "", nil},
			{applyReq("alpha", false, cm(map[string]any{"x": "3"})), adapters.OK, "", map[string]any{"/data/x": "3", "/data/y": nil}},
		}},
		{"conflict with another applier", []step{
			{applyReq("alpha", false, cm(map[string]any{"x": "1"})), adapters.OK, "", nil},
			{applyReq("beta", false, cm(map[string]any{"x": "2"})), adapters.Conflict, `Apply failed with 1 conflict: conflict with "alpha": .data.x`, map[string]any{"/data/x": "1"}},
		}},
		{"same value is shared, not a conflict", []step{
			{applyReq("alpha", false, cm(map[string]any{"x": "1"})), adapters.OK, "", nil},
			{applyReq("beta", false, cm(map[string]any{"x": "1", "z": "9"})), adapters.OK, "", map[string]any{"/data/x": "1", "/data/z": "9"}},
			// alpha stops applying x: beta still owns it, so it stays.
			{applyReq("alpha", false, cm(map[string]any{})), adapters.OK, "", map[string]any{"/data/x": "1"}},
		}},
		{"force takes ownership", []step{
			{applyReq("alpha", false, cm(map[string]any{"x": "1"})), adapters.OK, "", nil},
			{applyReq("beta", true, cm(map[string]any{"x": "2"})), adapters.OK, "", map[string]any{"/data/x": "2"}},
			// alpha lost x: applying without it removes nothing.
			{applyReq("alpha", false, cm(map[string]any{"w": "0"})), adapters.OK, "", map[string]any{"/data/x": "2", "/data/w": "0"}},
			// and applying x again now conflicts with beta.
			{applyReq("alpha", false, cm(map[string]any{"x": "1"})), adapters.Conflict, `"beta"`, nil},
		}},
		{"conflict with an updater", []step{
			{adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: body(cm(map[string]any{"x": "1"})), FieldManager: "kubectl"}, adapters.OK, "", nil},
			{applyReq("alpha", false, cm(map[string]any{"x": "2"})), adapters.Conflict, `Apply failed with 1 conflict: conflict with "kubectl" using v1: .data.x`, nil},
			{applyReq("alpha", true, cm(map[string]any{"x": "2"})), adapters.OK, "", map[string]any{"/data/x": "2"}},
		}},
		{"an update takes fields from an applier", []step{
			{applyReq("alpha", false, cm(map[string]any{"x": "1"})), adapters.OK, "", nil},
			{adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"x":"5"}}`), FieldManager: "editor"}, adapters.OK, "", nil},
			{applyReq("alpha", false, cm(map[string]any{})), adapters.OK, "", map[string]any{"/data/x": "5"}},
		}},
		{"missing field manager", []step{
			{applyReq("", false, cm(nil)), adapters.Invalid, "fieldManager", nil},
		}},
		{"missing kind", []step{
			{adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: cmRef("default", "a"), FieldManager: "m", Body: raw(`{"apiVersion":"v1"}`)}, adapters.Invalid, "kind must be set", nil},
		}},
		{"yaml body", []step{
			{adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: cmRef("default", "a"), FieldManager: "m",
				Body: raw("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  k: v\n")}, adapters.OK, "", map[string]any{"/data/k": "v"}},
		}},
		{"apply status subresource", []step{
			{applyReq("alpha", false, deployment("a", 1)), adapters.OK, "", nil},
			{adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: deployRef("a"), Subresource: "status", FieldManager: "ctrl",
				Body: body(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "a"}, "spec": map[string]any{"replicas": 9}, "status": map[string]any{"replicas": 1}})},
				adapters.OK, "", map[string]any{"/spec/replicas": int64(1), "/status/replicas": int64(1), "/metadata/generation": int64(1)}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			for i, s := range tc.steps {
				res := do(c, s.req)
				if res.Outcome != s.want || !strings.Contains(res.Message, s.msg) {
					t.Fatalf("step %d: %s %q, want %s containing %q", i, res.Outcome, res.Message, s.want, s.msg)
				}
				stored, _ := c.Object(s.req.Ref)
				for p, want := range s.check {
					got, has := getPath(stored, p)
					if want == nil && has || want != nil && !jsonvalue.Equal(got, want) {
						t.Errorf("step %d: %s = %v, want %v", i, p, got, want)
					}
				}
			}
		})
	}
}

func TestManagedFields(t *testing.T) {
	c := newCluster(t)
	mustOK(t, do(c, applyReq("alpha", false, configMap("default", "a", map[string]any{"l": "1"}, map[string]any{"x": "1"}))))
	mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"y":"2"}}`), Identity: "bob"}))
	got := c.ManagedFields(cmRef("default", "a"))
	want := []ManagedFields{
		{Manager: "alpha", Operation: "Apply", APIVersion: "v1", Time: timestamp(start), Fields: []string{".data.x", ".metadata.labels.l"}},
		{Manager: "bob", Operation: "Update", APIVersion: "v1", Time: timestamp(start), Fields: []string{".data.y"}},
	}
	if !jsonvalue.Equal(got, want) {
		t.Errorf("ManagedFields = %+v, want %+v", got, want)
	}
	if c.ManagedFields(cmRef("default", "zz")) != nil {
		t.Error("ManagedFields of a missing object")
	}

	// A dry-run write, and one admission refuses, take nothing from the
	// stored owners (the sets are shared with the stored object).
	mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"x":"9","y":"9"}}`), Identity: "carol", DryRun: true}))
	if got := c.ManagedFields(cmRef("default", "a")); !jsonvalue.Equal(got, want) {
		t.Errorf("after a dry run, ManagedFields = %+v, want %+v", got, want)
	}
	// A live one moves both fields to its manager.
	mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"x":"9","y":"9"}}`), Identity: "carol"}))
	want = []ManagedFields{
		{Manager: "alpha", Operation: "Apply", APIVersion: "v1", Time: timestamp(start), Fields: []string{".metadata.labels.l"}},
		{Manager: "carol", Operation: "Update", APIVersion: "v1", Time: timestamp(start), Fields: []string{".data.x", ".data.y"}},
	}
	if got := c.ManagedFields(cmRef("default", "a")); !jsonvalue.Equal(got, want) {
		t.Errorf("after a live patch, ManagedFields = %+v, want %+v", got, want)
	}
}

func TestApplyPrunesMapsItEmptied(t *testing.T) {
	c := newCluster(t)
	mustOK(t, do(c, applyReq("alpha", false, configMap("default", "a", map[string]any{"l": "1"}, map[string]any{"x": "1"}))))
	res := mustOK(t, do(c, applyReq("alpha", false, configMap("default", "a", nil, map[string]any{"x": "1"}))))
	if _, has := getPath(res.Object, "/metadata/labels"); has {
		t.Errorf("labels left behind: %v", res.Object["metadata"])
	}
	// A map another manager still has fields in stays.
	mustOK(t, do(c, applyReq("alpha", false, configMap("default", "a", map[string]any{"l": "1"}, map[string]any{"x": "1"}))))
	mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), FieldManager: "other", Body: raw(`{"metadata":{"labels":{"m":"2"}}}`)}))
	res = mustOK(t, do(c, applyReq("alpha", false, configMap("default", "a", nil, map[string]any{"x": "1"}))))
	if !jsonvalue.Equal(field(res.Object, "/metadata/labels"), map[string]any{"m": "2"}) {
		t.Errorf("labels %v", field(res.Object, "/metadata/labels"))
	}
}
