package library_test

import (
	"reflect"
	"testing"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/google/cel-go/cel"

	"github.com/statecraft/statecraft/library"
)

// eval compiles and runs one expression in the rule environment with the
// given variables (all dyn) and returns the result as unstructured Go.
func eval(t *testing.T, expr string, vars map[string]any) any {
	t.Helper()
	opts := library.EnvOptions(library.NewMemory(nil))
	for k := range vars {
		opts = append(opts, cel.Variable(k, cel.DynType))
	}
	env, err := cel.NewEnv(opts...)
	if err != nil {
		t.Fatal(err)
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		t.Fatalf("%s: %v", expr, iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	in := map[string]any{}
	for k, v := range vars {
		in[k] = library.ToCEL(v)
	}
	out, _, err := prg.Eval(in)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return library.ToGo(out)
}

func deployment() map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "app", "namespace": "ns", "labels": map[string]any{"app": "app"}},
		"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "args": []any{"--old"}, "stdin": true},
			map[string]any{"name": "sidecar"},
		}}}},
	}
}

func TestObjpatchValidate(t *testing.T) {
	cases := []struct {
		spec map[string]any
		ok   bool
		err  string
	}{
		{map[string]any{"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}}}}, true, ""},
		{map[string]any{"patch": map[string]any{}}, false, "patch: must be a non-empty JSON object"},
		{map[string]any{"patch": map[string]any{"metadata": "x"}}, false, "patch.metadata: must be an object, not a string"},
		{map[string]any{"jsonPatch": []any{
			map[string]any{"op": "replace", "path": "/spec/containers/@/args", "selector": "item.name == 'app'", "value": []any{"x"}},
			map[string]any{"op": "remove", "path": "/spec/containers/@/stdin", "selector": "item.name == 'app'", "value": true},
		}}, false, "jsonPatch[1].value: remove must omit value"},
	}
	for _, c := range cases {
		got := eval(t, "objpatch.validate(spec)", map[string]any{"spec": c.spec}).(map[string]any)
		if got["ok"] != c.ok || got["error"] != c.err {
			t.Errorf("validate(%v) = %v, want ok=%v error=%q", c.spec, got, c.ok, c.err)
		}
	}
}

func TestObjpatchPlan(t *testing.T) {
	spec := map[string]any{
		"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "kubex"}}},
		"jsonPatch": []any{
			map[string]any{"op": "replace", "path": "/spec/template/spec/containers/@/args", "selector": `item.name == "app"`, "value": []any{"--serve"}},
			map[string]any{"op": "remove", "path": "/spec/template/spec/containers/@/stdin", "selector": `item.name == "app"`},
		},
	}
	got := eval(t, "objpatch.plan(target, spec)", map[string]any{"target": deployment(), "spec": spec}).(map[string]any)
	if got["ok"] != true || got["changed"] != true || got["error"] != "" {
		t.Fatalf("plan = %v", got)
	}
	if want := map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "kubex"}}}; !reflect.DeepEqual(got["merge"], want) {
		t.Errorf("merge = %v, want %v", got["merge"], want)
	}
	if js, _ := got["json"].(string); js == "" {
		t.Errorf("json = %v, want an RFC 6902 document", got["json"])
	}
	// full takes the target to the planned object in one merge patch.
	full := eval(t, "patch.merge(target, objpatch.plan(target, spec).full) == objpatch.plan(target, spec).object", map[string]any{"target": deployment(), "spec": spec})
	if full != true {
		t.Errorf("applying full to the target does not give the planned object")
	}
	// Merge patch only: json is null; planning the planned object changes nothing.
	only := map[string]any{"patch": spec["patch"]}
	got = eval(t, "objpatch.plan(target, spec)", map[string]any{"target": deployment(), "spec": only}).(map[string]any)
	if got["json"] != nil || got["merge"] == nil {
		t.Errorf("merge-only plan = %v", got)
	}
	again := eval(t, "objpatch.plan(objpatch.plan(target, spec).object, spec)", map[string]any{"target": deployment(), "spec": only}).(map[string]any)
	if again["changed"] != false || again["merge"] != nil {
		t.Errorf("replanned = %v, want unchanged", again)
	}
	// A selector that matches nothing is a plan error naming the operation.
	bad := map[string]any{"jsonPatch": []any{map[string]any{"op": "replace", "path": "/spec/template/spec/containers/@/args", "selector": `item.name == "nope"`, "value": []any{"x"}}}}
	got = eval(t, "objpatch.plan(target, spec)", map[string]any{"target": deployment(), "spec": bad}).(map[string]any)
	if got["ok"] != false || got["error"] == "" {
		t.Errorf("plan with unmatched selector = %v, want an error", got)
	}
}

func TestObjpatchSatisfied(t *testing.T) {
	spec := map[string]any{"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "app"}}}}
	if got := eval(t, "objpatch.satisfied(target, spec)", map[string]any{"target": deployment(), "spec": spec}); got != true {
		t.Errorf("satisfied = %v, want true", got)
	}
	spec = map[string]any{"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "other"}}}}
	if got := eval(t, "objpatch.satisfied(target, spec)", map[string]any{"target": deployment(), "spec": spec}); got != false {
		t.Errorf("satisfied = %v, want false", got)
	}
	spec = map[string]any{"patch": map[string]any{}}
	if got := eval(t, "objpatch.satisfied(target, spec)", map[string]any{"target": deployment(), "spec": spec}); got != false {
		t.Errorf("satisfied of an invalid spec = %v, want false", got)
	}
}

func op(name, created string, labels map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
		"metadata": map[string]any{"name": name, "namespace": "ns", "creationTimestamp": created},
		"spec": map[string]any{
			"targetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "app"},
			"patch":     map[string]any{"metadata": map[string]any{"labels": labels}},
		},
	}
}

func TestObjpatchArbitrate(t *testing.T) {
	older := op("b-older", "2026-01-01T00:00:00Z", map[string]any{"team": "a"})
	newer := op("a-newer", "2026-01-01T00:01:00Z", map[string]any{"team": "b"})
	sibling := op("c-sibling", "2026-01-01T00:02:00Z", map[string]any{"tier": "x"})
	tie := op("a-tie", "2026-01-01T00:00:00Z", map[string]any{"team": "c"})
	items := []any{newer, older, sibling}
	check := func(self map[string]any, items []any, accepted bool, winner string) {
		t.Helper()
		got := eval(t, "objpatch.arbitrate(items, self, ['metadata.creationTimestamp', 'metadata.name'])", map[string]any{"items": items, "self": self}).(map[string]any)
		if got["accepted"] != accepted || got["winner"] != winner {
			t.Errorf("arbitrate(%s) = %v, want accepted=%v winner=%q", self["metadata"].(map[string]any)["name"], got, accepted, winner)
		}
		if !accepted && got["message"] == "" {
			t.Errorf("a rejected verdict needs a message")
		}
	}
	check(older, items, true, "")
	check(newer, items, false, "ns/b-older")
	check(sibling, items, true, "") // sibling leaves do not conflict
	// Equal creation timestamps: the name decides.
	check(older, append(items, tie), false, "ns/a-tie")
	// A patch being deleted, or one with an invalid spec, claims nothing.
	deleting := op("b-older", "2026-01-01T00:00:00Z", map[string]any{"team": "a"})
	deleting["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:03:00Z"
	check(newer, []any{newer, deleting}, true, "")
	invalid := op("b-older", "2026-01-01T00:00:00Z", nil)
	invalid["spec"].(map[string]any)["patch"] = map[string]any{}
	check(newer, []any{newer, invalid}, true, "")
	// self is arbitrated even when the list does not hold it yet.
	check(newer, []any{older}, false, "ns/b-older")
	// The order is the rule file's: by name alone, the newer a-newer wins;
	// one memory remembers each order's verdicts apart.
	mem := library.NewMemory(nil)
	for _, c := range []struct {
		order  []string
		winner string
	}{{[]string{"metadata.name"}, "ns/a-newer"}, {seedClaimOrder, "ns/b-older"}, {[]string{"metadata.name"}, "ns/a-newer"}} {
		loser := older
		if c.winner == "ns/b-older" {
			loser = newer
		}
		if got := mem.ArbitrateClaims(items, loser, c.order); got["accepted"] != false || got["winner"] != c.winner {
			t.Errorf("order %v: arbitrate = %v, want winner %s", c.order, got, c.winner)
		}
	}
}

// The verdicts remembered per list give every listed claimant the verdict
// arbitrating it on its own gives, and a self that is not listed as it is
// (being deleted, invalid, changed since the list) is arbitrated on its own.
func TestArbitrateListVerdictsAgree(t *testing.T) {
	a := op("a", "2026-01-01T00:00:00Z", map[string]any{"team": "a"})
	b := op("b", "2026-01-01T00:01:00Z", map[string]any{"team": "b"})
	c := op("c", "2026-01-01T00:02:00Z", map[string]any{"tier": "x"})
	d := op("d", "2026-01-01T00:00:00Z", map[string]any{"team": "d"})
	aChanged := op("a", "2026-01-01T00:00:00Z", map[string]any{"tier": "y"})
	aDeleting := op("a", "2026-01-01T00:00:00Z", map[string]any{"team": "a"})
	aDeleting["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:03:00Z"
	lists := [][]any{{a, b, c}, {b, c, d}, {a, b, c, d}, {aDeleting, b}, {aChanged, b, d}, {}}
	mem := library.NewMemory(nil)
	for i, items := range lists {
		for _, self := range []map[string]any{a, b, c, d, aChanged, aDeleting} {
			got := mem.ArbitrateClaims(items, self, seedClaimOrder)
			want := library.ArbitrateAlone(items, self, seedClaimOrder)
			if got["accepted"] != want["accepted"] || got["winner"] != want["winner"] || got["message"] != want["message"] {
				t.Errorf("list %d, self %s: %v, want %v", i, self["metadata"].(map[string]any)["name"], got, want)
			}
		}
	}
}

// A namespace's list changes one member at a time: members that are the
// same frozen objects as in the last list keep their fingerprints, a member
// replaced by a changed copy is read again, and an unfrozen member is read
// every time (it may have been changed in place).
func TestArbitrateListsOneMemberChanged(t *testing.T) {
	reg := jsonvalue.NewRegistry()
	mem := library.NewMemory(reg)
	freeze := reg.Freeze
	a := freeze(op("a", "2026-01-01T00:00:00Z", map[string]any{"team": "a"}))
	b := freeze(op("b", "2026-01-01T00:01:00Z", map[string]any{"tier": "b"}))
	c := freeze(op("c", "2026-01-01T00:02:00Z", map[string]any{"zone": "c"}))
	check := func(step string, items []any, self map[string]any, accepted bool) {
		t.Helper()
		got := mem.ArbitrateClaims(items, self, seedClaimOrder)
		want := library.ArbitrateAlone(items, self, seedClaimOrder)
		if got["accepted"] != want["accepted"] || got["winner"] != want["winner"] || got["message"] != want["message"] {
			t.Errorf("%s: %v, arbitrated alone %v", step, got, want)
		}
		if got["accepted"] != accepted {
			t.Errorf("%s: accepted = %v, want %v", step, got["accepted"], accepted)
		}
	}
	check("all apart", []any{a, b, c}, c, true)
	// c's spec changes to claim a's field: a new frozen object in its place.
	c2 := freeze(op("c", "2026-01-01T00:02:00Z", map[string]any{"team": "c"}))
	check("c now conflicts with the older a", []any{a, b, c2}, c2, false)
	check("a still wins", []any{a, b, c2}, a, true)
	// An unfrozen member changed in place between two arbitrations.
	d := op("d", "2026-01-01T00:00:30Z", map[string]any{"zone": "d"})
	check("d apart", []any{a, b, c2, d}, b, true)
	d["spec"].(map[string]any)["patch"] = map[string]any{"metadata": map[string]any{"labels": map[string]any{"tier": "d"}}}
	check("d changed in place now takes b's field", []any{a, b, c2, d}, b, false)
}

// objpatch.plan hands its result to CEL unchecked: it must be canonical
// whatever the target's numbers (an integral float, an int).
func TestPlanIsCanonical(t *testing.T) {
	target := map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "ns", "labels": map[string]any{"a": "1"}},
		"data":     map[string]any{"x": "y"}, "extra": map[string]any{"two": 2.0, "n": 3}}
	for _, spec := range []map[string]any{
		{"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"b": "2"}}}},
		{"patch": map[string]any{"extra": map[string]any{"three": 3.0}}},
		{"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "1"}}}},
	} {
		p := library.NewMemory(nil).PlanSpec(target, spec)
		if p["ok"] != true {
			t.Fatalf("plan %v: %v", spec, p["error"])
		}
		if !jsonvalue.IsCanonical(p) {
			t.Errorf("plan of %v is not canonical: %#v", spec, p)
		}
	}
}

// seedClaimOrder is seed 000's order of arbitration, as objectpatch.hcl
// gives it.
var seedClaimOrder = []string{"metadata.creationTimestamp", "metadata.name"}
