package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/jsonvalue"
)

// restart forgets every pending wake-up and reconciles every driven object
// now, in order, as a new engine process would after its initial list.
func (r *runner) restart() {
	r.forgetRests()
	r.add("world", "", "world: engine restarted: wake-ups forgotten, every object reconciled from its status")
	for _, d := range r.objs {
		d.gen++ // every queued reconcile is now stale
	}
	keys := make([]string, 0, len(r.machines))
	for k := range r.machines {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, res := range r.machines[k].Resources {
			if res.APIVersion+"/"+res.Kind != k {
				continue
			}
			for _, obj := range r.cluster.Objects(res.APIVersion, res.Kind) {
				r.schedule(sim.RefOf(obj), r.clock.Now())
			}
		}
	}
}

func (r *runner) target(t Target) (adapters.Ref, error) {
	av, ok := r.kinds[t.Kind]
	if !ok {
		return adapters.Ref{}, fmt.Errorf("%s: unknown kind %q", t.Range, t.Kind)
	}
	return adapters.Ref{APIVersion: av, Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}, nil
}

// world carries out a scenario event as another actor would, through the
// API, so that it shows in the trace.
func (r *runner) world(ctx context.Context, e *Event) {
	r.flush(true)
	who := e.As
	if who == "" {
		who = "scenario"
	}
	if e.Restart {
		r.restart()
	}
	if e.Staging != nil {
		r.forgetRests()             // a denial or an admission hook may change what a read returns
		stage(r.cluster, e.Staging) // Run checked the cluster can
		for _, line := range e.Staging.describe() {
			r.add("world", "", "world: "+line)
		}
	}
	for _, obj := range e.Create {
		ref := sim.RefOf(obj)
		res := r.cluster.Do(ctx, adapters.Request{Verb: adapters.Create, Ref: ref, Body: jsonValue(obj), Identity: who})
		r.add("world", ref.String(), fmt.Sprintf("world: create %s as %s: %s", ref, who, res.Outcome))
		r.flush(false)
	}
	for _, p := range e.Patch {
		ref, err := r.target(p.Target)
		if err != nil {
			r.add("world", p.Target.String(), "world: "+err.Error())
			continue
		}
		if p.Merge != nil {
			b, _ := json.Marshal(p.Merge)
			res := r.cluster.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Body: jsonValue(p.Merge), Identity: who})
			r.add("world", ref.String(), fmt.Sprintf("world: patch %s %s as %s: %s", ref, b, who, res.Outcome))
			r.flush(false)
		}
		if p.Status != nil {
			body := map[string]any{"status": p.Status}
			b, _ := json.Marshal(body)
			res := r.cluster.Do(ctx, adapters.Request{Verb: adapters.Patch, Subresource: "status", PatchType: adapters.MergePatch, Ref: ref, Body: jsonValue(body), Identity: who})
			r.add("world", ref.String(), fmt.Sprintf("world: patch status %s %s as %s: %s", ref, b, who, res.Outcome))
			r.flush(false)
		}
	}
	for _, t := range e.Delete {
		ref, err := r.target(t)
		if err != nil {
			r.add("world", t.String(), "world: "+err.Error())
			continue
		}
		res := r.cluster.Do(ctx, adapters.Request{Verb: adapters.Delete, Ref: ref, Identity: who, Propagation: e.Propagation})
		what := ref.String()
		if e.Propagation != "" {
			what += " (" + e.Propagation + ")"
		}
		r.add("world", ref.String(), fmt.Sprintf("world: delete %s as %s: %s", what, who, res.Outcome))
		r.flush(false)
	}
	for _, t := range e.Reconcile {
		if err := r.reconcileNow(ctx, t); err != nil {
			r.add("world", t.String(), "world: "+err.Error())
		}
	}
}

// jsonValue returns v, a value decoded from a scenario file, as a request
// body: a canonical JSON value.
func jsonValue(v any) any {
	c, err := jsonvalue.Canonical(v)
	if err != nil {
		return v // the simulator refuses it, as a server would
	}
	return c
}
