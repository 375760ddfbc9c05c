package scenario

import (
	"context"
	"fmt"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
)

// Restorer is a Cluster that can stage an object as a real cluster held
// it: with its uid, creationTimestamp and generation (the simulator can; a
// real server assigns its own). A scenario with recorded = true needs one.
type Restorer interface {
	Restore(obj map[string]any) error
}

var _ Restorer = (*sim.Cluster)(nil)

// stageStart stages one starting object: restored, in a recorded
// scenario, else applied.
func (r *runner) stageStart(obj map[string]any) error {
	if !r.s.Recorded {
		return r.cluster.Apply(obj)
	}
	rc, ok := r.cluster.(Restorer)
	if !ok {
		return fmt.Errorf("this scenario restores recorded objects (recorded = true), which only the simulated cluster can")
	}
	return rc.Restore(obj)
}

// scheduleStart queues the first reconcile of a starting object: at the
// start, or as its resume block says (at its wake-up; never, without one,
// until something changes).
func (r *runner) scheduleStart(ref adapters.Ref) {
	for _, rs := range r.s.Resume {
		t := rs.Object
		if t.Kind != ref.Kind || t.Namespace != ref.Namespace || t.Name != ref.Name {
			continue
		}
		if rs.Wake != nil {
			r.schedule(ref, r.s.Start.Add(*rs.Wake))
		}
		return
	}
	r.schedule(ref, r.s.Start)
}

// reconcileNow reconciles an object now, as an event says (a scenario
// replayed at a recording's reconcile times).
func (r *runner) reconcileNow(ctx context.Context, t Target) error {
	ref, err := r.target(t)
	if err != nil {
		return err
	}
	d := r.objs[ref]
	if d == nil {
		m, bound := r.machines[ref.APIVersion+"/"+ref.Kind]
		if !bound {
			return fmt.Errorf("%s: reconcile %s: no machine drives %s", t.Range, t, t.Kind)
		}
		d = &driven{ref: ref, machine: m}
		r.objs[ref] = d
	}
	return r.reconcile(ctx, d)
}
