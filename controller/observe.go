package controller

import (
	"context"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// An Observer sees what the controller's reconciles do: for a flight
// recorder (package record), and for the decision records the controller
// keeps on objects (Options.DecisionRecords). It decides nothing and
// changes nothing the reconcile does.
type Observer interface {
	// Reconciling is called as a reconcile of ref by m begins at now. What
	// it returns (nil: nothing) receives that reconcile, in order. It is
	// called from the controller's workers, concurrently for different
	// objects.
	Reconciling(m *fsm.Machine, ref adapters.Ref, now time.Time) ReconcileObserver
}

// A ReconcileObserver receives one reconcile in order: its steps,
// transitions and problems (engine.StepTracer), each request it sent with
// its result (reads included), and its end.
type ReconcileObserver interface {
	engine.StepTracer
	// Request is called after each request of the reconcile with its
	// result.
	Request(req adapters.Request, res adapters.Result)
	// Done is called when the reconcile is over. rep.Err is set when it
	// failed (and is retried): an API failure, or API discovery failing
	// while it ran, in which case it sent no write.
	Done(rep engine.Report)
}

// observers fans one reconcile out to several observers.
type observers []ReconcileObserver

func (o observers) Step(now time.Time, ref adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	for _, x := range o {
		x.Step(now, ref, m, snap, d)
	}
}

func (o observers) Transition(now time.Time, ref adapters.Ref, r *engine.Result) {
	for _, x := range o {
		x.Transition(now, ref, r)
	}
}

func (o observers) Problem(now time.Time, ref adapters.Ref, p *engine.Problem) {
	for _, x := range o {
		x.Problem(now, ref, p)
	}
}

func (o observers) Request(req adapters.Request, res adapters.Result) {
	for _, x := range o {
		x.Request(req, res)
	}
}

func (o observers) Done(rep engine.Report) {
	for _, x := range o {
		x.Done(rep)
	}
}

// observedAPI hands each request of one reconcile and its result to the
// reconcile's observers.
type observedAPI struct {
	adapters.API
	obs ReconcileObserver
}

func (a observedAPI) Do(ctx context.Context, req adapters.Request) adapters.Result {
	res := a.API.Do(ctx, req)
	a.obs.Request(req, res)
	return res
}

// teeTracer gives the trace of a reconcile to the controller's tracer and
// to its observers.
type teeTracer struct {
	t   *tracer
	obs ReconcileObserver
}

func (t teeTracer) Step(now time.Time, ref adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	t.t.Step(now, ref, m, snap, d)
	t.obs.Step(now, ref, m, snap, d)
}

func (t teeTracer) Transition(now time.Time, ref adapters.Ref, r *engine.Result) {
	t.t.Transition(now, ref, r)
	t.obs.Transition(now, ref, r)
}

func (t teeTracer) Problem(now time.Time, ref adapters.Ref, p *engine.Problem) {
	t.t.Problem(now, ref, p)
	t.obs.Problem(now, ref, p)
}

// observe returns the observers of the reconcile of ref by m at now (nil:
// none) and the API and tracer the reconcile uses.
func (c *Controller) observe(m *fsm.Machine, ref adapters.Ref, now time.Time, tr *tracer) (ReconcileObserver, adapters.API, engine.Tracer) {
	var obs observers
	if c.opts.Observer != nil {
		if o := c.opts.Observer.Reconciling(m, ref, now); o != nil {
			obs = append(obs, o)
		}
	}
	if c.opts.DecisionRecords > 0 && c.opts.Shadow == nil {
		obs = append(obs, &decisionCollector{c: c, ref: ref})
	}
	switch len(obs) {
	case 0:
		return nil, c.api, tr
	case 1:
		return obs[0], observedAPI{c.api, obs[0]}, teeTracer{tr, obs[0]}
	}
	return obs, observedAPI{c.api, obs}, teeTracer{tr, obs}
}
