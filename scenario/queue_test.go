package scenario

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The agenda pops, from what it holds, the least item by (time, kind,
// queued order), whatever order items were pushed in between pops.
func TestQueueOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var q queue
	pushed, popped := 0, 0
	before := func(a, b item) bool {
		if a.when != b.when {
			return a.when < b.when
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.seq < b.seq
	}
	pop := func() {
		t.Helper()
		it := q.pop()
		popped++
		q.each(func(p item) {
			if before(p, it) {
				t.Fatalf("popped %+v while %+v was queued", it, p)
			}
		})
	}
	for range 2000 {
		for range rng.IntN(4) {
			pushed++
			at := base.Add(time.Duration(rng.IntN(50)) * time.Minute)
			q.push(item{at: at, when: at.UnixNano(), kind: itemKind(rng.IntN(3)), seq: pushed})
		}
		if q.len() > 0 && rng.IntN(3) > 0 {
			pop()
		}
	}
	for q.len() > 0 {
		pop()
	}
	if popped != pushed {
		t.Fatalf("popped %d of %d", popped, pushed)
	}
}
