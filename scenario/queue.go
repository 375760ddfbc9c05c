package scenario

import (
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
)

type itemKind int

const (
	// itemControllers first: the simulator's controllers act on what was
	// due before anything else happens at their time, as a request
	// served then would let them.
	itemControllers itemKind = iota
	itemEvent
	itemReconcile
	itemExpect
)

type item struct {
	at    time.Time
	when  int64 // at in Unix nanoseconds, for ordering
	kind  itemKind
	seq   int
	event *Event
	exp   *Expect
	obj   *driven // for itemReconcile
	gen   int     // obj's wake-up generation when queued
}

// driven is what the runner keeps of one object a machine drives.
type driven struct {
	ref     adapters.Ref
	machine *fsm.Machine
	// gen counts the object's wake-ups: a queued reconcile of an older
	// generation was superseded by a later decision.
	gen int
	// rest is the object's certified rest while it rests (see rest.go).
	rest resting
}

// queue is the runner's agenda: a 4-ary min-heap of items by time, then
// kind (the cluster's controllers, world events, reconciles, expectations), then the order
// they were queued in. Items are held by value, and four children share a
// cache line or two: a week of rechecks queues tens of millions of them.
type queue []item

func (q queue) less(i, j int) bool {
	a, b := &q[i], &q[j]
	if a.when != b.when {
		return a.when < b.when
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 4
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = item{}
	h = h[:n]
	for i := 0; ; {
		first := 4*i + 1
		if first >= n {
			break
		}
		m := first
		for c := first + 1; c < first+4 && c < n; c++ {
			if h.less(c, m) {
				m = c
			}
		}
		if !h.less(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
}
