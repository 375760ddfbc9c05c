package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
)

// Tracer receives, in order, what a reconcile decides. Requests themselves
// are recorded by the adapter that carries them out.
type Tracer interface {
	// Transition is called once per fired transition.
	Transition(now time.Time, obj adapters.Ref, r *Result)
	// Problem is called when a step reports a problem instead of moving.
	Problem(now time.Time, obj adapters.Ref, p *Problem)
}

// Report says what one reconcile did.
type Report struct {
	Transitions []*Result
	Problem     *Problem
	// Wake is when the object must be reconciled again (zero: only when it
	// changes).
	Wake time.Time
	// Gone is true when the object no longer exists.
	Gone bool
	// StatusWritten is true when the reconcile wrote status.
	StatusWritten bool
	// Rest and RestSnapshot, when the reconcile came to rest without a
	// problem, are the decision it rested with and what that last step saw
	// (for Certify). When the reconcile also fired or wrote status, the
	// step saw the object with the status then written, and what it read
	// before that write.
	Rest         *Decision
	RestSnapshot Snapshot
}

// MicroStepLimitReason is the status reason of an object whose reconcile hit
// the machine's micro-step bound.
const MicroStepLimitReason = "MicroStepLimitExceeded"

// Reconcile brings one object as far as its machine allows now: it reads the
// object and its observations, steps, carries out the chosen actions through
// api, resolves the route, and repeats until nothing fires, a wait is asked
// for, or the micro-step bound is reached. It writes status once, at the end,
// and only if it changed. It never sleeps; now is an input.
func Reconcile(ctx context.Context, m *fsm.Machine, api adapters.API, ref adapters.Ref, now time.Time, tr Tracer) (Report, error) {
	var rep Report
	got := api.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref})
	switch got.Outcome {
	case adapters.OK:
	case adapters.NotFound:
		rep.Gone = true
		return rep, nil
	default:
		return rep, fmt.Errorf("get %s: %s: %s", ref, got.Outcome, got.Message)
	}
	obj := got.Object
	// Statuses are never changed in place (Resolve builds each new one), so
	// the status read is kept as it is to compare with at the end.
	orig, _ := library.Canonical(statusOf(obj)).(map[string]any)
	// written holds the objects this reconcile wrote: later micro-steps
	// observe them as written instead of reading them again, so a cache
	// that has not caught up cannot make a fresh write look undone.
	written := map[adapters.Ref]map[string]any{}
	// seen keeps what this reconcile already read: a later micro-step that
	// observes the same object again gets the same answer without a
	// request (its own writes excepted, see written).
	seen := map[Read]Observation{}
	steps := 0
	stepTr, _ := tr.(StepTracer)
	for {
		if steps == m.MaxSteps {
			rep.Problem = &Problem{Reason: MicroStepLimitReason, Message: fmt.Sprintf("%d transitions fired in one reconcile without coming to rest; the machine may loop", m.MaxSteps)}
			break
		}
		v, problem := newVarsOf(m, obj, true, nil, now)
		snap := Snapshot{Object: obj, Now: now, Reads: readsWith(m, v), base: &base{v, problem}}
		snap.Observations = observe(ctx, api, snap.Reads, written, seen)
		d := Step(m, snap)
		if stepTr != nil {
			stepTr.Step(now, ref, m, snap, d)
		}
		if d.Problem != nil {
			rep.Problem = d.Problem
			break
		}
		if d.Transition == nil {
			rep.Wake = d.Wake
			rep.Rest, rep.RestSnapshot = d, snap
			break
		}
		steps++
		var results []ActionResult
		for _, pa := range d.Actions {
			results = append(results, run(ctx, api, d, pa, ref, &obj, written))
			if writes(pa) {
				clear(seen) // a write may change what other reads return
			}
			if !Next(d, results) {
				break
			}
		}
		r, err := Resolve(m, d, results)
		if err != nil {
			rep.Problem = &Problem{Reason: "EvaluationError", Message: err.Error()}
			break
		}
		rep.Transitions = append(rep.Transitions, r)
		if tr != nil {
			tr.Transition(now, ref, r)
		}
		obj = withStatus(obj, r.Status)
		if r.Wait {
			rep.Wake = r.Wake
			break
		}
	}
	st := statusOf(obj)
	if rep.Problem != nil {
		if tr != nil {
			tr.Problem(now, ref, rep.Problem)
		}
		st = shallowCopy(st)
		st["reason"] = rep.Problem.Reason
		st["message"] = rep.Problem.Message
		if gen, ok := lookup(obj, "metadata.generation"); ok {
			st["observedGeneration"] = library.Normalize(gen)
		}
	}
	if !jsonvalue.Equal(orig, st) {
		if err := writeStatus(ctx, api, ref, orig, st); err != nil {
			return rep, err
		}
		rep.StatusWritten = true
	}
	return rep, nil
}

// run carries out one planned action: its requests in order, stopping at
// the first that does not end ok. A write to the reconciled object itself
// updates obj (its status stays the engine's own).
func run(ctx context.Context, api adapters.API, d *Decision, pa PlannedAction, self adapters.Ref, obj *map[string]any, written map[adapters.Ref]map[string]any) ActionResult {
	if pa.Err != nil {
		return Outcome(d, pa, 0, adapters.Result{})
	}
	ar := ActionResult{Action: pa.Action.Name, Outcome: string(adapters.OK)}
	if pa.Skipped {
		return ar
	}
	for i, req := range pa.Requests {
		res := api.Do(ctx, req)
		ar = Outcome(d, pa, i, res)
		if res.Outcome == adapters.OK && !req.DryRun && req.Verb != adapters.Get {
			switch {
			case req.Verb == adapters.Delete:
				written[req.Ref] = nil
			case res.Object != nil:
				written[req.Ref] = res.Object
			}
			if res.Object != nil && req.Subresource == "" && sameObject(req.Ref, self) {
				*obj = withStatus(res.Object, statusOf(*obj))
			}
		}
		if ar.Outcome != string(adapters.OK) {
			if len(pa.Requests) > 1 {
				ar.Message = fmt.Sprintf("%s %s: %s", req.Verb, req.Ref, ar.Message)
			}
			break
		}
	}
	return ar
}

func observe(ctx context.Context, api adapters.API, reads []Read, written map[adapters.Ref]map[string]any, seen map[Read]Observation) map[string]Observation {
	if len(reads) == 0 {
		return nil
	}
	out := make(map[string]Observation, len(reads))
	for _, rd := range reads {
		switch {
		case rd.Skip:
			out[rd.Name] = Observation{Skipped: true}
		case rd.Err != nil:
			out[rd.Name] = Observation{Outcome: adapters.Invalid, Message: rd.Err.Error()}
		case !rd.List && hasRef(written, rd.Ref):
			o := Observation{Outcome: adapters.NotFound, Scope: api.Scope(ctx, rd.Ref.APIVersion, rd.Ref.Kind)}
			if w := written[rd.Ref]; w != nil {
				o.Outcome, o.Object = adapters.OK, w
			}
			out[rd.Name] = o
		default:
			key := Read{Ref: rd.Ref, List: rd.List, LabelSelector: rd.LabelSelector}
			o, ok := seen[key]
			if !ok {
				o = read(ctx, api, rd)
				seen[key] = o
			}
			out[rd.Name] = o
		}
	}
	return out
}

func read(ctx context.Context, api adapters.API, rd Read) Observation {
	scope := api.Scope(ctx, rd.Ref.APIVersion, rd.Ref.Kind)
	if scope == adapters.Unknown {
		return Observation{Outcome: adapters.Unsupported, Scope: scope, Message: fmt.Sprintf("the server does not serve %s %s", rd.Ref.APIVersion, rd.Ref.Kind)}
	}
	if rd.List {
		res := api.Do(ctx, adapters.Request{Verb: adapters.List, Ref: rd.Ref, LabelSelector: rd.LabelSelector})
		return Observation{Outcome: res.Outcome, Items: res.Items, Scope: scope, Message: res.Message, canonical: true}.withValue()
	}
	res := api.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: rd.Ref})
	o := Observation{Outcome: res.Outcome, Scope: scope, Message: res.Message, canonical: true}
	if res.Outcome == adapters.OK {
		o.Object = res.Object
	}
	return o.withValue()
}

func sameObject(a, b adapters.Ref) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.Namespace == b.Namespace && a.Group() == b.Group()
}

func withStatus(obj, status map[string]any) map[string]any {
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	c["status"] = status
	return c
}

// writeStatus sends the difference between two statuses as one merge patch
// on the status subresource.
func writeStatus(ctx context.Context, api adapters.API, ref adapters.Ref, before, after map[string]any) error {
	patch := map[string]any{"status": jsonvalue.MergeDiff(before, after)}
	res := api.Do(ctx, adapters.Request{Verb: adapters.Patch, Ref: ref, Subresource: "status", PatchType: adapters.MergePatch, Body: patch, FieldManager: "statecraft"})
	switch res.Outcome {
	case adapters.OK, adapters.NotFound:
		return nil
	}
	return fmt.Errorf("write status of %s: %s: %s", ref, res.Outcome, res.Message)
}

func hasRef(m map[adapters.Ref]map[string]any, r adapters.Ref) bool {
	_, ok := m[r]
	return ok
}

// writes reports whether a planned action sends a request that may change
// the cluster.
func writes(pa PlannedAction) bool {
	for _, r := range pa.Requests {
		if r.Verb != adapters.Get && r.Verb != adapters.List && !r.DryRun {
			return true
		}
	}
	return false
}
