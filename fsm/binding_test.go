package fsm_test

import (
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// Every observation and let is bound by name to its index; self, status,
// now and params are not bindings.
func TestBindings(t *testing.T) {
	f, diags := rules.Parse([]byte(`
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  param "n" {
    default = 1
  }
  observe "a" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': 'a'}"
  }
  let "x" {
    value = "param.n + 1"
  }
  observe "b" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': x > 1 ? 'b' : 'c'}"
  }
  let "y" {
    value = "a.exists && b.exists"
  }
  state "A" {
    initial = true
  }
}`), "m.hcl")
	ms, more := fsm.Compile(f)
	if diags = append(diags, more...); diags.HasErrors() {
		t.Fatal(diags)
	}
	m := ms[0]
	for name, want := range map[string]fsm.Binding{"a": {Index: 0}, "b": {Index: 1}, "x": {Let: true, Index: 0}, "y": {Let: true, Index: 1}} {
		if got, ok := m.Binding(name); !ok || got != want {
			t.Errorf("Binding(%q) = %+v, %v; want %+v", name, got, ok, want)
		}
		if b, _ := m.Binding(name); b.Let && m.Lets[b.Index].Name != name || !b.Let && m.Observes[b.Index].Name != name {
			t.Errorf("Binding(%q) points at another declaration", name)
		}
	}
	for _, name := range []string{"self", "status", "now", "param.n", "n", "z"} {
		if b, ok := m.Binding(name); ok {
			t.Errorf("Binding(%q) = %+v, want none", name, b)
		}
	}
}
