package objpatch_test

import (
	"encoding/json"
	"fmt"

	"github.com/statecraft/statecraft/library/objpatch"
)

func ExamplePlan() {
	var target map[string]any
	_ = json.Unmarshal([]byte(`{"spec":{"containers":[
		{"name":"sidecar","image":"busybox"},
		{"name":"app","image":"nginx","args":["--old"],"stdin":true}]}}`), &target)
	var rawOps any
	_ = json.Unmarshal([]byte(`[
		{"op":"replace","path":"/spec/containers/@/args","selector":"item.name == \"app\"","value":["--serve"]},
		{"op":"add","path":"/spec/containers/@/workingDir","selector":"item.name == \"app\"","value":"/work"},
		{"op":"remove","path":"/spec/containers/@/stdin","selector":"item.name == \"app\""}]`), &rawOps)
	ops, err := objpatch.ParseOps(rawOps)
	if err != nil {
		fmt.Println(err)
		return
	}
	patch := map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "kubex"}}}
	res, err := objpatch.Plan(target, patch, ops, objpatch.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	out, _ := json.Marshal(res.Object)
	fmt.Println(string(out))
	fmt.Println(string(res.MergePatch))
	fmt.Println(string(res.JSONPatch))
	for _, c := range objpatch.Claims(patch, ops) {
		fmt.Println(c)
	}
	// Output:
	// {"metadata":{"labels":{"managed-by":"kubex"}},"spec":{"containers":[{"image":"busybox","name":"sidecar"},{"args":["--serve"],"image":"nginx","name":"app","workingDir":"/work"}]}}
	// {"metadata":{"labels":{"managed-by":"kubex"}}}
	// [{"op":"test","path":"/spec/containers/1/name","value":"app"},{"op":"replace","path":"/spec/containers/1/args","value":["--serve"]},{"op":"test","path":"/spec/containers/1/name","value":"app"},{"op":"add","path":"/spec/containers/1/workingDir","value":"/work"},{"op":"test","path":"/spec/containers/1/name","value":"app"},{"op":"remove","path":"/spec/containers/1/stdin"}]
	// /metadata/labels/managed-by
	// /spec/containers[name=app]
}

func ExampleValidate() {
	err := objpatch.Validate(nil, false, []objpatch.Op{{Op: "replace", Path: "/spec/containers/image", Selector: "true", Value: "x", HasValue: true}})
	fmt.Println(err)
	// Output:
	// jsonPatch[0].path: must contain exactly one "@" segment
}
