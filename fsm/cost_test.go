package fsm_test

import (
	"math"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// Every expression carries a static cost estimate: constant work is
// bounded, a comprehension over an input of unknown size is not.
func TestCostEstimates(t *testing.T) {
	f, diags := rules.Parse([]byte(`
machine "m" {
  resource "example.com/v1" "W" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "cheap" {
    from = [A]
    when = "self.spec.n > 1"
    to   = A
  }
  transition "costly" {
    from = [A]
    when = "self.spec.items.all(i, i.ready)"
    to   = A
  }
}`), "c.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ps := ms[0].Programs()
	if len(ps) != 2 {
		t.Fatalf("want 2 programs, got %d", len(ps))
	}
	if ps[0].Cost.Max == 0 || ps[0].Cost.Max == math.MaxUint64 {
		t.Errorf("cheap guard: cost %+v", ps[0].Cost)
	}
	if ps[1].Cost.Max != math.MaxUint64 {
		t.Errorf("comprehension over unknown input: cost %+v, want unbounded", ps[1].Cost)
	}
}
