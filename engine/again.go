package engine

import (
	"sync"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Resting again. A converged object is rechecked every requeue interval
// and, while nothing it reads changes, rests again: its guards give the
// same values and its state asks for the same recheck. The engine keeps,
// on the object itself (frozen in the machine's registry of frozen values,
// jsonvalue.Remember), the last rest decided for it, with that rest's
// certificate (Certify): the machine, the memory and the observations it
// was decided on, and the time before which the decision holds. Stepped
// again with the same machine, object, memory and observations inside that
// time, Step answers the same decision without evaluating a guard; only
// the wake-up moves on with now.
//
// Only frozen values are remembered, and compared by identity: a frozen
// value is never changed again (jsonvalue.Registry.Freeze), so the same
// map is the same content, and a rest remembered holds the values it
// compares, so no identity is reused while it can be asked. Anything not
// frozen (an object a test builds, a memory kept elsewhere, a for_each
// observation) is decided in full every time. Nothing is kept outside the
// run's registry, and a remembered rest goes with its object's version, or
// when its owner thaws what it handed out (the simulator at the end of a
// scenario run, sim.Cluster.Release): a rest holds its machine, and a
// registry can outlive many machines (a mutation run's).

// lastRest is the last rest decided for one version of an object.
type lastRest struct {
	mu   sync.Mutex
	rest *decidedRest // nil: none yet
}

// decidedRest is a rest decided in full, and what it was decided on.
type decidedRest struct {
	m *fsm.Machine
	// mem is the memory the step was given (nil: the object's status).
	mem map[string]any
	obs []restInput
	// at and until bound the times the rest holds at: from the step that
	// decided it to the first time a time gate can change (zero: none).
	at, until time.Time
	// wake makes the wake-up from now (Every zero: the state has no
	// recheck).
	wake   Rest
	from   string
	guards []GuardResult
}

// restInput is one observation a rest was decided on.
type restInput struct {
	name    string
	outcome adapters.Outcome
	scope   adapters.Scope
	message string
	skipped bool
	object  map[string]any
	items   []map[string]any
}

func (in *restInput) same(o Observation) bool {
	if o.Outcome != in.outcome || o.Scope != in.scope || o.Message != in.message || o.Skipped != in.skipped ||
		o.Each != nil || o.Item != nil || !jsonvalue.Same(o.Object, in.object) || len(o.Items) != len(in.items) {
		return false
	}
	for i, it := range o.Items {
		if !jsonvalue.Same(it, in.items[i]) {
			return false
		}
	}
	return true
}

// lastRestOf returns the rest remembered on obj, a frozen object of m's
// run; nil when obj is not frozen.
func lastRestOf(m *fsm.Machine, obj map[string]any) *lastRest {
	reg := m.Memory.Frozen()
	if reg == nil || obj == nil || !reg.Frozen(obj) {
		return nil
	}
	return jsonvalue.Remember(reg, obj, "engine.lastRest", func() *lastRest { return &lastRest{} })
}

// restAgain returns the decision of snap when it is the rest remembered
// for its object, with the wake-up counted from snap.Now; nil otherwise.
func restAgain(m *fsm.Machine, snap Snapshot) *Decision {
	lr := lastRestOf(m, snap.Object)
	if lr == nil {
		return nil
	}
	lr.mu.Lock()
	dr := lr.rest
	lr.mu.Unlock()
	if dr == nil || dr.m != m || !jsonvalue.Same(dr.mem, snap.Memory) || len(dr.obs) != len(snap.Observations) ||
		snap.Now.Before(dr.at) || (!dr.until.IsZero() && !snap.Now.Before(dr.until)) {
		return nil
	}
	for i := range dr.obs {
		o, ok := snap.Observations[dr.obs[i].name]
		if !ok || !dr.obs[i].same(o) {
			return nil
		}
	}
	d := &Decision{From: dr.from, Guards: dr.guards}
	if dr.wake.Every > 0 {
		d.Wake = dr.wake.Next(snap.Now)
	}
	return d
}

// rememberRest keeps d, a decision made in full for snap in the
// activation v, as its object's last rest, when d rests with a certificate
// and everything it was decided on is frozen.
func rememberRest(m *fsm.Machine, snap Snapshot, d *Decision, v *vars) {
	if d.Transition != nil || d.Problem != nil {
		return
	}
	lr := lastRestOf(m, snap.Object)
	if lr == nil {
		return
	}
	reg := m.Memory.Frozen()
	if snap.Memory != nil && !reg.Frozen(snap.Memory) {
		return
	}
	obs := make([]restInput, 0, len(snap.Observations))
	for name, o := range snap.Observations {
		if o.Each != nil || o.Item != nil || (o.Object != nil && !reg.Frozen(o.Object)) {
			return
		}
		for _, it := range o.Items {
			if !reg.Frozen(it) {
				return
			}
		}
		obs = append(obs, restInput{name: name, outcome: o.Outcome, scope: o.Scope, message: o.Message,
			skipped: o.Skipped, object: o.Object, items: o.Items})
	}
	c, _, ok := restInTime(m, snap, d, v)
	if !ok {
		return
	}
	dr := &decidedRest{m: m, mem: snap.Memory, obs: obs, at: snap.Now, until: c.Until,
		wake: Rest{Every: c.Every, Jitter: c.Jitter, JitterKey: c.JitterKey},
		from: d.From, guards: d.Guards}
	lr.mu.Lock()
	lr.rest = dr
	lr.mu.Unlock()
}
