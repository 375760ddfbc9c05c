package fsm_test

import (
	"fmt"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// An observation's reference is of the object alone (SelfRef) when it reads
// only self and params, directly or through lets; one that reads status,
// now, another observation or an element of for_each is not, and neither is
// one that reads params when a param's check reads more than the object.
func TestSelfRef(t *testing.T) {
	const machine = `
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  param "n" {
    default = 1
    %s
  }
  let "name" {
    value = "self.spec.target + string(param.n)"
  }
  let "later" {
    value = "now > timestamp('2026-01-01T00:00:00Z') ? 'a' : 'b'"
  }
  observe "own" {
    when = "status.?ready.orValue(false) == false"
    get  = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'name': name}"
  }
  observe "listed" {
    list = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace}"
  }
  observe "by_status" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': status.?name.orValue('x')}"
  }
  observe "by_time" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': later}"
  }
  observe "by_observation" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': own.exists ? 'a' : 'b'}"
  }
  observe "each" {
    for_each = "['a', 'b']"
    get      = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'name': item}"
  }
  state "A" {
    initial = true
  }
}`
	compile := func(t *testing.T, paramCheck string) *fsm.Machine {
		t.Helper()
		src := []byte(fmt.Sprintf(machine, paramCheck))
		f, diags := rules.Parse(src, "m.hcl")
		ms, more := fsm.Compile(f)
		if diags = append(diags, more...); diags.HasErrors() {
			t.Fatal(diags)
		}
		return ms[0]
	}
	selfRef := func(m *fsm.Machine) map[string]bool {
		out := map[string]bool{}
		for _, o := range m.Observes {
			out[o.Name] = o.SelfRef
		}
		return out
	}
	want := map[string]bool{"own": true, "listed": true, "by_status": false, "by_time": false, "by_observation": false, "each": false}
	for _, check := range []string{"", `valid = "value > 0 && self.spec.target != ''"`} {
		got := selfRef(compile(t, check))
		for name, w := range want {
			if got[name] != w {
				t.Errorf("param check %q: observation %q SelfRef = %v, want %v", check, name, got[name], w)
			}
		}
	}
	// A param whose check reads status makes params depend on more than
	// the object: a reference that reads params is not of the object
	// alone; one that reads none still is.
	want["own"] = false
	got := selfRef(compile(t, `valid = "value > 0 || status.?ready.orValue(false)"`))
	for name, w := range want {
		if got[name] != w {
			t.Errorf("param check reading status: observation %q SelfRef = %v, want %v", name, got[name], w)
		}
	}
}
