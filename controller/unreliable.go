package controller

import (
	"context"
	"sync/atomic"

	"github.com/statecraft/statecraft/adapters"
)

// A reconcile is unreliable when discovery failed while it ran: a kind it
// looked up may exist although its scope came back Unknown, and a machine
// would take that for an unsupported kind (the ObjectPatch policy ends in
// the final Error/UnsupportedTarget). Such a reconcile sends no write, its
// status included, records no Event, and is retried with the queue's
// backoff: a transient failure must not decide anything.

type unreliableKey struct{}

// withReliability returns a context that carries a flag the reconcile's
// lookups set when discovery fails, and that flag.
func withReliability(ctx context.Context) (context.Context, *atomic.Bool) {
	flag := new(atomic.Bool)
	return context.WithValue(ctx, unreliableKey{}, flag), flag
}

func markUnreliable(ctx context.Context) {
	if flag, ok := ctx.Value(unreliableKey{}).(*atomic.Bool); ok {
		flag.Store(true)
	}
}

func unreliable(ctx context.Context) bool {
	flag, ok := ctx.Value(unreliableKey{}).(*atomic.Bool)
	return ok && flag.Load()
}

// guarded refuses the writes of an unreliable reconcile without sending
// them.
type guarded struct {
	adapters.API
}

func (g guarded) Do(ctx context.Context, req adapters.Request) adapters.Result {
	if req.Verb != adapters.Get && req.Verb != adapters.List && unreliable(ctx) {
		return adapters.Result{Outcome: adapters.Transient,
			Message: "not sent: API discovery failed during this reconcile, so what it observed may be wrong; retrying"}
	}
	return g.API.Do(ctx, req)
}
