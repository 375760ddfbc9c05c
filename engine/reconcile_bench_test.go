package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
)

// BenchmarkReconcile measures one whole reconcile of an ObjectPatch (get,
// observe, step, the actions' requests, route, status write) without the
// cost of an API: each case's requests were made once on a simulated
// cluster and their results are replayed, in order, on every iteration.
// Applied/recheck is the hot path (a converged object looked at again);
// Pending/target-present fires apply and writes status; Applied/drifted
// finds drift. The machine and the cluster share a registry of frozen
// values, and the cluster hands out objects without managedFields, as in a
// simulation run (scenario.Run); each case is recorded on a cluster of its
// own, so that the objects it read are still frozen. Run it as
//
//	go test ./engine -run '^$' -bench 'Reconcile' -benchmem
func BenchmarkReconcile(b *testing.B) {
	for _, tc := range reconcileCases(b) {
		m := tc.m
		b.Run(tc.name, func(b *testing.B) {
			api := &replayAPI{log: tc.log, scopes: tc.scopes}
			ctx := b.Context()
			b.ReportAllocs()
			for b.Loop() {
				api.next, api.err = 0, nil
				rep, err := engine.Reconcile(ctx, m, api, tc.ref, tc.now, nil)
				if err != nil || api.err != nil || api.next != len(tc.log) || len(rep.Transitions) != tc.fired {
					b.Fatalf("replay diverged: err %v, replay %v, %d of %d requests, %d transitions (recorded %d)", err, api.err, api.next, len(tc.log), len(rep.Transitions), tc.fired)
				}
			}
		})
	}
}

// reconcileCase is one recorded reconcile.
type reconcileCase struct {
	name   string
	m      *fsm.Machine
	ref    adapters.Ref
	now    time.Time
	log    []exchange
	scopes map[[2]string]adapters.Scope
	fired  int
}

type exchange struct {
	req adapters.Request
	res adapters.Result
}

// recordingAPI records what it forwards to api.
type recordingAPI struct {
	api    adapters.API
	log    []exchange
	scopes map[[2]string]adapters.Scope
}

func (r *recordingAPI) Do(ctx context.Context, req adapters.Request) adapters.Result {
	res := r.api.Do(ctx, req)
	r.log = append(r.log, exchange{req, res})
	return res
}

func (r *recordingAPI) Scope(ctx context.Context, apiVersion, kind string) adapters.Scope {
	s := r.api.Scope(ctx, apiVersion, kind)
	r.scopes[[2]string{apiVersion, kind}] = s
	return s
}

// replayAPI answers the requests of a recorded reconcile in order; a
// request that is not the next recorded one is an error.
type replayAPI struct {
	log    []exchange
	scopes map[[2]string]adapters.Scope
	next   int
	err    error
}

func (p *replayAPI) Do(_ context.Context, req adapters.Request) adapters.Result {
	if p.next >= len(p.log) || p.log[p.next].req.Verb != req.Verb || p.log[p.next].req.Ref != req.Ref {
		p.err = fmt.Errorf("request %d: %s %s not recorded", p.next, req.Verb, req.Ref)
		return adapters.Result{Outcome: adapters.Transient, Message: p.err.Error()}
	}
	res := p.log[p.next].res
	p.next++
	return res
}

func (p *replayAPI) Scope(_ context.Context, apiVersion, kind string) adapters.Scope {
	return p.scopes[[2]string{apiVersion, kind}]
}

// reconcileCaseNames are the cases of BenchmarkReconcile, in the order
// reconcileCase stages them.
var reconcileCaseNames = []string{
	"Pending/target-missing",
	"Pending/target-present",
	"Applied/recheck",
	"Applied/recheck-100-patches-in-namespace",
	"Applied/drifted",
}

func reconcileCases(tb testing.TB) []reconcileCase {
	tb.Helper()
	var out []reconcileCase
	for _, name := range reconcileCaseNames {
		out = append(out, reconcileCaseNamed(tb, name))
	}
	return out
}

// reconcileCaseNamed stages the README's example on a simulated cluster,
// as benchCases does, and records the reconcile named want. Each case has
// its cluster and machine: what it recorded is what a reader got then (a
// later write would take the objects read out of the frozen registry).
func reconcileCaseNamed(tb testing.TB, want string) reconcileCase {
	tb.Helper()
	ctx := tb.Context()
	m := benchMachineIn(tb, fsm.NewMemory(jsonvalue.NewRegistry()))
	clock := sim.NewClock(benchT0)
	c := sim.New(clock, sim.WithSharedReads(m.Memory.Frozen()), sim.WithoutManagedFields())
	for _, r := range m.Resources {
		c.RegisterKind(r.APIVersion, r.Kind, adapters.Scope(r.Scope), sim.KindOptions{HasStatus: true})
	}
	for _, o := range []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "patches-demo"}},
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "crowded"}},
		benchObjectPatch(),
	} {
		if err := c.Apply(o); err != nil {
			tb.Fatal(err)
		}
	}
	var got *reconcileCase
	// record reconciles ref, and reports whether that was the case wanted.
	record := func(name string, ref adapters.Ref) bool {
		rec := &recordingAPI{api: c, scopes: map[[2]string]adapters.Scope{}}
		rep, err := engine.Reconcile(ctx, m, rec, ref, clock.Now(), nil)
		if err != nil {
			tb.Fatal(err)
		}
		if name == want {
			got = &reconcileCase{name: name, m: m, ref: ref, now: clock.Now(), log: rec.log, scopes: rec.scopes, fired: len(rep.Transitions)}
		}
		return got != nil
	}

	// The target does not exist yet: Pending, TargetNotFound.
	record("", benchPatchRef)
	clock.Set(benchT0.Add(5 * time.Minute))
	if record("Pending/target-missing", benchPatchRef) {
		return *got
	}
	// The target appears: apply, Applied.
	clock.Set(benchT0.Add(12 * time.Minute))
	if err := c.Apply(benchDeployment()); err != nil {
		tb.Fatal(err)
	}
	clock.Set(benchT0.Add(15 * time.Minute))
	if record("Pending/target-present", benchPatchRef) {
		return *got
	}
	clock.Set(benchT0.Add(20 * time.Minute))
	if record("Applied/recheck", benchPatchRef) {
		return *got
	}

	// The same Applied patch in a namespace it shares with 99 others.
	crowded := applyCrowded(tb, c)
	record("", crowded)
	record("", crowded)
	clock.Set(benchT0.Add(25 * time.Minute))
	if record("Applied/recheck-100-patches-in-namespace", crowded) {
		return *got
	}

	// Another actor drifts the label.
	res := c.Do(ctx, adapters.Request{Verb: adapters.Patch, Ref: benchTargetRef, PatchType: adapters.MergePatch, FieldManager: "someone-else",
		Body: map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "someone-else"}}}})
	if res.Outcome != adapters.OK {
		tb.Fatalf("drift the target: %s: %s", res.Outcome, res.Message)
	}
	clock.Set(benchT0.Add(30 * time.Minute))
	if record("Applied/drifted", benchPatchRef) {
		return *got
	}
	tb.Fatalf("no reconcile case %q", want)
	return reconcileCase{}
}
