package objpatch

import (
	"errors"
	"strings"
	"testing"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

const deployment = `{
  "apiVersion": "apps/v1", "kind": "Deployment",
  "metadata": {"name": "application", "namespace": "patches-demo", "labels": {"app": "application"}},
  "spec": {"replicas": 1, "template": {"spec": {"containers": [
    {"name": "sidecar", "image": "busybox", "args": ["sleep"]},
    {"name": "app", "image": "nginx", "args": ["--old"], "stdin": true}
  ]}}}
}`

const seedOps = `[
  {"op": "replace", "path": "/spec/template/spec/containers/@/args", "selector": "item.name == \"app\"", "matchPolicy": "ExactlyOne", "value": ["--serve"]},
  {"op": "add", "path": "/spec/template/spec/containers/@/workingDir", "selector": "item.name == \"app\"", "value": "/work"},
  {"op": "remove", "path": "/spec/template/spec/containers/@/stdin", "selector": "item.name == \"app\""}
]`

// applyWithLibrary applies a Result's requests to target with an
// independent implementation (evanphx/json-patch): merge patch first, then
// the JSON patch.
func applyWithLibrary(t *testing.T, target map[string]any, res *Result) (string, error) {
	t.Helper()
	doc := []byte(canon(t, target))
	var err error
	if res.MergePatch != nil {
		if doc, err = jsonpatch.MergePatch(doc, res.MergePatch); err != nil {
			return "", err
		}
	}
	if res.JSONPatch != nil {
		p, err := jsonpatch.DecodePatch(res.JSONPatch)
		if err != nil {
			t.Fatalf("JSONPatch does not decode: %v\n%s", err, res.JSONPatch)
		}
		if doc, err = p.Apply(doc); err != nil {
			return "", err
		}
	}
	return canon(t, js(t, string(doc))), nil
}

func TestPlanSeedExample(t *testing.T) {
	target := obj(t, deployment)
	before := canon(t, target)
	patch := js(t, `{"metadata":{"labels":{"managed-by":"kubex"}}}`)
	res, err := Plan(target, patch, ops(t, seedOps), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if canon(t, target) != before {
		t.Fatal("Plan modified its input")
	}
	want := canon(t, js(t, `{
	  "apiVersion": "apps/v1", "kind": "Deployment",
	  "metadata": {"name": "application", "namespace": "patches-demo", "labels": {"app": "application", "managed-by": "kubex"}},
	  "spec": {"replicas": 1, "template": {"spec": {"containers": [
	    {"name": "sidecar", "image": "busybox", "args": ["sleep"]},
	    {"name": "app", "image": "nginx", "args": ["--serve"], "workingDir": "/work"}
	  ]}}}}`))
	if got := canon(t, res.Object); got != want {
		t.Fatalf("Object\n got %s\nwant %s", got, want)
	}
	if !res.Changed {
		t.Error("Changed = false")
	}
	if got := string(res.MergePatch); got != `{"metadata":{"labels":{"managed-by":"kubex"}}}` {
		t.Errorf("MergePatch = %s", got)
	}
	if got := canon(t, res.Merge); got != string(res.MergePatch) {
		t.Errorf("Merge = %s, MergePatch = %s", got, res.MergePatch)
	}
	wantJP := `[{"op":"test","path":"/spec/template/spec/containers/1/name","value":"app"},` +
		`{"op":"replace","path":"/spec/template/spec/containers/1/args","value":["--serve"]},` +
		`{"op":"test","path":"/spec/template/spec/containers/1/name","value":"app"},` +
		`{"op":"add","path":"/spec/template/spec/containers/1/workingDir","value":"/work"},` +
		`{"op":"test","path":"/spec/template/spec/containers/1/name","value":"app"},` +
		`{"op":"remove","path":"/spec/template/spec/containers/1/stdin"}]`
	if got := string(res.JSONPatch); got != wantJP {
		t.Errorf("JSONPatch\n got %s\nwant %s", got, wantJP)
	}
	if len(res.Matches) != 3 || res.Matches[2][0] != "/spec/template/spec/containers/1" {
		t.Errorf("Matches = %v", res.Matches)
	}
	got, err := applyWithLibrary(t, target, res)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("requests applied by evanphx/json-patch\n got %s\nwant %s", got, want)
	}

	// The result is satisfied: an already-matching target changes nothing.
	ok, err := Satisfied(res.Object, patch, ops(t, seedOps))
	if err != nil || !ok {
		t.Fatalf("Satisfied(result) = %v, %v", ok, err)
	}
	again, err := Plan(res.Object, patch, ops(t, seedOps), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed || again.MergePatch != nil || again.JSONPatch != nil {
		t.Errorf("replanning the result: Changed=%v MergePatch=%s JSONPatch=%s", again.Changed, again.MergePatch, again.JSONPatch)
	}
	// Drift: someone restores stdin.
	drifted := obj(t, canon(t, res.Object))
	drifted["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[1].(map[string]any)["stdin"] = true
	if ok, err := Satisfied(drifted, patch, ops(t, seedOps)); err != nil || ok {
		t.Errorf("Satisfied(drifted) = %v, %v; want false", ok, err)
	}
	d, err := Plan(drifted, patch, ops(t, seedOps), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d.MergePatch != nil {
		t.Errorf("drift repair needs no merge patch, got %s", d.MergePatch)
	}
	if got := string(d.JSONPatch); got != `[{"op":"test","path":"/spec/template/spec/containers/1/name","value":"app"},{"op":"remove","path":"/spec/template/spec/containers/1/stdin"}]` {
		t.Errorf("drift JSONPatch = %s", got)
	}
}

func TestPlanReorderedTargetFailsTest(t *testing.T) {
	target := obj(t, deployment)
	for _, sel := range []string{`item.name == \"app\"`, `item.image == \"nginx\" && item.name != \"x\"`} {
		o := ops(t, `[{"op":"add","path":"/spec/template/spec/containers/@/workingDir","selector":"`+sel+`","value":"/work"}]`)
		res, err := Plan(target, nil, o, Options{})
		if err != nil {
			t.Fatal(err)
		}
		// A concurrent actor swaps the containers before the request lands.
		moved := obj(t, canon(t, target))
		cs := moved["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
		cs[0], cs[1] = cs[1], cs[0]
		if _, err := applyWithLibrary(t, moved, res); err == nil {
			t.Errorf("selector %s: JSONPatch %s applied to a reordered target; the test operation must fail it", sel, res.JSONPatch)
		}
		if _, err := applyWithLibrary(t, target, res); err != nil {
			t.Errorf("selector %s: JSONPatch %s does not apply to its target: %v", sel, res.JSONPatch, err)
		}
	}
}

func TestPlanMergeSemantics(t *testing.T) {
	cases := []struct {
		name, target, patch, want string
	}{
		{"nested merge keeps labels", `{"metadata":{"labels":{"a":"1"}}}`, `{"metadata":{"labels":{"b":"2"}}}`, `{"metadata":{"labels":{"a":"1","b":"2"}}}`},
		{"several fields at once", `{"metadata":{"labels":{"a":"1"},"annotations":{"x":"y"}},"data":{"k":"v","gone":"1"}}`,
			`{"metadata":{"labels":{"l":"v"},"annotations":{"n":"m"}},"data":{"k":"v2","gone":null}}`,
			`{"data":{"k":"v2"},"metadata":{"annotations":{"n":"m","x":"y"},"labels":{"a":"1","l":"v"}}}`},
		{"null removes key", `{"metadata":{"labels":{"a":"1","b":"2"}}}`, `{"metadata":{"labels":{"a":null}}}`, `{"metadata":{"labels":{"b":"2"}}}`},
		{"null on absent key", `{"spec":{}}`, `{"spec":{"x":null}}`, `{"spec":{}}`},
		{"array replaces", `{"spec":{"list":[1,2,3]}}`, `{"spec":{"list":[4]}}`, `{"spec":{"list":[4]}}`},
		{"array of objects replaces", `{"spec":{"list":[{"a":1,"b":2}]}}`, `{"spec":{"list":[{"a":3}]}}`, `{"spec":{"list":[{"a":3}]}}`},
		{"object replaces scalar", `{"spec":"x"}`, `{"spec":{"a":{"b":null,"c":1}}}`, `{"spec":{"a":{"c":1}}}`},
		{"scalar replaces object", `{"spec":{"a":1}}`, `{"spec":2}`, `{"spec":2}`},
		{"hpa", `{"spec":{"minReplicas":1,"maxReplicas":3,"metrics":[]}}`, `{"spec":{"minReplicas":2,"maxReplicas":10}}`, `{"spec":{"maxReplicas":10,"metrics":[],"minReplicas":2}}`},
		{"pdb", `{"spec":{"minAvailable":1}}`, `{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}`, `{"spec":{"minAvailable":1,"unhealthyPodEvictionPolicy":"AlwaysAllow"}}`},
		{"cluster autoscaler", `{"spec":{"scaleDown":{"enabled":true,"delayAfterAdd":"10m"}}}`, `{"spec":{"scaleDown":{"enabled":false}}}`, `{"spec":{"scaleDown":{"delayAfterAdd":"10m","enabled":false}}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := obj(t, c.target)
			res, err := Plan(target, js(t, c.patch), nil, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := canon(t, res.Object); got != canon(t, js(t, c.want)) {
				t.Fatalf("got %s, want %s", got, c.want)
			}
			if res.JSONPatch != nil {
				t.Errorf("JSONPatch = %s, want nil without operations", res.JSONPatch)
			}
			lib, err := applyWithLibrary(t, target, res)
			if err != nil || lib != canon(t, res.Object) {
				t.Errorf("evanphx merge gives %s (%v), Plan gives %s", lib, err, canon(t, res.Object))
			}
		})
	}
}

func TestPlanAlreadyMatching(t *testing.T) {
	// int64 in the target (as Kubernetes decodes it) and float64 in the patch
	// (as encoding/json decodes it) compare equal.
	target := map[string]any{"spec": map[string]any{"minReplicas": int64(2), "maxReplicas": int64(10)}}
	res, err := Plan(target, js(t, `{"spec":{"minReplicas":2,"maxReplicas":10.0}}`), nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed || res.MergePatch != nil || res.JSONPatch != nil {
		t.Fatalf("already-matching target: Changed=%v MergePatch=%s JSONPatch=%s", res.Changed, res.MergePatch, res.JSONPatch)
	}
	ok, err := Satisfied(target, js(t, `{"spec":{"minReplicas":2}}`), nil)
	if err != nil || !ok {
		t.Fatalf("Satisfied = %v, %v", ok, err)
	}
	ok, err = Satisfied(target, js(t, `{"spec":{"minReplicas":3}}`), nil)
	if err != nil || ok {
		t.Fatalf("Satisfied with a different value = %v, %v", ok, err)
	}
}

func TestPlanMergeNoopOpsChange(t *testing.T) {
	target := obj(t, deployment)
	o := ops(t, `[{"op":"replace","path":"/spec/template/spec/containers/@/image","selector":"item.name == \"sidecar\"","value":"alpine"}]`)
	res, err := Plan(target, js(t, `{"metadata":{"labels":{"app":"application"}}}`), o, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.MergePatch != nil {
		t.Errorf("MergePatch = %s, want nil (it changes nothing)", res.MergePatch)
	}
	if want := `[{"op":"test","path":"/spec/template/spec/containers/0/name","value":"sidecar"},{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"alpine"}]`; string(res.JSONPatch) != want {
		t.Errorf("JSONPatch = %s, want %s", res.JSONPatch, want)
	}
}

func TestPlanOperations(t *testing.T) {
	const pool = `{"spec":{"template":{"spec":{"requirements":[
	  {"key":"node.kubernetes.io/instance-type","operator":"In","values":["m5.large"]},
	  {"key":"karpenter.sh/capacity-type","operator":"In","values":["spot"]},
	  {"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}
	]}}}}`
	cases := []struct {
		name, target, patch, ops string
		want                     string // expected Object, when no error
		wantErr                  string
		wantJSONPatch            string // checked when set
	}{
		{name: "replace selected element's field",
			target: pool,
			ops:    `[{"op":"replace","path":"/spec/template/spec/requirements/@/values","selector":"item.key == \"karpenter.sh/capacity-type\"","value":["on-demand"]}]`,
			want: `{"spec":{"template":{"spec":{"requirements":[
			  {"key":"node.kubernetes.io/instance-type","operator":"In","values":["m5.large"]},
			  {"key":"karpenter.sh/capacity-type","operator":"In","values":["on-demand"]},
			  {"key":"kubernetes.io/arch","operator":"In","values":["amd64"]}]}}}}`,
			wantJSONPatch: `[{"op":"test","path":"/spec/template/spec/requirements/1/key","value":"karpenter.sh/capacity-type"},{"op":"replace","path":"/spec/template/spec/requirements/1/values","value":["on-demand"]}]`},
		{name: "replace the element itself",
			target:        `{"a":[{"n":"x","v":1},{"n":"y","v":2}]}`,
			ops:           `[{"op":"replace","path":"/a/@","selector":"item.n == \"y\"","value":{"n":"y","w":3}}]`,
			want:          `{"a":[{"n":"x","v":1},{"n":"y","w":3}]}`,
			wantJSONPatch: `[{"op":"test","path":"/a/1/n","value":"y"},{"op":"replace","path":"/a/1","value":{"n":"y","w":3}}]`},
		{name: "replace descendant through a nested array index",
			target: `{"a":[{"n":"x","ports":[{"p":80},{"p":81}]}]}`,
			ops:    `[{"op":"replace","path":"/a/@/ports/1/p","selector":"item.n == \"x\"","value":8081}]`,
			want:   `{"a":[{"n":"x","ports":[{"p":80},{"p":8081}]}]}`},
		{name: "replace missing descendant",
			target:  `{"a":[{"n":"x"}]}`,
			ops:     `[{"op":"replace","path":"/a/@/image","selector":"item.n == \"x\"","value":"v"}]`,
			wantErr: `jsonPatch[0].path: /a/0/image does not exist: replace requires an existing path below the selected element`},
		{name: "replace missing deep descendant",
			target:  `{"a":[{"n":"x"}]}`,
			ops:     `[{"op":"replace","path":"/a/@/resources/limits/cpu","selector":"item.n == \"x\"","value":"1"}]`,
			wantErr: `jsonPatch[0].path: /a/0/resources does not exist`},
		{name: "replace out of range index",
			target:  `{"a":[{"n":"x","l":[1]}]}`,
			ops:     `[{"op":"replace","path":"/a/@/l/1","selector":"item.n == \"x\"","value":2}]`,
			wantErr: `jsonPatch[0].path: /a/0/l/1 does not exist`},
		{name: "replace dash index",
			target:  `{"a":[{"n":"x","l":[1]}]}`,
			ops:     `[{"op":"replace","path":"/a/@/l/-","selector":"item.n == \"x\"","value":2}]`,
			wantErr: `/a/0/l/- does not exist`},
		{name: "add creates member",
			target: `{"a":[{"n":"x"}]}`,
			ops:    `[{"op":"add","path":"/a/@/m","selector":"item.n == \"x\"","value":{"k":1}}]`,
			want:   `{"a":[{"n":"x","m":{"k":1}}]}`},
		{name: "add replaces member",
			target:        `{"a":[{"n":"x","m":"old"}]}`,
			ops:           `[{"op":"add","path":"/a/@/m","selector":"item.n == \"x\"","value":"new"}]`,
			want:          `{"a":[{"n":"x","m":"new"}]}`,
			wantJSONPatch: `[{"op":"test","path":"/a/0/n","value":"x"},{"op":"add","path":"/a/0/m","value":"new"}]`},
		{name: "add to non-object element",
			target:  `{"a":["x","y"]}`,
			ops:     `[{"op":"add","path":"/a/@/m","selector":"item == \"x\"","value":1}]`,
			wantErr: `jsonPatch[0].path: add requires the selected element /a/0 to be an object, it is a string`},
		{name: "remove present member",
			target: `{"a":[{"n":"x","m":1},{"n":"y","m":2}]}`,
			ops:    `[{"op":"remove","path":"/a/@/m","selector":"item.n == \"y\""}]`,
			want:   `{"a":[{"n":"x","m":1},{"n":"y"}]}`},
		{name: "remove absent member is fine",
			target:        `{"a":[{"n":"x"}],"b":1}`,
			patch:         `{"b":2}`,
			ops:           `[{"op":"remove","path":"/a/@/m","selector":"item.n == \"x\""}]`,
			want:          `{"a":[{"n":"x"}],"b":2}`,
			wantJSONPatch: "null"},
		{name: "escaped member name",
			target:        `{"a":[{"n":"x"}]}`,
			ops:           `[{"op":"add","path":"/a/@/example.com~1key~0x","selector":"item.n == \"x\"","value":"v"}]`,
			want:          `{"a":[{"n":"x","example.com/key~x":"v"}]}`,
			wantJSONPatch: `[{"op":"test","path":"/a/0/n","value":"x"},{"op":"add","path":"/a/0/example.com~1key~0x","value":"v"}]`},
		{name: "prefix through an array index and an escaped key",
			target: `{"spec":{"a/b":[{"list":[{"n":"x"}]}]}}`,
			ops:    `[{"op":"add","path":"/spec/a~1b/0/list/@/m","selector":"item.n == \"x\"","value":1}]`,
			want:   `{"spec":{"a/b":[{"list":[{"n":"x","m":1}]}]}}`},
		{name: "All modifies every match, preserving the others and their order",
			target:        `{"a":[{"n":"x","t":"a"},{"n":"y","t":"b"},{"n":"z","t":"a"}]}`,
			ops:           `[{"op":"add","path":"/a/@/m","selector":"item.t == \"a\"","matchPolicy":"All","value":true}]`,
			want:          `{"a":[{"n":"x","t":"a","m":true},{"n":"y","t":"b"},{"n":"z","t":"a","m":true}]}`,
			wantJSONPatch: `[{"op":"test","path":"/a/0/t","value":"a"},{"op":"add","path":"/a/0/m","value":true},{"op":"test","path":"/a/2/t","value":"a"},{"op":"add","path":"/a/2/m","value":true}]`},
		{name: "All with a general selector pins whole elements",
			target:        `{"a":[{"n":"x","p":1},{"n":"y","p":5}]}`,
			ops:           `[{"op":"add","path":"/a/@/big","selector":"item.p > 2","matchPolicy":"All","value":true}]`,
			want:          `{"a":[{"n":"x","p":1},{"n":"y","p":5,"big":true}]}`,
			wantJSONPatch: `[{"op":"test","path":"/a/1","value":{"n":"y","p":5}},{"op":"add","path":"/a/1/big","value":true}]`},
		{name: "All with no match",
			target:  `{"a":[{"n":"x"}]}`,
			ops:     `[{"op":"add","path":"/a/@/m","selector":"item.n == \"q\"","matchPolicy":"All","value":1}]`,
			wantErr: `jsonPatch[0].selector: matchPolicy All requires at least one matching element of /a: none of 1 elements match`},
		{name: "ExactlyOne with no match",
			target:  `{"a":[{"n":"x"},{"n":"y"}]}`,
			ops:     `[{"op":"add","path":"/a/@/m","selector":"item.n == \"q\"","value":1}]`,
			wantErr: `jsonPatch[0].selector: matchPolicy ExactlyOne requires exactly one matching element of /a: 0 of 2 elements match`},
		{name: "ExactlyOne with two matches",
			target:  `{"a":[{"n":"x"},{"n":"y"},{"n":"x"}]}`,
			ops:     `[{"op":"add","path":"/a/@/m","selector":"item.n == \"x\"","matchPolicy":"ExactlyOne","value":1}]`,
			wantErr: `jsonPatch[0].selector: matchPolicy ExactlyOne requires exactly one matching element of /a: 2 of 3 elements match (indices 0, 2)`},
		{name: "empty array",
			target:  `{"a":[]}`,
			ops:     `[{"op":"add","path":"/a/@/m","selector":"true","matchPolicy":"All","value":1}]`,
			wantErr: `none of 0 elements match`},
		{name: "prefix missing",
			target:  `{"spec":{}}`,
			ops:     `[{"op":"add","path":"/spec/template/spec/containers/@/m","selector":"true","value":1}]`,
			wantErr: `jsonPatch[0].path: the array /spec/template/spec/containers does not exist (/spec/template is missing)`},
		{name: "prefix not an array",
			target:  `{"spec":{"containers":{"app":{}}}}`,
			ops:     `[{"op":"add","path":"/spec/containers/@/m","selector":"true","value":1}]`,
			wantErr: `jsonPatch[0].path: /spec/containers is an object, not an array`},
		{name: "merge patch applies before operations",
			target: `{"spec":{"containers":[{"name":"old"}]}}`,
			patch:  `{"spec":{"containers":[{"name":"app"},{"name":"sidecar"}]}}`,
			ops:    `[{"op":"add","path":"/spec/containers/@/workingDir","selector":"item.name == \"app\"","value":"/work"}]`,
			want:   `{"spec":{"containers":[{"name":"app","workingDir":"/work"},{"name":"sidecar"}]}}`},
		{name: "operations run in declaration order",
			target: `{"a":[{"n":"x","v":0}]}`,
			ops: `[{"op":"replace","path":"/a/@/v","selector":"item.n == \"x\"","value":1},
			       {"op":"replace","path":"/a/@/v","selector":"item.v == 1","value":2}]`,
			wantErr: `jsonPatch[1].selector: no longer selects /a/0 after it ran`},
		{name: "later operation sees earlier result",
			target: `{"a":[{"n":"x","v":0}]}`,
			ops: `[{"op":"add","path":"/a/@/ready","selector":"item.n == \"x\"","value":true},
			       {"op":"replace","path":"/a/@/v","selector":"has(item.ready) && item.ready","value":2}]`,
			want: `{"a":[{"n":"x","v":2,"ready":true}]}`},
		{name: "selector stays true: later op renames the selected element",
			target: `{"spec":{"containers":[{"name":"app","image":"a"}]}}`,
			ops: `[{"op":"replace","path":"/spec/containers/@/image","selector":"item.name == \"app\"","value":"b"},
			       {"op":"replace","path":"/spec/containers/@/name","selector":"item.image == \"b\"","value":"renamed"}]`,
			wantErr: `jsonPatch[0].selector: no longer selects /spec/containers/0 after jsonPatch[1] ran; selectors must remain true after every operation`},
		{name: "selector stays true: op breaks its own selector",
			target:  `{"spec":{"containers":[{"name":"app"}]}}`,
			ops:     `[{"op":"replace","path":"/spec/containers/@/name","selector":"item.name == \"app\"","value":"web"}]`,
			wantErr: `jsonPatch[0].selector: no longer selects /spec/containers/0 after it ran; selectors must remain true`},
		{name: "selector stays true: removing the selected field",
			target: `{"a":[{"n":"x","m":1}]}`,
			ops: `[{"op":"add","path":"/a/@/k","selector":"item.m == 1","value":1},
			       {"op":"remove","path":"/a/@/m","selector":"item.n == \"x\""}]`,
			wantErr: `jsonPatch[0].selector: after jsonPatch[1] ran, evaluating against the selected element /a/0 failed`},
		{name: "selector stays true: replacing the array that holds the selected element",
			target: `{"o":[{"id":"p","inner":[{"k":"a"},{"k":"b"}]}]}`,
			ops: `[{"op":"add","path":"/o/0/inner/@/v","selector":"item.k == \"b\"","value":1},
			       {"op":"replace","path":"/o/@/inner","selector":"item.id == \"p\"","value":[{"k":"a"}]}]`,
			wantErr: `jsonPatch[0].selector: after jsonPatch[1] ran, the selected element /o/0/inner/1 no longer exists`},
		{name: "not idempotent: a later op makes an All selector match more",
			target: `{"arr":[{"n":"a","v":1},{"n":"b","v":3}]}`,
			ops: `[{"op":"add","path":"/arr/@/w","selector":"item.v == 1","matchPolicy":"All","value":"x"},
			       {"op":"replace","path":"/arr/@/v","selector":"item.n == \"b\"","value":1}]`,
			wantErr: `jsonPatch: the plan is not idempotent: replaying it on its own result changes /arr/1/w`},
		{name: "does not replay: a later op makes an ExactlyOne selector ambiguous",
			target: `{"arr":[{"n":"a","v":1},{"n":"b","v":3}]}`,
			ops: `[{"op":"add","path":"/arr/@/w","selector":"item.v == 1","value":"x"},
			       {"op":"replace","path":"/arr/@/v","selector":"item.n == \"b\"","value":1}]`,
			wantErr: `jsonPatch[0].selector: the plan does not replay on its own result: matchPolicy ExactlyOne requires exactly one matching element of /arr: 2 of 2 elements match`},
		{name: "selector error on an element",
			target:  `{"a":[{"n":"x"},{"other":1}]}`,
			ops:     `[{"op":"add","path":"/a/@/m","selector":"item.n == \"x\"","value":1}]`,
			wantErr: `jsonPatch[0].selector: evaluating against /a/1: no such key: n`},
		{name: "selector guarded with has",
			target: `{"a":[{"n":"x"},{"other":1}]}`,
			ops:    `[{"op":"add","path":"/a/@/m","selector":"has(item.n) && item.n == \"x\"","value":1}]`,
			want:   `{"a":[{"n":"x","m":1},{"other":1}]}`},
		{name: "dyn selector not bool at runtime",
			target:  `{"a":[{"n":"x"}]}`,
			ops:     `[{"op":"add","path":"/a/@/m","selector":"item.n","value":1}]`,
			wantErr: `jsonPatch[0].selector: evaluating against /a/0: evaluated to string, not bool`},
		{name: "numeric selector on int and double values",
			target: `{"a":[{"port":80},{"port":443.0},{"port":8080.5}]}`,
			ops:    `[{"op":"add","path":"/a/@/tls","selector":"item.port == 443 || item.port > 8000.0","matchPolicy":"All","value":true}]`,
			want:   `{"a":[{"port":80},{"port":443,"tls":true},{"port":8080.5,"tls":true}]}`},
		{name: "invalid patch is reported before planning",
			target:  `{}`,
			patch:   `{"metadata":"x"}`,
			wantErr: `patch.metadata: must be an object, not a string`},
		{name: "neither patch nor operations",
			target:  `{}`,
			wantErr: `spec: at least one of patch or jsonPatch is required`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			target := obj(t, c.target)
			before := canon(t, target)
			var patch any
			if c.patch != "" {
				patch = js(t, c.patch)
			}
			var o []Op
			if c.ops != "" {
				o = ops(t, c.ops)
			}
			res, err := Plan(target, patch, o, Options{})
			if canon(t, target) != before {
				t.Fatal("Plan modified its input")
			}
			if c.wantErr != "" {
				if err == nil {
					t.Fatalf("no error, want %q; object %s", c.wantErr, canon(t, res.Object))
				}
				if !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error\n %q\ndoes not contain\n %q", err, c.wantErr)
				}
				var e *Error
				if !errors.As(err, &e) {
					t.Fatalf("error is %T, want *Error", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, want := canon(t, res.Object), canon(t, js(t, c.want)); got != want {
				t.Fatalf("Object\n got %s\nwant %s", got, want)
			}
			if c.wantJSONPatch != "" {
				got := string(res.JSONPatch)
				if res.JSONPatch == nil {
					got = "null"
				}
				if got != c.wantJSONPatch {
					t.Errorf("JSONPatch\n got %s\nwant %s", got, c.wantJSONPatch)
				}
			}
			if res.Changed != (canon(t, res.Object) != before) {
				t.Errorf("Changed = %v", res.Changed)
			}
			lib, err := applyWithLibrary(t, target, res)
			if err != nil {
				t.Fatalf("requests do not apply: %v\nmerge %s\njson %s", err, res.MergePatch, res.JSONPatch)
			}
			if lib != canon(t, res.Object) {
				t.Errorf("requests applied by evanphx/json-patch give\n %s\nPlan says\n %s", lib, canon(t, res.Object))
			}
			if ok, err := Satisfied(res.Object, patch, o); err != nil || !ok {
				t.Errorf("Satisfied(Object) = %v, %v", ok, err)
			}
		})
	}
}

func TestPlanCostLimit(t *testing.T) {
	list := make([]any, 200)
	for i := range list {
		list[i] = int64(i)
	}
	target := map[string]any{"a": []any{map[string]any{"n": "x", "l": list}}}
	o := []Op{{Op: "add", Path: "/a/@/m", Selector: `item.l.all(x, item.l.exists(y, y == x))`, Value: 1, HasValue: true}}
	_, err := Plan(target, nil, o, Options{CostLimit: 1000})
	if err == nil || !strings.Contains(err.Error(), "jsonPatch[0].selector: evaluating against /a/0:") || !strings.Contains(err.Error(), "cost limit exceeded") {
		t.Fatalf("error = %v, want a cost limit error", err)
	}
	// A cheap selector stays within a small limit, and the expensive one
	// within the default.
	if _, err := Plan(target, nil, []Op{{Op: "add", Path: "/a/@/m", Selector: `item.n == "x"`, Value: 1, HasValue: true}}, Options{CostLimit: 1000}); err != nil {
		t.Fatal(err)
	}
	if _, err := Plan(target, nil, o, Options{}); err != nil {
		t.Fatalf("default cost limit: %v", err)
	}
}

func TestPlanDeterministic(t *testing.T) {
	target := obj(t, deployment)
	labels := map[string]any{}
	for _, k := range strings.Fields("z y x w v u t s r q p o n m l k j i h g f e d c b a") {
		labels[k] = k
	}
	patch := map[string]any{"metadata": map[string]any{"labels": labels, "annotations": map[string]any{"b": "1", "a": "2"}}}
	o := ops(t, `[{"op":"add","path":"/spec/template/spec/containers/@/env","selector":"item.image != \"\"","matchPolicy":"All","value":[{"name":"B","value":"2"},{"value":"1","name":"A"}]}]`)
	first, err := Plan(target, patch, o, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for range 50 {
		res, err := Plan(target, patch, o, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if string(res.MergePatch) != string(first.MergePatch) || string(res.JSONPatch) != string(first.JSONPatch) {
			t.Fatalf("output differs between runs:\n%s\n%s\n%s\n%s", first.MergePatch, res.MergePatch, first.JSONPatch, res.JSONPatch)
		}
	}
	if !strings.HasPrefix(string(first.MergePatch), `{"metadata":{"annotations":{"a":"2","b":"1"},"labels":{"a":"a","b":"b"`) {
		t.Errorf("MergePatch keys not sorted: %s", first.MergePatch)
	}
}

func TestPlanTypedValues(t *testing.T) {
	// Go callers may pass typed values; they are converted through JSON.
	target := map[string]any{"spec": map[string]any{"replicas": 1, "containers": []any{map[string]any{"name": "app"}}}}
	o := []Op{{Op: "add", Path: "/spec/containers/@/args", Selector: `item.name == "app"`, Value: []string{"--a"}, HasValue: true}}
	res, err := Plan(target, map[string]any{"spec": map[string]any{"replicas": int32(3), "labels": map[string]string{"a": "b"}}}, o, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := canon(t, res.Object), `{"spec":{"containers":[{"args":["--a"],"name":"app"}],"labels":{"a":"b"},"replicas":3}}`; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
	if _, err := Plan(target, map[string]any{"x": make(chan int)}, nil, Options{}); err == nil {
		t.Fatal("a non-JSON value must be rejected")
	}
}
