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

// queue is the runner's agenda: items by time, then kind (the cluster's
// controllers, world events, reconciles, expectations), then the order
// they were queued in. The items of one time and kind wait in a bucket, in
// the order they came: push takes items in increasing seq (runner.push
// numbers them so), so a bucket is in queued order by construction, and
// only the buckets are ordered, by a min-heap. A week of rechecks queues
// tens of millions of items at a few thousand times (the objects resting
// together wake together), so most pushes and pops touch a bucket's end
// alone, reading and writing items one after another.
type queue struct {
	heap    []*bucket // by (when, kind)
	buckets map[slot]*bucket
	last    *bucket   // the bucket pushed to last: the next push is most often to it too
	spare   []*bucket // emptied buckets, kept for their arrays
	n       int
}

// slot is the (time, kind) of a bucket.
type slot struct {
	when int64
	kind itemKind
}

type bucket struct {
	slot
	items []item
	head  int // items[head:] wait
}

func (a *bucket) before(b *bucket) bool {
	if a.when != b.when {
		return a.when < b.when
	}
	return a.kind < b.kind
}

// maxSpare bounds the emptied buckets kept for reuse.
const maxSpare = 8

func (q *queue) len() int { return q.n }

// push queues it, whose seq must exceed that of every item pushed before.
func (q *queue) push(it item) {
	k := slot{it.when, it.kind}
	b := q.last
	if b == nil || b.slot != k {
		b = q.buckets[k]
		if b == nil {
			b = q.open(k)
		}
		q.last = b
	}
	b.items = append(b.items, it)
	q.n++
}

// open makes the bucket of k and heaps it.
func (q *queue) open(k slot) *bucket {
	var b *bucket
	if n := len(q.spare); n > 0 {
		b, q.spare = q.spare[n-1], q.spare[:n-1]
		b.slot = k
	} else {
		b = &bucket{slot: k}
	}
	if q.buckets == nil {
		q.buckets = map[slot]*bucket{}
	}
	q.buckets[k] = b
	q.heap = append(q.heap, b)
	h := q.heap
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].before(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	return b
}

// pop takes the least item; the queue must not be empty.
func (q *queue) pop() item {
	b := q.heap[0]
	it := b.items[b.head]
	b.items[b.head] = item{} // what it points to may be collected
	b.head++
	q.n--
	if b.head == len(b.items) {
		q.close(b)
	}
	return it
}

// close takes the emptied bucket b, the heap's least, out of the queue.
func (q *queue) close(b *bucket) {
	delete(q.buckets, b.slot)
	if q.last == b {
		q.last = nil
	}
	h := q.heap
	n := len(h) - 1
	h[0] = h[n]
	h[n] = nil
	h = h[:n]
	for i := 0; ; {
		m := 2*i + 1
		if m >= n {
			break
		}
		if c := m + 1; c < n && h[c].before(h[m]) {
			m = c
		}
		if !h[m].before(h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	q.heap = h
	if len(q.spare) < maxSpare {
		b.items, b.head = b.items[:0], 0
		q.spare = append(q.spare, b)
	}
}

// each calls f with every item queued, in no particular order.
func (q *queue) each(f func(item)) {
	for _, b := range q.heap {
		for _, it := range b.items[b.head:] {
			f(it)
		}
	}
}
