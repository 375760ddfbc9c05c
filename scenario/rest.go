package scenario

import (
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Skipping rests. An object resting in a state is rechecked every
// requeue interval; most rechecks read the same, decide the same and write
// nothing. When the engine certifies a rest (engine.Certify), the runner
// notes what the decision read, and skips the rechecks that follow while
// nothing it read has changed and no time gate of the decision has moved.
// The simulator reports each change as it makes it (sim.OnChange), and the
// runner marks dirty the rests that read what changed, so a skipped recheck
// costs a look at one flag. A skipped recheck produces no trace line (a
// rest never does); the only difference is the reads it does not make.

// changeWatcher is a cluster that reports its changes as it makes them
// (the simulator).
type changeWatcher interface {
	OnChange(func(sim.Change))
	DiscoveryChanges() uint64
}

// resting is an object's certified rest, kept in the object's own record
// (driven), which a skipped recheck reads and nothing else: it turns dirty
// when anything the decision read changes (the object itself, an object it
// got, or an object of a list it read, outside status for a status-blind
// list).
type resting struct {
	on        bool   // the object rests with a certificate
	dirty     bool   // something it read changed since
	id        uint64 // which certification: the watches name it
	until     int64  // Unix nanoseconds the rest holds until; 0: for ever
	every     time.Duration
	jitter    time.Duration
	jitterKey string
	discovery uint64
}

// next is when a recheck at at, resting again, asks to be stepped.
func (rs *resting) next(at time.Time) time.Time {
	return engine.Rest{Every: rs.every, Jitter: rs.jitter, JitterKey: rs.jitterKey}.Next(at)
}

type listKey struct{ apiVersion, kind, namespace string }

// listWatch is a resting object that read a list.
type listWatch struct {
	id    uint64
	blind bool // only changes outside status count
}

// watches are the certified reads of resting objects, by what they read,
// naming each object's certification. Each set holds at most one entry
// per object (its latest rest); an entry of a rest since given up is
// harmless (its certification is no longer the object's) and goes with
// the next change it concerns.
type watches struct {
	gets  map[adapters.Ref]map[*driven]uint64
	lists map[listKey]map[*driven]listWatch
	seq   uint64 // certifications so far
}

// rest records d's certified rest c and watches what it read.
func (r *runner) rest(d *driven, c engine.Rest) {
	r.watches.seq++
	id := r.watches.seq
	d.rest = resting{on: true, id: id, every: c.Every, jitter: c.Jitter, jitterKey: c.JitterKey,
		discovery: r.changes.DiscoveryChanges()}
	if !c.Until.IsZero() {
		d.rest.until = c.Until.UnixNano()
	}
	r.watchGet(d.ref, d, id)
	for _, rd := range c.Reads {
		switch {
		case rd.Skip || rd.Err != nil:
			// Nothing was read: the same inputs skip it again.
		case rd.List:
			k := listKey{rd.Ref.APIVersion, rd.Ref.Kind, rd.Ref.Namespace}
			set := r.watches.lists[k]
			if set == nil {
				set = map[*driven]listWatch{}
				r.watches.lists[k] = set
			}
			set[d] = listWatch{id: id, blind: rd.StatusBlind}
		default:
			r.watchGet(rd.Ref, d, id)
		}
	}
}

func (r *runner) watchGet(ref adapters.Ref, d *driven, id uint64) {
	set := r.watches.gets[ref]
	if set == nil {
		set = map[*driven]uint64{}
		r.watches.gets[ref] = set
	}
	set[d] = id
}

// dirty marks d's rest dirty if it is still the certification id.
func dirty(d *driven, id uint64) {
	if d.rest.on && d.rest.id == id {
		d.rest.dirty = true
	}
}

// changed marks dirty the rests that read what ch changed. A list of every
// namespace is watched under the namespace "".
func (r *runner) changed(ch sim.Change) {
	for d, id := range r.watches.gets[ch.Ref] {
		dirty(d, id)
	}
	delete(r.watches.gets, ch.Ref)
	for _, ns := range [2]string{ch.Ref.Namespace, ""} {
		k := listKey{ch.Ref.APIVersion, ch.Ref.Kind, ns}
		set := r.watches.lists[k]
		for d, w := range set {
			if !ch.StatusOnly || !w.blind {
				dirty(d, w.id)
				delete(set, d)
			}
		}
		if ch.Ref.Namespace == "" {
			break
		}
	}
}

// stillResting reports whether a recheck of d now would read what its
// certified rest read, at a time the rest still holds.
func (r *runner) stillResting(d *driven) bool {
	rs := &d.rest
	if !rs.on || rs.dirty {
		return false
	}
	if rs.until != 0 && r.clock.Now().UnixNano() >= rs.until {
		return false
	}
	return r.changes.DiscoveryChanges() == rs.discovery
}

// forgetRests makes every object step at its next wake-up.
func (r *runner) forgetRests() {
	for _, d := range r.objs {
		d.rest = resting{}
	}
}

// stagesFaults reports whether the scenario injects API faults, which
// count calls and draw from the seeded random source per call: skipping
// reads would move them.
func (s *Scenario) stagesFaults() bool {
	if s.Staging != nil && len(s.Staging.Faults) > 0 {
		return true
	}
	for _, e := range s.Events {
		if e.Staging != nil && len(e.Staging.Faults) > 0 {
			return true
		}
	}
	return false
}

// countsReads reports whether an expectation counts reads.
func (s *Scenario) countsReads() bool {
	for _, e := range s.Expects {
		for _, w := range e.Writes {
			if w.Reads {
				return true
			}
		}
	}
	return false
}

// sawNow reports whether the certified rest of a reconcile saw the cluster
// as it now is. A reconcile that only rested wrote nothing: it did. One
// that fired or wrote status made its last step before writing the
// object's status: that step saw the new status but read everything else
// before the write. The rest stands when the stored object is what the
// step saw (resourceVersion aside, which the machine must not read) and no
// read the step made could have seen the object's old status: neither a
// get of the object nor a list of its kind that reads status.
func (r *runner) sawNow(m *fsm.Machine, ref adapters.Ref, rep engine.Report, c engine.Rest) bool {
	if len(rep.Transitions) == 0 && !rep.StatusWritten {
		return true
	}
	if prof := m.Rest(rep.Rest.From); prof == nil || prof.ReadsVersion {
		return false
	}
	for _, rd := range c.Reads {
		switch {
		case rd.Skip || rd.Err != nil:
		case rd.List:
			if !rd.StatusBlind && rd.Ref.APIVersion == ref.APIVersion && rd.Ref.Kind == ref.Kind &&
				(rd.Ref.Namespace == "" || rd.Ref.Namespace == ref.Namespace) {
				return false
			}
		case rd.Ref == ref:
			return false
		}
	}
	stored, ok := r.peek(ref)
	if !ok {
		return false
	}
	return jsonvalue.Equal(withoutVersion(stored), withoutVersion(rep.RestSnapshot.Object))
}

// withoutVersion returns obj with its metadata.resourceVersion left out
// (a shallow copy: obj is not changed).
func withoutVersion(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	m := make(map[string]any, len(md))
	for k, v := range md {
		if k != "resourceVersion" {
			m[k] = v
		}
	}
	c["metadata"] = m
	return c
}
