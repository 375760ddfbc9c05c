package kubeworld

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/scenario"
)

// World is a scenario.Cluster over a real API server.
type World struct {
	api   adapters.API
	clock *sim.Clock

	mu      sync.Mutex
	records []sim.Record
}

var _ scenario.Cluster = (*World)(nil)

// New returns a World that sends requests through api (an adapters/kube
// Client) and stamps them with clock.
func New(api adapters.API, clock *sim.Clock) *World {
	return &World{api: api, clock: clock}
}

// Do carries a request out and logs it.
func (w *World) Do(ctx context.Context, req adapters.Request) adapters.Result {
	res := w.api.Do(ctx, req)
	rec := sim.Record{Time: w.clock.Now(), Verb: req.Verb, Ref: req.Ref, Subresource: req.Subresource,
		PatchType: req.PatchType, DryRun: req.DryRun, Identity: req.Identity, FieldManager: req.FieldManager,
		Outcome: res.Outcome}
	if res.Outcome != adapters.OK {
		rec.Message = res.Message
	}
	w.mu.Lock()
	w.records = append(w.records, rec)
	w.mu.Unlock()
	return res
}

// Scope asks the server's discovery.
func (w *World) Scope(ctx context.Context, apiVersion, kind string) adapters.Scope {
	return w.api.Scope(ctx, apiVersion, kind)
}

// TakeRecords returns the requests logged since the last call.
func (w *World) TakeRecords() []sim.Record {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.records
	w.records = nil
	return out
}

// Object reads an object from the server without logging the read.
func (w *World) Object(ref adapters.Ref) (map[string]any, bool) {
	res := w.api.Do(context.Background(), adapters.Request{Verb: adapters.Get, Ref: ref})
	return res.Object, res.Outcome == adapters.OK
}

// Objects lists the objects of a kind from the server without logging.
func (w *World) Objects(apiVersion, kind string) []map[string]any {
	res := w.api.Do(context.Background(), adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: apiVersion, Kind: kind}})
	return res.Items
}

// Apply creates (or server-side applies) a starting object, its status, if
// any, through the status subresource, without logging.
func (w *World) Apply(obj map[string]any) error {
	ctx := context.Background()
	ref := sim.RefOf(obj)
	body, err := jsonvalue.Normalize(obj)
	if err != nil {
		return err
	}
	// Server-side apply: a starting object the server already has (a CRD
	// the control plane installed) is simply kept.
	res := w.api.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: ref, Body: body,
		FieldManager: "scenario", Force: true})
	if res.Outcome != adapters.OK {
		return &applyError{ref: ref, res: res}
	}
	if ref.APIVersion == "apiextensions.k8s.io/v1" && ref.Kind == "CustomResourceDefinition" {
		// Staged objects of its kind may follow: a real server serves
		// them once the CRD is Established, a moment later.
		if err := w.established(ctx, ref); err != nil {
			return err
		}
	}
	if _, ok := obj["status"]; ok {
		res = w.api.Do(ctx, adapters.Request{Verb: adapters.Patch, Ref: ref, Subresource: "status", PatchType: adapters.MergePatch, Body: map[string]any{"status": body.(map[string]any)["status"]}})
		if res.Outcome != adapters.OK && res.Outcome != adapters.Unsupported {
			return &applyError{ref: ref, res: res}
		}
	}
	return nil
}

// RegisterKind does nothing: a real server serves the kinds whose CRDs are
// installed.
func (w *World) RegisterKind(string, string, adapters.Scope, sim.KindOptions) {}

type applyError struct {
	ref adapters.Ref
	res adapters.Result
}

func (e *applyError) Error() string {
	return "create " + e.ref.String() + ": " + string(e.res.Outcome) + ": " + e.res.Message
}

// established waits, a bounded wall-clock while, for a staged CRD to be
// Established.
func (w *World) established(ctx context.Context, ref adapters.Ref) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		res := w.api.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref})
		if res.Outcome == adapters.OK {
			st, _ := res.Object["status"].(map[string]any)
			conds, _ := st["conditions"].([]any)
			for _, c := range conds {
				m, _ := c.(map[string]any)
				if m["type"] == "Established" && m["status"] == "True" {
					return nil
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("create %s: not Established after 30s", ref)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
