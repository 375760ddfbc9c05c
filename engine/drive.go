package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/library"
)

// Tracer receives, in order, what a reconcile decides. Requests themselves
// are recorded by the adapter that carries them out.
type Tracer interface {
	// Transition is called once per fired transition.
	Transition(now time.Time, obj adapters.Ref, r *Result)
	// Problem is called when a reconcile reports a problem instead of
	// moving.
	Problem(now time.Time, obj adapters.Ref, p *Problem)
}

// NopTracer is a Tracer that records nothing. Embed it in a tracer that
// wants only some of what a reconcile decides, and write only those methods.
// It has no Step method: embedding it does not make a StepTracer.
type NopTracer struct{}

// Transition does nothing.
func (NopTracer) Transition(time.Time, adapters.Ref, *Result) {}

// Problem does nothing.
func (NopTracer) Problem(time.Time, adapters.Ref, *Problem) {}

// StepTracer is a Tracer that also wants every step's snapshot and
// decision (to explain it, or to measure coverage).
type StepTracer interface {
	Tracer
	Step(now time.Time, obj adapters.Ref, m *fsm.Machine, snap Snapshot, d *Decision)
}

// Drive carries a Reconciliation out on api: the loop the simulation
// runner, the verifier and the controller share. It makes each read and
// sends each request the reconcile asks for, in order, reports its trace
// to tr (nil: none), and returns the reconcile's Report.
func Drive(ctx context.Context, api adapters.API, r *Reconciliation, tr Tracer) Report {
	stepTr, _ := tr.(StepTracer)
	// obs is reused from one wave of reads to the next: Deliver copies
	// the observations it is given.
	var obs []Observation
	for {
		rd := r.Ready()
		if tr != nil {
			for _, e := range rd.Trace {
				switch {
				case e.Decision != nil:
					if stepTr != nil {
						stepTr.Step(r.now, r.ref, r.m, *e.Snapshot, e.Decision)
					}
				case e.Fired != nil:
					tr.Transition(r.now, r.ref, e.Fired)
				case e.Problem != nil:
					tr.Problem(r.now, r.ref, e.Problem)
				}
			}
		}
		switch {
		case rd.Done != nil:
			return *rd.Done
		case rd.Reads != nil:
			if cap(obs) < len(rd.Reads) {
				obs = make([]Observation, 0, len(rd.Reads))
			}
			obs = obs[:0]
			for _, q := range rd.Reads {
				obs = append(obs, observe(ctx, api, q, libraryOf(r.m)))
			}
			r.Deliver(Delivery{Observations: obs})
		default:
			r.Deliver(Delivery{Result: api.Do(ctx, *rd.Request)})
		}
	}
}

// Reconcile is one reconcile of the object ref of machine m on api at now,
// driven to its end (Drive). An API failure that ended it is returned as
// the error (Report.Err).
func Reconcile(ctx context.Context, m *fsm.Machine, api adapters.API, ref adapters.Ref, now time.Time, tr Tracer) (Report, error) {
	_, steps := tr.(StepTracer)
	rep := Drive(ctx, api, Start(m, ref, now, Options{Steps: steps}), tr)
	return rep, rep.Err
}

// Observe makes one read on api: the scope of its kind, then, unless
// ScopeOnly, the get or list.
func Observe(ctx context.Context, api adapters.API, rd Read) Observation {
	return observe(ctx, api, rd, nil)
}

// observe is Observe, with lib (nil: none) remembering the CEL lists of
// list answers (library.Memory.List).
func observe(ctx context.Context, api adapters.API, rd Read, lib *library.Memory) Observation {
	scope := api.Scope(ctx, rd.Ref.APIVersion, rd.Ref.Kind)
	if rd.ScopeOnly {
		return Observation{Scope: scope}
	}
	if scope == adapters.Unknown {
		return Observation{Outcome: adapters.Unsupported, Scope: scope, Message: fmt.Sprintf("the server does not serve %s %s", rd.Ref.APIVersion, rd.Ref.Kind)}
	}
	if rd.List {
		res := api.Do(ctx, adapters.Request{Verb: adapters.List, Ref: rd.Ref, LabelSelector: rd.LabelSelector})
		o := Observation{Outcome: res.Outcome, Items: res.Items, Scope: scope, Message: res.Message, canonical: true}
		return o.withListValue(lib, library.ListQuery{APIVersion: rd.Ref.APIVersion, Kind: rd.Ref.Kind, Namespace: rd.Ref.Namespace, LabelSelector: rd.LabelSelector})
	}
	res := api.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: rd.Ref})
	o := Observation{Outcome: res.Outcome, Scope: scope, Message: res.Message, canonical: true}
	if res.Outcome == adapters.OK {
		o.Object = res.Object
	}
	return o.withValue()
}
