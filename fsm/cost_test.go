package fsm_test

import (
	"math"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// Every expression carries a static cost estimate. Sizes the types do not
// give are bounded as the API server bounds them (nothing in an object is
// larger than the largest request, 3 MiB): constant work and string
// comparisons stay within the runtime limit (not tracked at run time), a
// comprehension over a list of unknown length does not (tracked).
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
  transition "strings" {
    from = [A]
    when = "self.spec.a == self.metadata.name && self.kind != self.spec.b"
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
	if len(ps) != 3 {
		t.Fatalf("want 3 programs, got %d", len(ps))
	}
	if ps[0].Cost.Max == 0 || ps[0].Cost.Max == math.MaxUint64 {
		t.Errorf("cheap guard: cost %+v", ps[0].Cost)
	}
	if ps[1].Cost.Max <= fsm.DefaultCostLimit {
		t.Errorf("comprehension over unknown input: cost %+v, want above the runtime limit %d", ps[1].Cost, fsm.DefaultCostLimit)
	}
	if ps[2].Cost.Max == 0 || ps[2].Cost.Max > fsm.DefaultCostLimit {
		t.Errorf("string comparisons: cost %+v, want within the runtime limit %d", ps[2].Cost, fsm.DefaultCostLimit)
	}
}
