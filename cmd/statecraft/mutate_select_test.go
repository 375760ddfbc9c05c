package main

import (
	"testing"

	"github.com/statecraft/statecraft/mutate"
)

// A declared equivalent mutant that --sample or --match leaves out is
// not run and not reported stale; one that names no mutant stays, to be
// reported stale by the run.
func TestDropUnselectedEquivalents(t *testing.T) {
	a, b := &mutate.Mutant{ID: "m a"}, &mutate.Mutant{ID: "m b"}
	equiv := map[string]string{"m a": "why", "m b": "why", "m gone": "why"}
	dropUnselected(equiv, []*mutate.Mutant{a, b}, []*mutate.Mutant{a})
	if _, ok := equiv["m b"]; ok {
		t.Error("an equivalent left out by the sample is still checked")
	}
	if _, ok := equiv["m a"]; !ok {
		t.Error("an equivalent in the sample was dropped")
	}
	if _, ok := equiv["m gone"]; !ok {
		t.Error("an equivalent that names no mutant was dropped: it would not be reported stale")
	}
}
