package scenario

import (
	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/jsonvalue"
)

// Skipping rests. An object resting in a state is rechecked every
// requeue interval; most rechecks read the same, decide the same and write
// nothing. When the engine certifies a rest (engine.Certify), the runner
// notes what the decision read and how far the cluster had come, and skips
// the rechecks that follow while nothing it read has changed and no time
// gate of the decision has moved. A skipped recheck produces no trace line
// (a rest never does); the only difference is the reads it does not make.

// changeCounter is a cluster that counts its changes (the simulator).
type changeCounter interface {
	Version(ref adapters.Ref) (resourceVersion string, exists bool)
	Changes(apiVersion, kind, namespace string) (all, outsideStatus uint64)
	DiscoveryChanges() uint64
}

// resting is a certified rest and the state of what it read.
type resting struct {
	cert      engine.Rest
	self      string // the object's resourceVersion
	gets      []readVersion
	lists     []listChanges
	discovery uint64
}

type readVersion struct {
	ref     adapters.Ref
	version string
	exists  bool
}

type listChanges struct {
	apiVersion, kind, namespace string
	blind                       bool // only changes outside status count
	count                       uint64
}

func (r *runner) resting(ref adapters.Ref, c engine.Rest) *resting {
	rest := &resting{cert: c, discovery: r.changes.DiscoveryChanges()}
	rest.self, _ = r.changes.Version(ref)
	for _, rd := range c.Reads {
		switch {
		case rd.Skip || rd.Err != nil:
			// Nothing was read: the same inputs skip it again.
		case rd.List:
			lc := listChanges{apiVersion: rd.Ref.APIVersion, kind: rd.Ref.Kind, namespace: rd.Ref.Namespace, blind: rd.StatusBlind}
			lc.count = lc.now(r.changes)
			rest.lists = append(rest.lists, lc)
		default:
			v := readVersion{ref: rd.Ref}
			v.version, v.exists = r.changes.Version(rd.Ref)
			rest.gets = append(rest.gets, v)
		}
	}
	return rest
}

func (lc listChanges) now(cc changeCounter) uint64 {
	all, outside := cc.Changes(lc.apiVersion, lc.kind, lc.namespace)
	if lc.blind {
		return outside
	}
	return all
}

// stillResting reports whether a recheck of ref now would read what its
// certified rest read, at a time the rest still holds.
func (r *runner) stillResting(d *driven) bool {
	rest, now := d.rest, r.clock.Now()
	if until := rest.cert.Until; !until.IsZero() && !now.Before(until) {
		return false
	}
	if r.changes.DiscoveryChanges() != rest.discovery {
		return false
	}
	if v, _ := r.changes.Version(d.ref); v != rest.self {
		return false
	}
	for _, g := range rest.gets {
		if v, ok := r.changes.Version(g.ref); v != g.version || ok != g.exists {
			return false
		}
	}
	for _, lc := range rest.lists {
		if lc.now(r.changes) != lc.count {
			return false
		}
	}
	return true
}

// forgetRests makes every object step at its next wake-up.
func (r *runner) forgetRests() {
	for _, d := range r.objs {
		d.rest = nil
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
