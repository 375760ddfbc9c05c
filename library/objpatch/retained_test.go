package objpatch

import (
	"testing"

	"github.com/statecraft/statecraft/jsonvalue"
)

func canonMap(t *testing.T, v any) map[string]any {
	t.Helper()
	n, err := jsonvalue.Normalize(v)
	if err != nil {
		t.Fatal(err)
	}
	return n.(map[string]any)
}

// A patch is retained when the stored object holds it as the server
// renders it: defaults inside a list the patch set and in a map it added,
// canonical quantities; a changed value, a missing or extra list element, a
// field the patch removes and an operation that would still change
// something are not.
func TestRetained(t *testing.T) {
	stored := canonMap(t, map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"a": "1"}},
		"spec": map[string]any{
			"replicas": 2,
			"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{
				"name": "app", "image": "nginx:1.28", "imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log",
				"resources": map[string]any{"requests": map[string]any{"cpu": "500m"}},
			}}}},
			"behavior": map[string]any{"scaleDown": map[string]any{"stabilizationWindowSeconds": 300, "selectPolicy": "Max",
				"policies": []any{map[string]any{"type": "Percent", "value": 100, "periodSeconds": 15}}}},
		},
	})
	image := map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
		map[string]any{"name": "app", "image": "nginx:1.28"}}}}}}
	for _, c := range []struct {
		name  string
		patch any
		ops   []Op
		want  bool
	}{
		{"an image in a defaulted container", image, nil, true},
		{"another image", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx:1.29"}}}}}}, nil, false},
		{"a second container", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx:1.28"}, map[string]any{"name": "side", "image": "b"}}}}}}, nil, false},
		{"a quantity in another form", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx:1.28", "resources": map[string]any{"requests": map[string]any{"cpu": "0.5"}}}}}}}}, nil, true},
		{"a null in a list element", map[string]any{"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{
			map[string]any{"name": "app", "image": "nginx:1.28", "args": nil}}}}}}, nil, true},
		{"a map the server filled", map[string]any{"spec": map[string]any{"behavior": map[string]any{"scaleDown": map[string]any{"stabilizationWindowSeconds": 300}}}}, nil, true},
		{"a removed label still there", map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": nil}}}, nil, false},
		{"a removed label gone", map[string]any{"metadata": map[string]any{"labels": map[string]any{"b": nil}}}, nil, true},
		{"removed annotations, the map gone", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"x": nil}}}, nil, true},
		{"a removal below a missing map", map[string]any{"spec": map[string]any{"strategy": map[string]any{"rollingUpdate": map[string]any{"maxSurge": nil}}}}, nil, true},
		{"a removal and a value in a missing map", map[string]any{"metadata": map[string]any{"annotations": map[string]any{"x": nil, "y": "1"}}}, nil, false},
		{"an empty map where none is", map[string]any{"metadata": map[string]any{"annotations": map[string]any{}}}, nil, true},
		{"a scalar", map[string]any{"spec": map[string]any{"replicas": 3}}, nil, false},
		{"an operation that holds", nil, []Op{{Op: "replace", Path: "/spec/template/spec/containers/@/image", Selector: `item.name == "app"`, Value: "nginx:1.28", HasValue: true}}, true},
		{"an operation that does not", nil, []Op{{Op: "replace", Path: "/spec/template/spec/containers/@/image", Selector: `item.name == "app"`, Value: "nginx:1.30", HasValue: true}}, false},
	} {
		got, err := Retained(stored, c.patch, c.ops)
		if err != nil || got != c.want {
			t.Errorf("%s: Retained = %v, %v; want %v", c.name, got, err, c.want)
		}
	}
}
