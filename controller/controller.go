package controller

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// Options configure a Controller.
type Options struct {
	// Workers is the number of objects reconciled concurrently (default 4).
	Workers int
	// Resync is the informers' resync period (default 10h: wake-ups, not
	// resyncs, drive polling).
	Resync time.Duration
	// Shard and Shards split the driven objects across replicas by a hash
	// of namespace/name: this replica takes the objects whose hash mod
	// Shards is Shard. Shards 0 or 1 takes every object.
	Shard, Shards int
	// Namespace, when set, limits the driven objects to one namespace.
	Namespace string
	// Events, when set, records an Event for each transition.
	Events *kube.Events
	// Logger receives one line per transition and problem; nil discards.
	Logger *slog.Logger
	// Now is the clock (default time.Now).
	Now func() time.Time
	// Shadow, when set, turns on shadow mode: every write is sent as a
	// server-side dry run (so the server still validates it) and described
	// on Shadow, status is not written, no Event is recorded and no wake-up
	// is scheduled. The controller decides for every object and changes
	// nothing. Lines are written whole and one at a time: Shadow need not
	// be safe for concurrent use.
	Shadow io.Writer
	// DecisionRecords, when above zero, keeps on each driven object its
	// last DecisionRecords decisions with the clause values that decided
	// them, in the annotation DecisionAnnotation (see decisions.go); not
	// in shadow mode.
	DecisionRecords int
	// Observer, when set, sees every reconcile: its steps, transitions,
	// problems, requests and end (a flight recorder, package record).
	Observer Observer
}

// Controller drives every object of the kinds its machines bind.
type Controller struct {
	opts     Options
	client   *kube.Client
	cache    *Cache
	api      adapters.API // the cache, counted, and guarded in shadow mode
	shadow   *shadow      // in shadow mode, the writer of every shadow line
	metrics  *Metrics
	machines map[schema.GroupVersionKind]*fsm.Machine
	queue    workqueue.TypedRateLimitingInterface[adapters.Ref]

	reconciles atomic.Int64
	failures   atomic.Int64
	synced     atomic.Bool
	leading    atomic.Bool  // RunElected holds the Lease
	busy       atomic.Int64 // reconciles in progress
}

// New returns a controller for machines over client.
func New(client *kube.Client, machines []*fsm.Machine, opts Options) (*Controller, error) {
	if opts.Workers <= 0 {
		opts.Workers = 4
	}
	if opts.Resync <= 0 {
		opts.Resync = 10 * time.Hour
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Controller{
		opts: opts, client: client,
		machines: map[schema.GroupVersionKind]*fsm.Machine{},
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(
			workqueue.DefaultTypedControllerRateLimiter[adapters.Ref](),
			workqueue.TypedRateLimitingQueueConfig[adapters.Ref]{Name: "statecraft", MetricsProvider: queueMetricsProvider{}}),
	}
	for _, m := range machines {
		for _, r := range m.Resources {
			gv, err := schema.ParseGroupVersion(r.APIVersion)
			if err != nil {
				return nil, err
			}
			gvk := gv.WithKind(r.Kind)
			if prev, ok := c.machines[gvk]; ok {
				return nil, fmt.Errorf("kind %s is bound by machines %s and %s", gvk, prev.Name, m.Name)
			}
			c.machines[gvk] = m
		}
	}
	c.cache = NewCache(client, opts.Resync, opts.Now, c.onChange)
	c.cache.SharedReads = true // the engine only reads what it is given
	if len(machines) > 0 && machines[0].Memory.Frozen() != nil {
		c.cache.Frozen = machines[0].Memory.Frozen()
	}
	c.metrics = newMetrics(c.queue.Len)
	c.api = guarded{counted{API: c.cache, m: c.metrics}}
	if opts.Shadow != nil {
		c.shadow = &shadow{API: c.api, log: opts.Shadow}
		c.api = c.shadow
	}
	return c, nil
}

// API is the adapters.API the controller's reconciles use.
func (c *Controller) API() adapters.API { return c.api }

// Metrics returns the controller's Prometheus metrics.
func (c *Controller) Metrics() *Metrics { return c.metrics }

// Synced reports whether the informers of every driven kind have synced.
func (c *Controller) Synced() bool { return c.synced.Load() }

// Stats reports how many reconciles ran and how many failed.
func (c *Controller) Stats() (reconciles, failures int64) {
	return c.reconciles.Load(), c.failures.Load()
}

// Idle reports whether the informers synced and nothing is queued or being
// reconciled (delayed wake-ups do not count).
func (c *Controller) Idle() bool {
	return c.synced.Load() && c.queue.Len() == 0 && c.busy.Load() == 0
}

// QueueLen is the number of objects waiting to be reconciled now.
func (c *Controller) QueueLen() int { return c.queue.Len() }

// Run starts the informers of the driven kinds, waits for them to sync, and
// reconciles until ctx ends.
func (c *Controller) Run(ctx context.Context) error {
	defer c.queue.ShutDown()
	defer c.cache.Stop()
	for gvk := range c.machines {
		if err := c.cache.Watch(ctx, gvk.GroupVersion().String(), gvk.Kind); err != nil {
			return fmt.Errorf("watch %s: %w", gvk, err)
		}
	}
	c.synced.Store(true)
	var wg sync.WaitGroup
	for i := 0; i < c.opts.Workers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for c.next(ctx) {
			}
		}()
	}
	idle := time.NewTicker(time.Minute)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			c.queue.ShutDown()
			wg.Wait()
			return nil
		case <-idle.C:
			c.cache.StopIdle()
		}
	}
}

func (c *Controller) owns(ref adapters.Ref) bool {
	if c.opts.Namespace != "" && ref.Namespace != c.opts.Namespace {
		return false
	}
	if c.opts.Shards <= 1 {
		return true
	}
	h := fnv.New32a()
	h.Write([]byte(ref.Namespace + "/" + ref.Name))
	return int(h.Sum32()%uint32(c.opts.Shards)) == c.opts.Shard
}

// onChange turns informer events into queue entries: a driven object when
// someone else changed it (not for its status alone, which this controller
// writes), and the driven controller owner of any changed object. An
// update that keeps the resourceVersion changed nothing: an informer's
// resync, or its list after a broken watch, hands every object it holds
// again, and owners woken by those would be reconciled without cause.
func (c *Controller) onChange(gvk schema.GroupVersionKind, old, obj *unstructured.Unstructured) {
	if old != nil && obj != nil && old.GetResourceVersion() == obj.GetResourceVersion() {
		return
	}
	cur := obj
	if cur == nil {
		cur = old
	}
	if _, driven := c.machines[gvk]; driven && obj != nil && (old == nil || changedBeyondStatus(old, obj)) {
		c.enqueue(refOf(obj))
	}
	if md, _ := cur.Object["metadata"].(map[string]any); md["ownerReferences"] == nil {
		return // most objects: no owner to look up (GetOwnerReferences copies them)
	}
	for _, o := range cur.GetOwnerReferences() {
		if o.Controller == nil || !*o.Controller {
			continue
		}
		gv, err := schema.ParseGroupVersion(o.APIVersion)
		if err != nil {
			continue
		}
		m, driven := c.machines[gv.WithKind(o.Kind)]
		if !driven {
			continue
		}
		owner := adapters.Ref{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name}
		for _, r := range m.Resources {
			if r.Kind == o.Kind && r.Scope == string(adapters.Namespaced) {
				owner.Namespace = cur.GetNamespace()
			}
		}
		c.enqueue(owner)
	}
}

func changedBeyondStatus(old, obj *unstructured.Unstructured) bool {
	if old.GetGeneration() != obj.GetGeneration() || obj.GetDeletionTimestamp() != nil && old.GetDeletionTimestamp() == nil {
		return true
	}
	// Labels and annotations compared as decoded (the API server keeps
	// them maps of strings), without the copies GetLabels and
	// GetAnnotations make.
	om, _ := old.Object["metadata"].(map[string]any)
	nm, _ := obj.Object["metadata"].(map[string]any)
	return !deepEqual(om["labels"], nm["labels"]) || !annotationsEqual(om["annotations"], nm["annotations"]) ||
		!deepEqual(old.Object["spec"], obj.Object["spec"])
}

// annotationsEqual compares two objects' annotations but for the decision
// records the controller keeps itself (DecisionAnnotation).
func annotationsEqual(a, b any) bool {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	_, ad := am[DecisionAnnotation]
	_, bd := bm[DecisionAnnotation]
	if !ad && !bd {
		return deepEqual(a, b)
	}
	strip := func(m map[string]any) map[string]any {
		out := make(map[string]any, len(m))
		for k, v := range m {
			if k != DecisionAnnotation {
				out[k] = v
			}
		}
		return out
	}
	return deepEqual(strip(am), strip(bm))
}

// deepEqual is reflect.DeepEqual for decoded JSON values, without the
// allocations reflect.DeepEqual makes for every map it compares.
func deepEqual(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for k, xv := range x {
			if yv, ok := y[k]; !ok || !deepEqual(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) || (x == nil) != (y == nil) {
			return false
		}
		for i := range x {
			if !deepEqual(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case nil:
		return b == nil
	}
	return reflect.DeepEqual(a, b)
}

func refOf(u *unstructured.Unstructured) adapters.Ref {
	return adapters.Ref{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

func (c *Controller) enqueue(ref adapters.Ref) {
	if c.owns(ref) {
		c.queue.Add(ref)
	}
}

func (c *Controller) next(ctx context.Context) bool {
	ref, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	c.busy.Add(1)
	defer c.busy.Add(-1)
	defer c.queue.Done(ref)
	gv, _ := schema.ParseGroupVersion(ref.APIVersion)
	m := c.machines[gv.WithKind(ref.Kind)]
	if m == nil {
		c.queue.Forget(ref)
		return true
	}
	now := c.opts.Now()
	c.reconciles.Add(1)
	c.metrics.woke(ref, now)
	rctx, unsure := withReliability(ctx)
	obs, api, tr := c.observe(m, ref, now, &tracer{c: c, ref: ref, machine: m.Name, unsure: unsure})
	rep, err := engine.Reconcile(rctx, m, api, ref, now, tr)
	if err == nil && unsure.Load() {
		err = fmt.Errorf("API discovery failed during the reconcile; nothing was written")
	}
	if obs != nil {
		// After the object is queued again: what observers do (writing
		// decision records) does not delay its wake-up.
		rep.Err = err
		defer obs.Done(rep)
	}
	if err != nil {
		c.failures.Add(1)
		c.metrics.reconciles.WithLabelValues(m.Name, "error").Inc()
		c.opts.Logger.Warn("reconcile failed; retrying", "object", ref.String(), "error", err)
		c.queue.AddRateLimited(ref)
		return true
	}
	c.metrics.reconciles.WithLabelValues(m.Name, "ok").Inc()
	c.queue.Forget(ref)
	if !rep.Wake.IsZero() && c.opts.Shadow == nil {
		c.metrics.wakeAt(ref, rep.Wake)
		c.queue.AddAfter(ref, rep.Wake.Sub(now))
	}
	return true
}

// tracer logs transitions and problems and records them as Events on the
// object: a Warning for a problem or a failed action, Normal otherwise. A
// transition that stays in its state without a request (a periodic check)
// records nothing. Each Event names the clauses that decided the
// transition, so the object's Events are its decision record (bounded by
// the API server's Event retention).
type tracer struct {
	c       *Controller
	ref     adapters.Ref
	machine string
	unsure  *atomic.Bool // the reconcile is unreliable: record no Event
	// because holds the deciding clauses of the transition the last step
	// chose.
	because string
}

// Step implements engine.StepTracer: when a step fires a transition that an
// Event will record, it evaluates that transition's guard clause by clause
// (a few times the cost of the step, paid on transitions only, never on a
// check that finds nothing to do).
func (t *tracer) Step(_ time.Time, _ adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	t.because = ""
	if d.Transition == nil || d.Transition.When == nil || t.c.opts.Shadow != nil || t.c.opts.Events == nil {
		return
	}
	for _, w := range engine.Explain(m, snap, d) {
		if !w.Fired {
			continue
		}
		var parts []string
		for _, cl := range w.Clauses {
			if len(parts) == 4 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, cl.Text+" = "+cl.Value)
		}
		t.because = strings.Join(parts, ", ")
	}
}

func (t *tracer) Transition(_ time.Time, obj adapters.Ref, r *engine.Result) {
	t.c.opts.Logger.Info("transition", "object", obj.String(), "from", r.From, "to", r.To, "by", r.Transition, "reason", r.Reason)
	t.c.metrics.transitions.WithLabelValues(t.machine, r.From, r.To, r.Reason).Inc()
	if t.c.opts.Shadow != nil {
		t.c.shadow.say("%s: %s → %s by %q reason %s\n", obj, r.From, r.To, r.Transition, r.Reason)
		return
	}
	if r.Reason == "" || (r.From == r.To && r.Last == nil) {
		return
	}
	typ := kube.EventNormal
	if r.Last != nil && r.Last.Outcome != string(adapters.OK) {
		typ = kube.EventWarning
	}
	msg := fmt.Sprintf("%s → %s by %q", r.From, r.To, r.Transition)
	if t.because != "" {
		msg += " because " + t.because
	}
	if r.Message != "" {
		msg += ": " + r.Message
	}
	t.event(obj, typ, r.Reason, msg)
}

func (t *tracer) Problem(_ time.Time, obj adapters.Ref, p *engine.Problem) {
	t.c.opts.Logger.Warn("problem", "object", obj.String(), "reason", p.Reason, "message", p.Message)
	if t.c.opts.Shadow != nil {
		t.c.shadow.say("%s: problem %s: %s\n", obj, p.Reason, p.Message)
		return
	}
	t.event(obj, kube.EventWarning, p.Reason, p.Message)
}

func (t *tracer) event(obj adapters.Ref, typ, reason, msg string) {
	if t.c.opts.Events == nil || t.unsure != nil && t.unsure.Load() {
		return
	}
	ctx := context.Background()
	got := t.c.cache.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: obj})
	if got.Outcome != adapters.OK {
		return
	}
	if res := t.c.opts.Events.Record(ctx, got.Object, typ, reason, msg); res.Outcome != adapters.OK {
		t.c.opts.Logger.Warn("event not recorded", "object", obj.String(), "reason", reason, "outcome", res.Outcome, "message", res.Message)
	}
}
