package objpatch

import (
	"encoding/json"
	"errors"
	"testing"
)

const maxFuzzInput = 4096

func decodeOrNil(b []byte) (any, bool) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, false
	}
	return v, true
}

func FuzzValidate(f *testing.F) {
	f.Add([]byte(`{"metadata":{"labels":{"managed-by":"kubex"}}}`), []byte(seedOps))
	f.Add([]byte(`{}`), []byte(`[{"op":"add","path":"/a/@","selector":"item.x ==","value":null}]`))
	f.Add([]byte(`null`), []byte(`[{"op":"remove","path":"/a~2/@/b","selector":"\"k\" == item.key","value":1}]`))
	f.Fuzz(func(t *testing.T, patchJSON, opsJSON []byte) {
		if len(patchJSON)+len(opsJSON) > maxFuzzInput {
			return
		}
		patch, hasPatch := decodeOrNil(patchJSON)
		raw, _ := decodeOrNil(opsJSON)
		o, err := ParseOps(raw)
		var e *Error
		if err != nil {
			if !errors.As(err, &e) || err.Error() == "" {
				t.Fatalf("ParseOps error %T %q", err, err)
			}
			return
		}
		if err := Validate(patch, hasPatch, o); err != nil && (!errors.As(err, &e) || err.Error() == "") {
			t.Fatalf("Validate error %T %q", err, err)
		}
		cs := Claims(patch, o)
		for _, c := range cs {
			_ = c.String()
		}
		if len(cs) > 0 {
			if _, _, ok := Conflicts(cs, cs); !ok {
				t.Fatalf("claims %v do not conflict with themselves", cs)
			}
		}
	})
}

func FuzzPlan(f *testing.F) {
	f.Add([]byte(deployment), []byte(`{"metadata":{"labels":{"managed-by":"kubex"}}}`), []byte(seedOps))
	f.Add([]byte(`{"a":[{"n":"x","v":1},{"n":"y"}]}`), []byte(`null`), []byte(`[{"op":"replace","path":"/a/@","selector":"item.n == \"y\"","value":{"n":"y","w":[1,2]}}]`))
	f.Add([]byte(`{"arr":[{"n":"a","v":1},{"n":"b","v":3}]}`), []byte(`{"x":null}`), []byte(`[{"op":"add","path":"/arr/@/w","selector":"item.v == 1","matchPolicy":"All","value":"x"},{"op":"replace","path":"/arr/@/v","selector":"item.n == \"b\"","value":1}]`))
	f.Fuzz(func(t *testing.T, targetJSON, patchJSON, opsJSON []byte) {
		if len(targetJSON)+len(patchJSON)+len(opsJSON) > maxFuzzInput {
			return
		}
		tv, _ := decodeOrNil(targetJSON)
		target, ok := tv.(map[string]any)
		if !ok {
			return
		}
		patch, _ := decodeOrNil(patchJSON)
		raw, _ := decodeOrNil(opsJSON)
		o, err := ParseOps(raw)
		if err != nil {
			return
		}
		before := canon(t, target)
		res, err := Plan(target, patch, o, Options{CostLimit: 10_000})
		if canon(t, target) != before {
			t.Fatal("Plan modified its input")
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || err.Error() == "" {
				t.Fatalf("Plan error %T %q", err, err)
			}
			return
		}
		// A successful plan is satisfied by its own result.
		again, err := Plan(res.Object, patch, o, Options{CostLimit: 10_000})
		if err != nil {
			t.Fatalf("replanning the result failed: %v", err)
		}
		if again.Changed || again.MergePatch != nil || again.JSONPatch != nil {
			t.Fatalf("replanning the result changes it: %s %s", again.MergePatch, again.JSONPatch)
		}
		if res.Changed != (canon(t, res.Object) != before) {
			t.Fatalf("Changed = %v", res.Changed)
		}
		if !res.Changed && (res.MergePatch != nil || res.JSONPatch != nil) {
			t.Fatal("requests for an unchanged object")
		}
		for _, b := range [][]byte{res.MergePatch, res.JSONPatch} {
			if b != nil && !json.Valid(b) {
				t.Fatalf("invalid JSON %s", b)
			}
		}
	})
}
