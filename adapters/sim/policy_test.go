package sim

import (
	"strings"
	"testing"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/statecraft/statecraft/adapters"
)

func TestRBAC(t *testing.T) {
	patch := func(identity string, ref adapters.Ref, sub string) adapters.Request {
		return adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Subresource: sub, Identity: identity, Body: raw(`{"metadata":{"labels":{"x":"y"}}}`)}
	}
	for _, tc := range []struct {
		name     string
		identity string
		verb     adapters.Verb
		av, kind string
		status   DenyStatus
		req      adapters.Request
		want     adapters.Outcome
		msg      string
	}{
		{"engine denied patch", "", adapters.Patch, "v1", "ConfigMap", Forbidden, patch("", cmRef("default", "a"), ""),
			adapters.Forbidden, `configmaps "a" is forbidden: User "system:serviceaccount:statecraft-system:statecraft" cannot patch resource "configmaps" in API group "" in the namespace "default"`},
		{"other identity unaffected", "", adapters.Patch, "v1", "ConfigMap", Forbidden, patch("alice", cmRef("default", "a"), ""), adapters.OK, ""},
		{"impersonated identity denied", "alice", "*", "*", "*", Forbidden, patch("alice", cmRef("default", "a"), ""), adapters.Forbidden, `User "alice" cannot patch`},
		{"wildcard identity", "*", adapters.Get, "v1", "*", Forbidden, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "a"), Identity: "bob"}, adapters.Forbidden, "cannot get"},
		{"other verb unaffected", "", adapters.Patch, "v1", "ConfigMap", Forbidden, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "a")}, adapters.OK, ""},
		{"unauthorized", "", "*", "*", "*", Unauthorized, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "a")}, adapters.Forbidden, "Unauthorized"},
		{"status only", "", adapters.Patch, "apps/v1", "Deployment/status", Forbidden, patch("", deployRef("d"), "status"), adapters.Forbidden, `resource "deployments/status" in API group "apps"`},
		{"status rule spares main resource", "", adapters.Patch, "apps/v1", "Deployment/status", Forbidden, patch("", deployRef("d"), ""), adapters.OK, ""},
		{"checked before discovery", "", "*", "*", "*", Forbidden, adapters.Request{Verb: adapters.Get, Ref: adapters.Ref{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: "p"}}, adapters.Forbidden, "cannot get"},
		{"cluster scope message", "", adapters.List, "v1", "Namespace", Forbidden, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "Namespace"}}, adapters.Forbidden, "at the cluster scope"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			create(t, c, configMap("default", "a", nil, nil))
			create(t, c, deployment("d", 1))
			c.Deny(tc.identity, tc.verb, tc.av, tc.kind, tc.status)
			before, _ := c.Object(tc.req.Ref)
			res := do(c, tc.req)
			if res.Outcome != tc.want || !strings.Contains(res.Message, tc.msg) {
				t.Fatalf("got %s %q, want %s containing %q", res.Outcome, res.Message, tc.want, tc.msg)
			}
			if after, _ := c.Object(tc.req.Ref); res.Outcome != adapters.OK && !jsonvalue.Equal(before, after) {
				t.Error("a denied request changed the object")
			}
			recs := c.Records()
			if last := recs[len(recs)-1]; last.Outcome != tc.want || last.Identity != tc.req.Identity {
				t.Errorf("record %v", last)
			}
		})
	}
	c := newCluster(t)
	c.Deny("*", "*", "*", "*", Forbidden)
	c.ClearDenials()
	mustOK(t, do(c, adapters.Request{Verb: adapters.List, Ref: cmRef("default", "")}))
}

func TestAdmission(t *testing.T) {
	dropLabel := Admission{
		Name:  "drop-x",
		Match: func(r adapters.Request) bool { return r.Ref.Kind == "ConfigMap" },
		Mutate: func(_ adapters.Request, obj map[string]any) {
			if l, ok := metadata(obj)["labels"].(map[string]any); ok {
				delete(l, "x")
			}
		},
	}
	rejectLabel := func(mode AdmissionMode) Admission {
		return Admission{Name: "no-y", Mode: mode, Reject: func(_ adapters.Request, obj map[string]any) string {
			if _, has := getPath(obj, "/metadata/labels/y"); has {
				return "label y is not allowed"
			}
			return ""
		}}
	}
	label := func(k string, dry bool) adapters.Request {
		return adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), DryRun: dry,
			Body: body(map[string]any{"metadata": map[string]any{"labels": map[string]any{k: "1"}}})}
	}
	for _, tc := range []struct {
		name     string
		hook     Admission
		req      adapters.Request
		want     adapters.Outcome
		retained bool // the label is in the stored (or dry-run) result
	}{
		{"mutation accepted but not retained", dropLabel, label("x", false), adapters.OK, false},
		{"mutation in dry-run too", dropLabel, label("x", true), adapters.OK, false},
		{"mutation leaves other labels", dropLabel, label("z", false), adapters.OK, true},
		{"reject everywhere, live", rejectLabel(AdmitAll), label("y", false), adapters.Invalid, false},
		{"reject everywhere, dry-run", rejectLabel(AdmitAll), label("y", true), adapters.Invalid, false},
		{"reject live only, dry-run passes", rejectLabel(AdmitLiveOnly), label("y", true), adapters.OK, true},
		{"reject live only, live fails", rejectLabel(AdmitLiveOnly), label("y", false), adapters.Invalid, false},
		{"reject dry-run only, live passes", rejectLabel(AdmitDryRunOnly), label("y", false), adapters.OK, true},
		{"reject dry-run only, dry-run fails", rejectLabel(AdmitDryRunOnly), label("y", true), adapters.Invalid, false},
		{"reject on create", rejectLabel(AdmitAll), adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "b"),
			Body: body(configMap("default", "b", map[string]any{"y": "1"}, nil))}, adapters.Invalid, false},
		{"reject on delete", Admission{Name: "keep", Match: func(r adapters.Request) bool { return r.Verb == adapters.Delete },
			Reject: func(adapters.Request, map[string]any) string { return "protected" }},
			adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "a")}, adapters.Invalid, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newCluster(t)
			create(t, c, configMap("default", "a", nil, nil))
			c.AddAdmission(tc.hook)
			res := do(c, tc.req)
			if res.Outcome != tc.want {
				t.Fatalf("outcome %s (%s), want %s", res.Outcome, res.Message, tc.want)
			}
			if res.Outcome == adapters.Invalid && !strings.Contains(res.Message, "admission webhook") {
				t.Errorf("message %q", res.Message)
			}
			if res.Outcome != adapters.OK || tc.req.Verb != adapters.Patch {
				if !exists(c, cmRef("default", "a")) {
					t.Error("rejected delete removed the object")
				}
				return
			}
			labels, _ := metadata(res.Object)["labels"].(map[string]any)
			if got := len(labels) > 0; got != tc.retained {
				t.Errorf("label retained = %v, want %v (%v)", got, tc.retained, labels)
			}
			stored, _ := c.Object(cmRef("default", "a"))
			storedLabels, _ := metadata(stored)["labels"].(map[string]any)
			if tc.req.DryRun && len(storedLabels) > 0 {
				t.Error("dry-run stored labels")
			}
		})
	}
}

func TestFaultsAtCalls(t *testing.T) {
	c := newCluster(t)
	c.InjectFault(Fault{Verb: adapters.Create, Kind: "ConfigMap", AtCalls: []int{2, 3}, Outcome: adapters.Transient})
	c.InjectFault(Fault{Verb: adapters.Patch, AtCalls: []int{1}, Outcome: adapters.Conflict, Message: "boom"})
	var outcomes []string
	for _, n := range []string{"a", "b", "c", "d"} {
		res := do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", n), Body: raw(`{}`)})
		outcomes = append(outcomes, string(res.Outcome))
	}
	if got := strings.Join(outcomes, " "); got != "ok transient transient ok" {
		t.Errorf("create outcomes %q", got)
	}
	if exists(c, cmRef("default", "b")) || exists(c, cmRef("default", "c")) {
		t.Error("a faulted create was carried out")
	}
	// Deployments do not match the ConfigMap fault.
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: deployRef("d"), Body: body(deployment("d", 1))}))
	p := adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "a"), Body: raw(`{"data":{"k":"v"}}`)}
	if res := do(c, p); res.Outcome != adapters.Conflict || res.Message != "boom" {
		t.Errorf("first patch: %s %q", res.Outcome, res.Message)
	}
	if obj, _ := c.Object(cmRef("default", "a")); field(obj, "/data/k") != nil {
		t.Error("faulted patch was carried out")
	}
	mustOK(t, do(c, p))
	c.ClearFaults()
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "e"), Body: raw(`{}`)}))
}

func TestFaultsByRateAreReproducible(t *testing.T) {
	run := func(seed uint64) string {
		c := newCluster(t, WithSeed(seed))
		create(t, c, configMap("default", "a", nil, nil))
		c.InjectFault(Fault{Verb: adapters.Get, Rate: 0.3})
		var b strings.Builder
		for range 64 {
			if do(c, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "a")}).Outcome == adapters.OK {
				b.WriteByte('.')
			} else {
				b.WriteByte('x')
			}
		}
		return b.String()
	}
	a, b := run(7), run(7)
	if a != b {
		t.Fatalf("same seed, different faults:\n%s\n%s", a, b)
	}
	if n := strings.Count(a, "x"); n < 5 || n > 40 {
		t.Errorf("%d faults in 64 calls at rate 0.3: %s", n, a)
	}
	if run(8) == a {
		t.Errorf("seeds 7 and 8 gave the same faults: %s", a)
	}
}

func TestEngineIdentityAndFaultRecords(t *testing.T) {
	c := newCluster(t, WithEngineIdentity("system:serviceaccount:ops:engine"))
	c.Deny("", adapters.Delete, "*", "*", Forbidden)
	res := do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "a")})
	if !strings.Contains(res.Message, `User "system:serviceaccount:ops:engine"`) {
		t.Errorf("message %q", res.Message)
	}
	c.InjectFault(Fault{AtCalls: []int{1}})
	res = do(c, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", "a"), Identity: "bob"})
	if res.Outcome != adapters.Transient || !strings.Contains(res.Message, "injected") {
		t.Errorf("fault: %s %q", res.Outcome, res.Message)
	}
	recs := c.Records()
	if len(recs) != 2 || recs[0].Outcome != adapters.Forbidden || recs[1].Outcome != adapters.Transient || recs[1].Identity != "bob" {
		t.Errorf("records %v", recs)
	}
}
