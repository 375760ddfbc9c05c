package library

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
)

func celEval(t *testing.T, expr string, vars map[string]any) any {
	t.Helper()
	opts := append(EnvOptions(testMemory), cel.Variable("x", cel.DynType), cel.Variable("y", cel.DynType))
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
	in := map[string]any{"x": nil, "y": nil}
	for k, v := range vars {
		in[k] = ToCEL(v)
	}
	out, _, err := prg.Eval(in)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return ToGo(out)
}

func cm(name, msg string) map[string]any {
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": "default"}, "data": map[string]any{"message": msg}}
}

func template(msg string) map[string]any {
	return map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app.kubernetes.io/name": "my-app"}},
		"spec": map[string]any{"collisionProtection": "Prevent", "phases": []any{
			map[string]any{"name": "configuration", "objects": []any{
				map[string]any{"type": "InlineManifest", "inlineManifest": cm("my-app-settings", msg)}}}}},
	}
}

func TestTemplateHash(t *testing.T) {
	a, b := template("A"), template("B")
	if TemplateHash(a) != TemplateHash(template("A")) {
		t.Error("the same template must hash the same")
	}
	if TemplateHash(a) == TemplateHash(b) {
		t.Error("different templates must hash differently")
	}
	if len(TemplateHash(a)) != 8 {
		t.Errorf("hash %q: want 8 hex digits", TemplateHash(a))
	}
	// Label edits and phase order change the hash (COD-33, COD-34).
	c := template("A")
	c["metadata"].(map[string]any)["labels"].(map[string]any)["tier"] = "web"
	if TemplateHash(c) == TemplateHash(a) {
		t.Error("a template label edit must change the hash")
	}
	two := func(first, second string) map[string]any {
		return map[string]any{"spec": map[string]any{"phases": []any{
			map[string]any{"name": first, "objects": []any{}}, map[string]any{"name": second, "objects": []any{}}}}}
	}
	if TemplateHash(two("a", "b")) == TemplateHash(two("b", "a")) {
		t.Error("phase order must change the hash")
	}
	// Secret references and probes are part of the template too (COD-32).
	withSpec := func(k string, v any) map[string]any {
		c := template("A")
		c["spec"].(map[string]any)[k] = v
		return c
	}
	if TemplateHash(withSpec("progressionProbes", []any{map[string]any{"selector": map[string]any{"type": "Label"}}})) == TemplateHash(a) {
		t.Error("a probe edit must change the hash")
	}
	ref := func(key string) map[string]any {
		return map[string]any{"phases": []any{map[string]any{"name": "p", "objects": []any{
			map[string]any{"type": "SecretRef", "secretRef": map[string]any{"name": "s", "namespace": "n", "key": key}}}}}}
	}
	if TemplateHash(map[string]any{"spec": ref("a")}) == TemplateHash(map[string]any{"spec": ref("b")}) {
		t.Error("a Secret reference edit must change the hash")
	}
	if got := celEval(t, "rollout.templateHash(x)", map[string]any{"x": a}); got != TemplateHash(a) {
		t.Errorf("CEL rollout.templateHash = %v", got)
	}
}

func cos(name string, rev int64, state string) map[string]any {
	return map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterObjectSet",
		"metadata": map[string]any{"name": name, "uid": "uid-" + name},
		"spec":     map[string]any{"group": "my-app", "revision": rev, "lifecycleState": state}}
}

func TestNextRevisionAndOrder(t *testing.T) {
	if NextRevision([]any{}) != 1 {
		t.Error("an empty group starts at 1")
	}
	sets := []any{cos("my-app-3", 3, "Archived"), cos("my-app-1", 1, "Active"), cos("my-app-7", 7, "Active")}
	if got := NextRevision(sets); got != 8 {
		t.Errorf("NextRevision = %d, want 8", got)
	}
	// No cap: the rule decides that 10000000000 is beyond the range.
	if got := celEval(t, "rollout.nextRevision(x)", map[string]any{"x": []any{cos("my-app-9999999999", 9999999999, "Archived")}}); got != int64(10000000000) {
		t.Errorf("nextRevision = %v", got)
	}
	var names []string
	for _, s := range ByRevision(sets) {
		names = append(names, s.(map[string]any)["metadata"].(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "my-app-1,my-app-3,my-app-7" {
		t.Errorf("ByRevision = %v", names)
	}
}

func TestController(t *testing.T) {
	o := map[string]any{"metadata": map[string]any{"ownerReferences": []any{
		map[string]any{"kind": "A", "uid": "1"}, map[string]any{"kind": "B", "uid": "2", "controller": true}}}}
	if Controller(o)["uid"] != "2" {
		t.Errorf("Controller = %v", Controller(o))
	}
	if len(Controller(map[string]any{})) != 0 {
		t.Error("no owner: empty map")
	}
}

func TestMetadataError(t *testing.T) {
	if e := MetadataError(template("A")["metadata"]); e != "" {
		t.Errorf("valid metadata: %s", e)
	}
	for _, bad := range []map[string]any{
		{"labels": map[string]any{"bad key!": "x"}},
		{"labels": map[string]any{"ok": "not a valid value!"}},
		{"annotations": map[string]any{"-nope": "x"}},
	} {
		if MetadataError(bad) == "" {
			t.Errorf("%v: want an error", bad)
		}
	}
}

func TestSetConditions(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := SetConditions(nil, []any{map[string]any{"type": "Progressing", "status": "True", "reason": "A"}}, t0, 1)
	c = SetConditions(c, []any{map[string]any{"type": "Progressing", "status": "True", "reason": "B"},
		map[string]any{"type": "Available", "status": "False", "reason": "C"}}, t0.Add(time.Minute), 2)
	if len(c) != 2 || c[0].(map[string]any)["type"] != "Available" {
		t.Fatalf("conditions = %v", c)
	}
	p := c[1].(map[string]any)
	if p["reason"] != "B" || p["lastTransitionTime"] != "2026-01-01T00:00:00Z" || p["observedGeneration"] != int64(2) {
		t.Errorf("same status keeps lastTransitionTime: %v", p)
	}
	c = SetConditions(c, []any{map[string]any{"type": "Progressing", "status": "False", "reason": "D"}}, t0.Add(2*time.Minute), 2)
	if c[1].(map[string]any)["lastTransitionTime"] != "2026-01-01T00:02:00Z" {
		t.Errorf("a status change moves lastTransitionTime: %v", c[1])
	}
}

func revision(rev int64, phases []any, cp string) map[string]any {
	spec := map[string]any{"group": "my-app", "revision": rev, "lifecycleState": "Active", "phases": phases}
	if cp != "" {
		spec["collisionProtection"] = cp
	}
	name := "my-app-" + map[int64]string{1: "1", 2: "2", 3: "3"}[rev]
	return map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterObjectSet",
		"metadata": map[string]any{"name": name, "uid": "uid-" + name}, "spec": spec}
}

func inline(obj map[string]any) map[string]any {
	return map[string]any{"type": "InlineManifest", "inlineManifest": obj}
}

func TestResolve(t *testing.T) {
	r := Resolve(revision(1, []any{map[string]any{"name": "one", "objects": []any{inline(cm("a", "x"))}}}, ""), nil)
	if r["errorKind"] != "" || len(r["objects"].([]any)) != 1 {
		t.Fatalf("Resolve = %v", r)
	}
	if r["objects"].([]any)[0].(map[string]any)["collisionProtection"] != "Prevent" {
		t.Error("collision protection defaults to Prevent")
	}
	// Most specific wins: object > phase > spec.
	o := inline(cm("b", "x"))
	o["collisionProtection"] = "None"
	r = Resolve(revision(1, []any{map[string]any{"name": "one", "collisionProtection": "IfNoController",
		"objects": []any{inline(cm("a", "x")), o}}}, "Prevent"), nil)
	objs := r["objects"].([]any)
	if objs[0].(map[string]any)["collisionProtection"] != "IfNoController" || objs[1].(map[string]any)["collisionProtection"] != "None" {
		t.Errorf("precedence: %v", objs)
	}
	// Duplicates, bad phase names, forbidden metadata are invalid.
	for _, phases := range [][]any{
		{map[string]any{"name": "one", "objects": []any{inline(cm("a", "x"))}}, map[string]any{"name": "two", "objects": []any{inline(cm("a", "y"))}}},
		{map[string]any{"name": "One", "objects": []any{inline(cm("a", "x"))}}},
		{map[string]any{"name": "one", "objects": []any{inline(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "uid": "u"}})}}},
		{map[string]any{"name": "one", "objects": []any{inline(map[string]any{"kind": "ConfigMap", "metadata": map[string]any{"name": "a"}})}}},
	} {
		if r := Resolve(revision(1, phases, ""), nil); r["errorKind"] != "invalid" {
			t.Errorf("%v: want invalid, got %v", phases, r)
		}
	}
	// secretRef: missing, mutable, and resolved.
	ref := map[string]any{"type": "SecretRef", "secretRef": map[string]any{"name": "s", "namespace": "default", "key": "cm"}}
	rev := revision(1, []any{map[string]any{"name": "one", "objects": []any{ref}}}, "")
	if r := Resolve(rev, nil); r["errorKind"] != "missing" {
		t.Errorf("missing secret: %v", r)
	}
	secret := map[string]any{"metadata": map[string]any{"name": "s", "namespace": "default"},
		"data": map[string]any{"cm": base64.StdEncoding.EncodeToString([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: from-secret\n  namespace: default\n"))}}
	if r := Resolve(rev, []any{secret}); r["errorKind"] != "invalid" {
		t.Errorf("mutable secret: %v", r)
	}
	secret["immutable"] = true
	r = Resolve(rev, []any{secret})
	if r["errorKind"] != "" || r["objects"].([]any)[0].(map[string]any)["object"].(map[string]any)["metadata"].(map[string]any)["name"] != "from-secret" {
		t.Errorf("secret resolved: %v", r)
	}
	if k := Kinds(r["objects"]); len(k) != 1 || k[0].(map[string]any)["kind"] != "ConfigMap" {
		t.Errorf("Kinds = %v", k)
	}
}

func owned(obj map[string]any, refs ...map[string]any) map[string]any {
	o := Normalize(roCopy(obj)).(map[string]any)
	var l []any
	for _, r := range refs {
		l = append(l, r)
	}
	o["metadata"].(map[string]any)["ownerReferences"] = l
	return o
}

func ctrlRef(kind, name, uid string) map[string]any {
	return map[string]any{"apiVersion": "x/v1", "kind": kind, "name": name, "uid": uid, "controller": true}
}

func TestPlanRelations(t *testing.T) {
	phases := []any{
		map[string]any{"name": "one", "objects": []any{inline(cm("a", "x"))}},
		map[string]any{"name": "two", "objects": []any{inline(cm("b", "x"))}},
	}
	self := revision(2, phases, "")
	objs := Resolve(self, nil)["objects"]
	relation := func(p map[string]any) string {
		return p["phases"].([]any)[0].(map[string]any)["objects"].([]any)[0].(map[string]any)["relation"].(string)
	}

	// Nothing exists: phase one is applied, phase two waits.
	p := testMemory.Plan(self, objs, []any{[]any{}})
	if p["active"] != int64(0) || len(p["apply"].([]any)) != 1 || relation(p) != "create" {
		t.Fatalf("fresh: %v", p)
	}
	applied := p["apply"].([]any)[0].(map[string]any)
	if c := Controller(applied); c["uid"] != "uid-my-app-2" {
		t.Errorf("applied object must name the COS as controller: %v", applied)
	}

	// Phase one owned and in sync: complete (ConfigMaps have no probe); phase two next.
	live := []any{[]any{owned(cm("a", "x"), map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterObjectSet", "name": "my-app-2", "uid": "uid-my-app-2", "controller": true, "blockOwnerDeletion": true})}}
	p = testMemory.Plan(self, objs, live)
	if p["active"] != int64(1) || relation(p) != "owned" {
		t.Errorf("phase one done: %v", p)
	}

	cases := []struct {
		name     string
		cp       string
		live     map[string]any
		relation string
	}{
		{"lower sibling: handoff", "", owned(cm("a", "x"), ctrlRef("ClusterObjectSet", "my-app-1", "u1")), "adopt"},
		{"higher sibling: progressed", "", owned(cm("a", "x"), ctrlRef("ClusterObjectSet", "my-app-3", "u3")), "progressed"},
		{"foreign controller, Prevent", "Prevent", owned(cm("a", "x"), ctrlRef("Deployment", "other", "u9")), "collision"},
		{"foreign controller, IfNoController", "IfNoController", owned(cm("a", "x"), ctrlRef("Deployment", "other", "u9")), "collision"},
		{"foreign controller, None", "None", owned(cm("a", "x"), ctrlRef("Deployment", "other", "u9")), "adopt"},
		{"no controller, Prevent", "Prevent", cm("a", "x"), "collision"},
		{"no controller, IfNoController", "IfNoController", cm("a", "x"), "adopt"},
		{"no controller, None", "None", cm("a", "x"), "adopt"},
	}
	for _, c := range cases {
		s := revision(2, phases, c.cp)
		p := testMemory.Plan(s, Resolve(s, nil)["objects"], []any{[]any{c.live}})
		if got := relation(p); got != c.relation {
			t.Errorf("%s: relation %s, want %s", c.name, got, c.relation)
		}
		if c.relation == "collision" && len(p["collisions"].([]any)) != 1 {
			t.Errorf("%s: want a collision message: %v", c.name, p)
		}
		if c.name == "lower sibling: handoff" {
			refs := p["apply"].([]any)[0].(map[string]any)["metadata"].(map[string]any)["ownerReferences"].([]any)
			if len(refs) != 2 || refs[0].(map[string]any)["controller"] != false || refs[1].(map[string]any)["uid"] != "uid-my-app-2" {
				t.Errorf("handoff keeps the old reference as non-controller: %v", refs)
			}
		}
	}
}

func deployment(ready bool) map[string]any {
	d := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "web", "namespace": "default", "generation": int64(1), "labels": map[string]any{"app": "web"}},
		"spec":     map[string]any{"replicas": int64(2)}}
	if ready {
		d["status"] = map[string]any{"observedGeneration": int64(1), "replicas": int64(2), "updatedReplicas": int64(2), "availableReplicas": int64(2),
			"conditions": []any{map[string]any{"type": "Available", "status": "True"}}}
	}
	return d
}

func TestProbe(t *testing.T) {
	if testMemory.Probe(deployment(false), nil)["ready"] != false {
		t.Error("a Deployment without status is not ready")
	}
	if r := testMemory.Probe(deployment(true), nil); r["ready"] != true {
		t.Errorf("ready Deployment: %v", r)
	}
	d := deployment(true)
	d["metadata"].(map[string]any)["generation"] = int64(2)
	if testMemory.Probe(d, nil)["ready"] != false {
		t.Error("observedGeneration behind generation is not ready")
	}
	for kind, obj := range map[string]map[string]any{
		"Namespace": {"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "n"}, "status": map[string]any{"phase": "Terminating"}},
		"PVC":       {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": map[string]any{"name": "p"}, "status": map[string]any{"phase": "Pending"}},
		"CRD":       {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": map[string]any{"name": "c"}},
	} {
		if testMemory.Probe(obj, nil)["ready"] != false {
			t.Errorf("%s default probe must fail", kind)
		}
	}
	probe := func(a map[string]any) []any {
		return []any{map[string]any{"selector": map[string]any{"type": "Label", "label": map[string]any{"matchLabels": map[string]any{"app": "web"}}},
			"assertions": []any{a}}}
	}
	ready := deployment(true)
	for name, c := range map[string]struct {
		a    map[string]any
		want bool
	}{
		"ConditionEqual true":  {map[string]any{"type": "ConditionEqual", "conditionEqual": map[string]any{"type": "Available", "status": "True"}}, true},
		"ConditionEqual false": {map[string]any{"type": "ConditionEqual", "conditionEqual": map[string]any{"type": "Progressing", "status": "True"}}, false},
		"FieldsEqual":          {map[string]any{"type": "FieldsEqual", "fieldsEqual": map[string]any{"fieldA": "spec.replicas", "fieldB": "status.availableReplicas"}}, true},
		"FieldValue":           {map[string]any{"type": "FieldValue", "fieldValue": map[string]any{"fieldPath": ".status.replicas", "value": "3"}}, false},
		"CEL true":             {map[string]any{"type": "CEL", "cel": map[string]any{"expression": "self.status.availableReplicas >= 2"}}, true},
		"CEL false":            {map[string]any{"type": "CEL", "cel": map[string]any{"expression": "self.status.availableReplicas > 2", "message": "too few"}}, false},
	} {
		if got := testMemory.Probe(ready, probe(c.a)); got["ready"] != c.want {
			t.Errorf("%s: %v", name, got)
		}
	}
	// A selector that does not match does not apply.
	gk := []any{map[string]any{"selector": map[string]any{"type": "GroupKind", "groupKind": map[string]any{"group": "apps", "kind": "StatefulSet"}},
		"assertions": []any{map[string]any{"type": "FieldValue", "fieldValue": map[string]any{"fieldPath": "x", "value": "y"}}}}}
	if testMemory.Probe(ready, gk)["ready"] != true {
		t.Error("non-matching selector must not apply")
	}
}

func TestTeardown(t *testing.T) {
	phases := []any{
		map[string]any{"name": "one", "objects": []any{inline(cm("a", "x"))}},
		map[string]any{"name": "two", "objects": []any{inline(cm("b", "x")), inline(cm("c", "x"))}},
	}
	self := revision(1, phases, "")
	objs := Resolve(self, nil)["objects"]
	mine := map[string]any{"kind": "ClusterObjectSet", "name": "my-app-1", "uid": "uid-my-app-1", "controller": true}
	mineRef := map[string]any{"kind": "ClusterObjectSet", "name": "my-app-1", "uid": "uid-my-app-1", "controller": false}
	newer := ctrlRef("ClusterObjectSet", "my-app-2", "u2")
	live := []any{[]any{owned(cm("a", "x"), mine), owned(cm("b", "x"), mineRef, newer), owned(cm("c", "x"), mine)}}
	td := Teardown(self, objs, live)
	if td["phase"] != "two" || td["done"] != false {
		t.Fatalf("last phase first: %v", td)
	}
	if del := td["delete"].([]any); len(del) != 1 || del[0].(map[string]any)["name"] != "c" {
		t.Errorf("delete only what it controls: %v", del)
	}
	rel := td["release"].([]any)
	if len(rel) != 1 || len(rel[0].(map[string]any)["ownerReferences"].([]any)) != 1 {
		t.Errorf("release removes only its reference: %v", rel)
	}
	// Phase two gone (c deleted, b released): phase one next, then done.
	live = []any{[]any{owned(cm("a", "x"), mine), owned(cm("b", "x"), newer)}}
	if td := Teardown(self, objs, live); td["phase"] != "one" {
		t.Errorf("then phase one: %v", td)
	}
	if td := Teardown(self, objs, []any{[]any{owned(cm("b", "x"), newer)}}); td["done"] != true {
		t.Errorf("done: %v", td)
	}
}

func TestRolloutCELBindings(t *testing.T) {
	got := celEval(t, "rollout.controller(x).uid", map[string]any{"x": owned(cm("a", "x"), ctrlRef("K", "n", "u"))})
	if got != "u" {
		t.Errorf("rollout.controller = %v", got)
	}
	got = celEval(t, "rollout.byRevision(x).map(s, s.spec.revision)", map[string]any{"x": []any{cos("b", 2, "Active"), cos("a", 1, "Active")}})
	if !reflect.DeepEqual(got, []any{int64(1), int64(2)}) {
		t.Errorf("rollout.byRevision = %v", got)
	}
	got = celEval(t, "rollout.metadataError(x)", map[string]any{"x": map[string]any{"labels": map[string]any{"a b": "c"}}})
	if got == "" {
		t.Error("rollout.metadataError must report the bad key")
	}
	got = celEval(t, "rollout.probe(x, []).ready", map[string]any{"x": deployment(true)})
	if got != true {
		t.Errorf("rollout.probe = %v", got)
	}
	got = celEval(t, "size(rollout.setConditions([], [{'type': 'A', 'status': 'True', 'reason': 'R'}], timestamp('2026-01-01T00:00:00Z'), 1))", nil)
	if got != int64(1) {
		t.Errorf("rollout.setConditions = %v", got)
	}
	self := revision(1, []any{map[string]any{"name": "one", "objects": []any{inline(cm("a", "x"))}}}, "")
	got = celEval(t, "rollout.plan(x, rollout.resolve(x, []).objects, []).active", map[string]any{"x": self})
	if got != int64(0) {
		t.Errorf("rollout.plan = %v", got)
	}
	got = celEval(t, "rollout.teardown(x, rollout.resolve(x, []).objects, []).done", map[string]any{"x": self})
	if got != true {
		t.Errorf("rollout.teardown = %v", got)
	}
	got = celEval(t, "size(rollout.kinds(rollout.resolve(x, []).objects))", map[string]any{"x": self})
	if got != int64(1) {
		t.Errorf("rollout.kinds = %v", got)
	}
}

// testMemory is the tests' library memory.
var testMemory = NewMemory(nil)
