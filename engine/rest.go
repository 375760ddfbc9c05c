package engine

import (
	"time"

	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/types"

	"github.com/statecraft/statecraft/fsm"
)

// Rest certifies that an object at rest would rest again: stepped at any
// time before Until (zero: any time), with the same object and the same
// observations, Step decides the same and asks for the next check Every
// after that time (zero: no recheck). Reads are the observations the
// decision made; a list read marked StatusBlind may change in its items'
// status without changing the decision.
//
// A runner that can tell cheaply that none of its inputs changed (the
// simulator counts changes; see scenario) skips such a step and only moves
// the wake-up on. The runner must also know that skipping the reads changes
// nothing else (no staged faults count calls, no expectation counts reads).
type Rest struct {
	Until time.Time
	Every time.Duration
	// Jitter, when set, delays each recheck by JitterOffset(JitterKey,
	// the recheck's time, Jitter).
	Jitter    time.Duration
	JitterKey string
	Reads     []Read
}

// Next returns when a recheck at at, resting again, asks to be stepped.
func (r Rest) Next(at time.Time) time.Time {
	t := at.Add(r.Every)
	return t.Add(JitterOffset(r.JitterKey, t, r.Jitter))
}

// Certify returns the certificate of a decision that fired nothing, made in
// snap. It refuses (false) when the decision fired or reported a problem,
// when an expression of the state reads now other than in a time gate
// (fsm.RestProfile), when a gate cannot be placed in time, or when the
// state's recheck is a point in time rather than a duration.
func Certify(m *fsm.Machine, snap Snapshot, d *Decision) (Rest, bool) {
	if d == nil || d.Transition != nil || d.Problem != nil {
		return Rest{}, false
	}
	v, _ := newVars(m, snap.Object, snap.Memory, snap.Observations, snap.Now)
	return certify(m, snap, d, v)
}

// certify is Certify in the activation v of the step that decided d.
// A rest is certified only for a machine whose memory is the object's
// status (a runner watches the object, not where else it may be kept).
func certify(m *fsm.Machine, snap Snapshot, d *Decision, v *vars) (Rest, bool) {
	r, prof, ok := restInTime(m, snap, d, v)
	if !ok {
		return Rest{}, false
	}
	r.Reads = append([]Read(nil), snap.Reads...)
	if snap.Reads == nil {
		r.Reads = Reads(m, snap.Object, snap.Now)
	}
	for i := range r.Reads {
		r.Reads[i].StatusBlind = r.Reads[i].List && prof.StatusBlind[r.Reads[i].Name]
	}
	return r, true
}

// restInTime is the part of d's certificate that places it in time (Until,
// Every, Jitter), without its reads, and the state's rest profile.
func restInTime(m *fsm.Machine, snap Snapshot, d *Decision, v *vars) (Rest, *fsm.RestProfile, bool) {
	if d == nil || d.Transition != nil || d.Problem != nil || m.Source.MemoryIn != "status" {
		return Rest{}, nil, false
	}
	prof := m.Rest(d.From)
	if prof == nil || !prof.Certifiable {
		return Rest{}, nil, false
	}
	var r Rest
	if s := m.State(d.From); s.Recheck != nil {
		out, err := s.Recheck.Eval(v)
		dur, ok := out.(types.Duration)
		if err != nil || !ok {
			return Rest{}, nil, false
		}
		// As Step (restWake): a wake-up not after now becomes one second
		// later.
		r.Every = dur.Duration
		if r.Every <= 0 {
			r.Every = time.Second
		}
		if s.Jitter != nil {
			out, err := s.Jitter.Eval(v)
			j, ok := out.(types.Duration)
			if err != nil || !ok {
				return Rest{}, nil, false
			}
			r.Jitter, r.JitterKey = j.Duration, jitterKey(snap.Object)
		}
	}
	for _, g := range prof.Gates {
		at, ok := gateChange(g, v, snap.Now)
		if !ok {
			return Rest{}, nil, false
		}
		if !at.IsZero() && (r.Until.IsZero() || at.Before(r.Until)) {
			r.Until = at
		}
	}
	return r, prof, true
}

// gateChange returns the first time after now at which g's value can
// differ from its value at now (zero: never, with these inputs). A gate
// compares now with a point P (now OP T, or now - S OP D with P = S + D):
// now >= P and now < P change when now reaches P, now > P and now <= P one
// nanosecond later, now == P and now != P at both. A side that fails to
// evaluate fails the same way at any time: the gate never changes.
func gateChange(g *fsm.TimeGate, v *vars, now time.Time) (time.Time, bool) {
	bound, err := g.Bound.Eval(v)
	if err != nil || types.IsError(bound) {
		return time.Time{}, true
	}
	var p time.Time
	if g.Since == nil {
		ts, ok := bound.(types.Timestamp)
		if !ok {
			return time.Time{}, false
		}
		p = ts.Time
	} else {
		since, err := g.Since.Eval(v)
		if err != nil || types.IsError(since) {
			return time.Time{}, true
		}
		switch s := since.(type) {
		case types.Timestamp: // now - S OP D
			d, ok := bound.(types.Duration)
			if !ok {
				return time.Time{}, false
			}
			p = s.Time.Add(d.Duration)
		case types.Duration: // now - D OP T
			t, ok := bound.(types.Timestamp)
			if !ok {
				return time.Time{}, false
			}
			p = t.Time.Add(s.Duration)
		default:
			return time.Time{}, false
		}
	}
	var points []time.Time
	switch g.Op {
	case operators.GreaterEquals, operators.Less:
		points = []time.Time{p}
	case operators.Greater, operators.LessEquals:
		points = []time.Time{p.Add(time.Nanosecond)}
	default:
		points = []time.Time{p, p.Add(time.Nanosecond)}
	}
	for _, at := range points {
		if at.After(now) {
			return at, true
		}
	}
	return time.Time{}, true
}
