package scenario

import (
	"context"
	"fmt"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// Result is what a run produced.
type Result struct {
	// Trace is the run's trace, unless Options.Trace took it line by line.
	Trace []Line
	// Lines counts the trace's lines, streamed or kept.
	Lines    int
	Failures []string // failed expectations, in time order
	Expects  int      // expectations checked
	// Reconciles counts the objects the engine stepped; Rests the
	// rechecks skipped because the object was certified to rest again
	// (see Options.EveryStep).
	Reconciles, Rests int
}

// Options tune a run.
type Options struct {
	// Until stops the run early (0: run_for).
	Until time.Duration
	// Cluster, when set, makes the cluster to run on instead of a fresh
	// simulated one (a real API server, say); it gets the run's clock.
	Cluster func(clock *sim.Clock) (Cluster, error)
	// Trace, when set, is handed each line of the trace as it happens, in
	// order, and Result.Trace stays empty: what the run holds then does
	// not grow with its length (a week of 10,000 objects traces 1.7
	// million lines). TraceWriter.Line writes them as the golden file
	// holds them.
	Trace func(Line)
	// Steps, when set, also receives every step the engine takes (its
	// snapshot and decision), every transition and every problem: for
	// explanations (sim --why) and coverage (test --cover). Every
	// recheck is then stepped.
	Steps engine.StepTracer
	// EveryStep steps every object at every wake-up. Without it, on the
	// simulated cluster, a recheck of an object whose last reconcile came
	// to rest with a certificate (engine.Certify) is skipped while nothing
	// it read has changed and no time gate has moved: it would read the
	// same, decide the same and write nothing. The trace is the same
	// either way; only the request log's reads differ, so scenarios that
	// stage faults (which count calls) or count reads always step.
	EveryStep bool
	// MaxWakeups, when positive, stops the run with an error once the
	// objects have been woken (reconciled or found resting) more than this
	// many times: a bound on runs of rules that never settle, such as a
	// mutant's (package mutate), that counts what the run does rather than
	// wall time.
	MaxWakeups int
}

// runner drives one scenario.
type runner struct {
	s        *Scenario
	opts     Options
	cluster  Cluster
	clock    *sim.Clock
	machines map[string]*fsm.Machine // apiVersion/kind -> machine
	kinds    map[string]string       // kind -> apiVersion
	q        queue
	seq      int
	objs     map[adapters.Ref]*driven
	current  adapters.Ref // the object being reconciled
	made     []madeRecord // takeRecords' last batch, reused
	res      *Result
	counts   map[*WriteCount]int // requests so far matching each count expectation
	end      time.Time
	// controllersAt is when a run of the cluster's controllers is queued
	// (see controllerHost), zero when none is.
	controllersAt time.Time
	// changes, when rests may be skipped, tells what changed in the
	// cluster.
	changes changeWatcher
	watches watches
	// visibleWake is the latest step taken for a FaultCluster's lagged
	// write to become visible.
	visibleWake time.Time
}

// Run executes a scenario on a fresh simulated cluster (or the cluster
// opts.Cluster makes) and returns its trace and the expectations that
// failed. The same scenario gives the same result on every run.
func Run(ctx context.Context, s *Scenario, ms []*fsm.Machine, opts Options) (*Result, error) {
	clock := sim.NewClock(s.Start)
	var cluster Cluster
	if opts.Cluster != nil {
		var err error
		if cluster, err = opts.Cluster(clock); err != nil {
			return nil, err
		}
	} else {
		// The engine and the runner only read what they get: share it.
		// They read objects without managedFields, as the controller's
		// informers hold them; and when no machine applies (nothing else
		// in a scenario sends server-side apply), field ownership can be
		// observed through nothing and is not kept at all.
		opts := []sim.Option{sim.WithSeed(s.Seed), sim.WithSharedReads(frozenOf(ms)), sim.WithoutManagedFields()}
		if !applies(ms) {
			opts = append(opts, sim.WithoutFieldManagement())
		}
		cluster = sim.New(clock, opts...)
	}
	// What the run froze in its machines' registry goes with the run: the
	// registry may serve other runs (a mutation run's do), and a rest
	// remembered on an object (engine) would keep its machine alive.
	if c, ok := cluster.(interface{ Release() }); ok {
		defer c.Release()
	}
	r := &runner{
		s: s, opts: opts, clock: clock, cluster: cluster,
		machines: map[string]*fsm.Machine{}, kinds: map[string]string{},
		objs: map[adapters.Ref]*driven{}, res: &Result{}, counts: map[*WriteCount]int{},
	}
	for _, e := range s.Expects {
		for i := range e.Writes {
			r.counts[&e.Writes[i]] = 0
		}
	}
	if _, staging := cluster.(Stager); !staging && s.stages() {
		return nil, fmt.Errorf("%s: this scenario stages denials, faults or admission, which only the simulated cluster can", s.File)
	}
	if cw, ok := cluster.(changeWatcher); ok && !opts.EveryStep && opts.Steps == nil && !s.stagesFaults() && !s.countsReads() {
		r.changes = cw
		r.watches = watches{gets: map[adapters.Ref]map[*driven]uint64{}, lists: map[listKey]map[*driven]listWatch{}}
		cw.OnChange(r.changed)
	}
	for k, v := range builtinKinds {
		r.kinds[k] = v
	}
	for _, m := range ms {
		for _, res := range m.Resources {
			r.machines[res.APIVersion+"/"+res.Kind] = m
			r.kinds[res.Kind] = res.APIVersion
			if crd := shippedCRD(res.APIVersion, res.Kind); crd != nil {
				// Served from its CustomResourceDefinition, schema and
				// all, as on a cluster that installed it.
				if err := r.cluster.Apply(crd); err != nil {
					return nil, fmt.Errorf("%s: installing the CRD of %s %s: %v", s.File, res.APIVersion, res.Kind, err)
				}
				continue
			}
			r.cluster.RegisterKind(res.APIVersion, res.Kind, adapters.Scope(res.Scope), sim.KindOptions{HasStatus: true})
		}
	}
	runFor := s.RunFor
	if opts.Until > 0 && opts.Until < runFor {
		runFor = opts.Until
	}
	r.end = s.Start.Add(runFor)
	if s.Staging != nil {
		stage(r.cluster, s.Staging)
	}
	r.flush(false) // staging requests (the simulator makes none) are not the scenario's
	for _, obj := range s.Objects {
		r.noteKind(obj)
		if err := r.stageStart(obj); err != nil {
			return nil, fmt.Errorf("%s: starting objects: %v", s.File, err)
		}
		r.scheduleStart(sim.RefOf(obj))
	}
	for _, e := range s.Events {
		for _, obj := range e.Create {
			r.noteKind(obj)
		}
		r.push(item{at: s.Start.Add(e.At), kind: itemEvent, event: e})
	}
	for _, e := range s.Expects {
		r.push(item{at: s.Start.Add(e.At), kind: itemExpect, exp: e})
	}
	r.flush(false)
	for r.q.len() > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r.queueControllers()
		it := r.q.pop()
		if it.at.After(r.end) {
			break
		}
		r.clock.Set(it.at)
		switch it.kind {
		case itemEvent:
			r.world(ctx, it.event)
			if e := it.event; e.Every > 0 {
				next := it.at.Add(e.Every)
				if e.Until == 0 || !next.After(s.Start.Add(e.Until)) {
					r.push(item{at: next, kind: itemEvent, event: e})
				}
			}
		case itemReconcile:
			d := it.obj
			if d.gen != it.gen {
				continue // superseded by a later decision
			}
			if opts.MaxWakeups > 0 && r.res.Reconciles+r.res.Rests >= opts.MaxWakeups {
				return nil, fmt.Errorf("%s: more than %d wake-ups by %s: the run was stopped", s.File, opts.MaxWakeups, r.clock.Now().Sub(s.Start))
			}
			if r.stillResting(d) {
				r.res.Rests++
				if d.rest.every > 0 {
					r.wake(d, d.rest.next(it.at))
				}
				continue
			}
			if err := r.reconcile(ctx, d); err != nil {
				return nil, err
			}
		case itemExpect:
			r.check(it.exp)
		case itemControllers:
			r.runControllers()
		}
		if hooks, ok := r.cluster.(reconcileHooks); ok {
			r.wakeFor(hooks)
		}
	}
	return r.res, nil
}

func (r *runner) push(it item) {
	r.seq++
	it.seq = r.seq
	it.when = it.at.UnixNano()
	r.q.push(it)
}

// schedule wakes ref at at, when a machine drives its kind.
func (r *runner) schedule(ref adapters.Ref, at time.Time) {
	d := r.objs[ref]
	if d == nil {
		m, bound := r.machines[ref.APIVersion+"/"+ref.Kind]
		if !bound {
			return
		}
		d = &driven{ref: ref, machine: m}
		r.objs[ref] = d
	}
	r.wake(d, at)
}

// wake queues a reconcile of d at at, superseding any queued before.
func (r *runner) wake(d *driven, at time.Time) {
	if r.s.Pinned {
		return // reconciles only where events say (reconcileNow)
	}
	d.gen++
	r.push(item{at: at, kind: itemReconcile, obj: d, gen: d.gen})
}

func (r *runner) noteKind(obj map[string]any) {
	av, _ := obj["apiVersion"].(string)
	k, _ := obj["kind"].(string)
	if av != "" && k != "" {
		if _, ok := r.kinds[k]; !ok {
			r.kinds[k] = av
		}
	}
}

// peek reads an object without copying it where the cluster can (the
// simulator shares one read-only copy per version); the runner only reads.
func (r *runner) peek(ref adapters.Ref) (map[string]any, bool) {
	if p, ok := r.cluster.(interface {
		Peek(adapters.Ref) (map[string]any, bool)
	}); ok {
		return p.Peek(ref)
	}
	return r.cluster.Object(ref)
}

// controller returns the controller owner of ref when a machine drives the
// owner's kind.
func (r *runner) controller(ref adapters.Ref) (adapters.Ref, bool) {
	obj, ok := r.peek(ref)
	if !ok {
		return adapters.Ref{}, false
	}
	md, _ := obj["metadata"].(map[string]any)
	owners, _ := md["ownerReferences"].([]any)
	for _, o := range owners {
		om, _ := o.(map[string]any)
		if c, _ := om["controller"].(bool); !c {
			continue
		}
		av, _ := om["apiVersion"].(string)
		kind, _ := om["kind"].(string)
		name, _ := om["name"].(string)
		for _, m := range r.machinesByKind(av, kind) {
			for _, res := range m.Resources {
				if res.APIVersion == av && res.Kind == kind {
					owner := adapters.Ref{APIVersion: av, Kind: kind, Name: name}
					if res.Scope == string(adapters.Namespaced) {
						owner.Namespace = ref.Namespace
					}
					return owner, true
				}
			}
		}
	}
	return adapters.Ref{}, false
}

func (r *runner) machinesByKind(apiVersion, kind string) []*fsm.Machine {
	if m, ok := r.machines[apiVersion+"/"+kind]; ok {
		return []*fsm.Machine{m}
	}
	return nil
}

func (r *runner) reconcile(ctx context.Context, d *driven) error {
	ref, m := d.ref, d.machine
	r.current = ref
	r.res.Reconciles++
	d.rest = resting{}
	hooks, _ := r.cluster.(reconcileHooks)
	if hooks != nil {
		hooks.beginReconcile(ref)
	}
	rep := engine.Drive(ctx, r.cluster, engine.Start(m, ref, r.clock.Now(), engine.Options{Certify: r.changes != nil, Steps: r.opts.Steps != nil}), r)
	r.flush(true)
	r.current = adapters.Ref{}
	if hooks != nil && hooks.endReconcile() {
		r.restart() // the engine crashed in this reconcile: a new one starts
		return nil
	}
	if rep.Err == nil && rep.Certificate != nil && r.sawNow(m, ref, rep, *rep.Certificate) {
		r.rest(d, *rep.Certificate)
	}
	if rep.Err != nil {
		// An API failure is retried after a short, fixed delay.
		r.add("problem", ref.String(), fmt.Sprintf("%s: reconcile failed, retrying in 10s: %v", ref, rep.Err))
		r.wake(d, r.clock.Now().Add(10*time.Second))
		return nil
	}
	if !rep.Wake.IsZero() {
		r.wake(d, rep.Wake)
	}
	return nil
}

// controllerHost is a Cluster that plays controllers of its own (the
// simulator's garbage collector and namespace controller): the runner
// runs them when they are due, so that what they do is in the trace at its
// time.
type controllerHost interface {
	NextControllerRun() (time.Time, bool)
	RunControllers()
}

// queueControllers queues a run of the cluster's controllers when they are
// due to act and no run is queued for that time yet.
func (r *runner) queueControllers() {
	h, ok := r.cluster.(controllerHost)
	if !ok {
		return
	}
	at, due := h.NextControllerRun()
	if !due || at.Equal(r.controllersAt) {
		return
	}
	r.controllersAt = at
	r.push(item{at: at, kind: itemControllers})
}

func (r *runner) runControllers() {
	r.controllersAt = time.Time{}
	r.cluster.(controllerHost).RunControllers()
	r.flush(true)
}

// applies reports whether any of the machines sends server-side apply.
func applies(ms []*fsm.Machine) bool {
	for _, m := range ms {
		for _, t := range m.Transitions {
			for _, a := range t.Actions {
				if a.Verb == "apply" {
					return true
				}
			}
		}
	}
	return false
}
