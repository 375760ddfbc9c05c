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
	protection := func(o any) map[string]any { return o.(map[string]any)["collisionProtection"].(map[string]any) }
	if p := protection(r["objects"].([]any)[0]); p["object"] != "" || p["phase"] != "" {
		t.Errorf("no protection named: %v", p)
	}
	// Each level's setting, as written: the rule file decides which wins.
	o := inline(cm("b", "x"))
	o["collisionProtection"] = "None"
	r = Resolve(revision(1, []any{map[string]any{"name": "one", "collisionProtection": "IfNoController",
		"objects": []any{inline(cm("a", "x")), o}}}, "Prevent"), nil)
	objs := r["objects"].([]any)
	if p := protection(objs[0]); p["object"] != "" || p["phase"] != "IfNoController" {
		t.Errorf("phase level: %v", p)
	}
	if p := protection(objs[1]); p["object"] != "None" || p["phase"] != "IfNoController" {
		t.Errorf("object level: %v", p)
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

func TestObserve(t *testing.T) {
	phases := []any{
		map[string]any{"name": "one", "objects": []any{inline(cm("a", "x"))}},
		map[string]any{"name": "two", "objects": []any{inline(cm("b", "x"))}},
	}
	self := revision(2, phases, "")
	objs := Resolve(self, nil)["objects"]
	mine := map[string]any{"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterObjectSet", "name": "my-app-2", "uid": "uid-my-app-2", "controller": true, "blockOwnerDeletion": true}
	refs := func(o map[string]any) []any {
		return o["manifest"].(map[string]any)["metadata"].(map[string]any)["ownerReferences"].([]any)
	}

	// Nothing exists: the manifests name this revision as controller.
	got := Observe(self, objs, []any{[]any{}})
	if len(got) != 2 {
		t.Fatalf("one entry per object: %v", got)
	}
	a := got[0].(map[string]any)
	if a["exists"] != false || a["phase"] != "one" || a["phaseIndex"] != int64(0) || a["inSync"] != false || len(a["controller"].(map[string]any)) != 0 {
		t.Errorf("absent object: %v", a)
	}
	if r := refs(a); len(r) != 1 || r[0].(map[string]any)["uid"] != "uid-my-app-2" || r[0].(map[string]any)["controller"] != true {
		t.Errorf("a new object's manifest names the revision as controller: %v", r)
	}
	if ref := a["ref"].(map[string]any); ref["kind"] != "ConfigMap" || ref["namespace"] != "default" || ref["name"] != "a" {
		t.Errorf("ref = %v", ref)
	}

	// Controlled by this revision and holding the manifest: in sync.
	got = Observe(self, objs, []any{[]any{owned(cm("a", "x"), mine)}})
	if a := got[0].(map[string]any); a["controlledBySelf"] != true || a["referencedBySelf"] != true || a["inSync"] != true || a["controllerRevision"] != int64(2) {
		t.Errorf("owned, in sync: %v", a)
	}
	// Its data changed: out of sync.
	if a := Observe(self, objs, []any{[]any{owned(cm("a", "changed"), mine)}})[0].(map[string]any); a["inSync"] != false {
		t.Errorf("owned, drifted: %v", a)
	}

	// A lower revision of the group controls it: its revision, and a
	// manifest that keeps the old reference as non-controller.
	got = Observe(self, objs, []any{[]any{owned(cm("a", "x"), ctrlRef("ClusterObjectSet", "my-app-1", "u1"))}})
	a = got[0].(map[string]any)
	if a["controllerRevision"] != int64(1) || a["controlledBySelf"] != false || a["inSync"] != false {
		t.Errorf("sibling: %v", a)
	}
	if r := refs(a); len(r) != 2 || r[0].(map[string]any)["uid"] != "u1" || r[0].(map[string]any)["controller"] != false || r[1].(map[string]any)["uid"] != "uid-my-app-2" {
		t.Errorf("handoff manifest: %v", r)
	}
	// Another kind of controller: no revision; a ClusterObjectSet of
	// another group: none either.
	for _, ctrl := range []map[string]any{ctrlRef("Deployment", "my-app-1", "u9"), ctrlRef("ClusterObjectSet", "other-1", "u8")} {
		a := Observe(self, objs, []any{[]any{owned(cm("a", "x"), ctrl)}})[0].(map[string]any)
		if a["controllerRevision"] != int64(0) || a["controller"].(map[string]any)["uid"] != ctrl["uid"] {
			t.Errorf("%v: %v", ctrl, a)
		}
	}

	// Referenced without control, and being deleted: what a teardown reads.
	ref := map[string]any{"kind": "ClusterObjectSet", "name": "my-app-2", "uid": "uid-my-app-2", "controller": false}
	b := owned(cm("b", "x"), ref, ctrlRef("ClusterObjectSet", "my-app-3", "u3"))
	b["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:00:00Z"
	got = Observe(self, objs, []any{[]any{b}})
	if e := got[1].(map[string]any); e["referencedBySelf"] != true || e["controlledBySelf"] != false || e["deleting"] != true ||
		e["controllerRevision"] != int64(3) || len(e["ownerReferences"].([]any)) != 1 {
		t.Errorf("referenced, deleting: %v", e)
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
	// Only the author's probes: a kind's readiness is the rule file's.
	if r := testMemory.Probe(deployment(false), nil); r["ready"] != true {
		t.Errorf("no probes, no verdict against the object: %v", r)
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
	got = celEval(t, "rollout.probe(x, [{'selector': {'type': 'GroupKind', 'groupKind': {'group': 'apps', 'kind': 'Deployment'}}, 'assertions': [{'type': 'CEL', 'cel': {'expression': 'self.spec.replicas > 5', 'message': 'too few'}}]}]).message", map[string]any{"x": deployment(true)})
	if got != "too few" {
		t.Errorf("rollout.probe = %v", got)
	}
	got = celEval(t, "size(rollout.setConditions([], [{'type': 'A', 'status': 'True', 'reason': 'R'}], timestamp('2026-01-01T00:00:00Z'), 1))", nil)
	if got != int64(1) {
		t.Errorf("rollout.setConditions = %v", got)
	}
	self := revision(1, []any{map[string]any{"name": "one", "objects": []any{inline(cm("a", "x"))}}}, "")
	got = celEval(t, "rollout.observe(x, rollout.resolve(x, []).objects, [[]]).map(o, o.ref.name + ' ' + string(o.exists))", map[string]any{"x": self})
	if !reflect.DeepEqual(got, []any{"a false"}) {
		t.Errorf("rollout.observe = %v", got)
	}
	got = celEval(t, "size(rollout.kinds(rollout.resolve(x, []).objects))", map[string]any{"x": self})
	if got != int64(1) {
		t.Errorf("rollout.kinds = %v", got)
	}
}

// testMemory is the tests' library memory; its CEL assertions compile in
// a plain environment (package fsm gives a machine's memory its own).
var testMemory = &Memory{CompileAssertion: func(expr string) (cel.Program, error) {
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType), cel.OptionalTypes())
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	return env.Program(ast)
}}

// TestResultTypes: a library function's record is a declared type, so the
// checker refuses a field it does not have.
func TestResultTypes(t *testing.T) {
	env, err := cel.NewEnv(append(EnvOptions(nil), cel.Variable("x", cel.DynType))...)
	if err != nil {
		t.Fatal(err)
	}
	for expr, ok := range map[string]bool{
		"rollout.resolve(x, []).objects[0].collisionProtection.phase":      true,
		"rollout.resolve(x, []).objcts":                                    false,
		"rollout.observe(x, [], []).map(o, o.controller.uid + o.ref.name)": true,
		"rollout.observe(x, [], []).map(o, o.controler)":                   false,
		"rollout.observe(x, [], [])[0].live.anything.goes":                 true,
		"rollout.probe(x, []).ready":                                       true,
		"rollout.probe(x, []).redy":                                        false,
		"ref(x).namespace":                                                 true,
		"ref(x).namspace":                                                  false,
		"rollout.kinds([]).map(k, k.apiVersion)":                           true,
		"rollout.setConditions([], [], timestamp('2026-01-01T00:00:00Z'), 1)[0].lastTransitionTime": true,
		"has(rollout.controller(x).uid)":                                    true,
		"rollout.controller(x).owner":                                       false,
		"objpatch.validate(x).error":                                        true,
		"objpatch.validate(x).eror":                                         false,
		"objpatch.plan(x, x).retained && objpatch.plan(x, x).merge != null": true,
		"objpatch.plan(x, x).retaind":                                       false,
		"objpatch.arbitrate([x], x, ['metadata.name']).winner":              true,
		"objpatch.arbitrate([x], x, ['metadata.name']).winer":               false,
		"objpatch.arbitrate([x], x, [1])":                                   false,
	} {
		_, iss := env.Compile(expr)
		if got := iss.Err() == nil; got != ok {
			t.Errorf("%s: compiles %v, want %v (%v)", expr, got, ok, iss.Err())
		}
	}
}
