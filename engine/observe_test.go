package engine_test

import (
	"testing"

	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
)

// A reference of the object alone (fsm.Observe.SelfRef) is remembered on a
// frozen object per compiled machine: two machines of one name with other
// defaults each read their own, and the object's successor reads its own.
func TestReferenceRememberedOnFrozenObject(t *testing.T) {
	src := func(suffix string) string {
		return header + `
  param "suffix" {
    type    = string
    default = "` + suffix + `"
  }
  observe "target" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'name': self.spec.target + '-' + param.suffix}"
  }
  state "A" {
    initial = true
  }
}`
	}
	mem := fsm.NewMemory(jsonvalue.NewRegistry())
	a, b := compileIn(t, mem, src("a")), compileIn(t, mem, src("b"))
	if !a.Observes[0].SelfRef {
		t.Fatal("the reference reads only self and a param, yet SelfRef is not set")
	}
	frozen := mem.Frozen()
	x := frozen.Freeze(widget(map[string]any{"target": "x"}, nil))
	read := func(m *fsm.Machine, obj map[string]any) string {
		reads := engine.Reads(m, obj, t0)
		if len(reads) != 1 || reads[0].Err != nil {
			t.Fatalf("reads %+v", reads)
		}
		return reads[0].Ref.Name
	}
	for range 2 {
		if got := read(a, x); got != "x-a" {
			t.Errorf("machine a, object x: %q, want x-a", got)
		}
		if got := read(b, x); got != "x-b" {
			t.Errorf("machine b, object x: %q, want x-b", got)
		}
	}
	y := frozen.Refreeze(x, widget(map[string]any{"target": "y"}, nil))
	for _, obj := range []map[string]any{y, x} { // x is thawed now: computed again
		want := obj["spec"].(map[string]any)["target"].(string) + "-a"
		if got := read(a, obj); got != want {
			t.Errorf("machine a: %q, want %q", got, want)
		}
	}
}
