package scenario

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
)

// Faults on the simulator (issue 18): a FaultCluster is a Cluster over
// the simulated one that injects the faults of one FaultSchedule into the
// engine's requests, and nothing else's: the world's events, the
// expectations and the runner's own bookkeeping see the store as it is.
//
// A crash stops the engine right after its k-th write (counted over the
// run, status writes included, dry runs not): the write reaches the
// store, every later request of that reconcile fails without being sent
// (the process is gone, and what it decided since is lost with it), and a
// new engine starts at once, as a restarted process does: every pending
// wake-up is forgotten and every driven object is reconciled from what the
// store holds.
//
// Stale reads model the controller's informer cache held behind the API
// server: the engine's reads (a Get or List it makes as its own account,
// which is what the controller's cache serves) see every object as it was
// before the last N writes (each write with every change it made,
// cascades included), and the engine hears of a write (the runner's
// wake-up of the objects it concerns, an informer event) only once it
// becomes visible, and as without faults not of its own: a reconcile's
// writes to its object wake nobody, and its writes to what the object
// controls do not wake the object, however late they become visible (each
// record keeps the reconcile that made it). A write becomes visible after
// N later writes, once the engine has begun N reconciles since, or once
// StaleFor of virtual time has passed (at the runner's next step): an
// informer does catch up, within moments; a lag that lasts would be a
// partition, not a stale cache. So the lag bites where the engine acts fast: the bursts of reconciles and writes
// at one instant that a transition's after = 0s and the wake-ups of owners
// make. The engine's own updates, patches and applies of an
// object its view held are served as written until the view catches up,
// as controller.Cache serves them; its creates and deletes are not, as
// there. A crash empties the lag (a new process lists afresh). At HealAt
// the lag ends: everything becomes visible and later reads are fresh.

// FaultSchedule is what one faulted run injects.
type FaultSchedule struct {
	// CrashAfterWrite crashes the engine after its k-th write (0: never).
	CrashAfterWrite int
	// StaleWrites is N: the engine's reads lag the store by N writes (0:
	// fresh reads).
	StaleWrites int
	// StaleFor bounds how long a write stays invisible (zero: 1s).
	StaleFor time.Duration
	// HealAt ends the stale reads (zero: at the end of the run).
	HealAt time.Time
}

func (s FaultSchedule) String() string {
	var parts []string
	if s.CrashAfterWrite > 0 {
		parts = append(parts, fmt.Sprintf("crash after write %d", s.CrashAfterWrite))
	}
	if s.StaleWrites > 0 {
		parts = append(parts, fmt.Sprintf("reads %d writes stale", s.StaleWrites))
	}
	if len(parts) == 0 {
		return "no faults"
	}
	return strings.Join(parts, ", ")
}

// FaultCluster injects a FaultSchedule into the engine's requests on a
// simulated cluster.
type FaultCluster struct {
	inner *sim.Cluster
	sched FaultSchedule

	inReconcile bool
	current     adapters.Ref // the object being reconciled, while inReconcile
	reconciles  int          // the engine's reconciles so far
	writes      int          // the engine's writes so far
	crashed     bool
	restart     bool

	// Stale reads.
	pending []adapters.Ref           // changes the store reported since the last drain
	last    map[adapters.Ref]version // each object as last recorded
	lag     []lagged                 // the writes not yet visible, oldest first
	overlay map[adapters.Ref]map[string]any
	visible []madeRecord // records the runner may take
	healed  bool

	// Touched are the objects the engine wrote (dry runs not).
	Touched map[adapters.Ref]bool
	// Writes are the engine's writes (dry runs not), in order: write k of
	// a crash schedule is Writes[k-1].
	Writes []adapters.Request
	// Stats counts the faults injected.
	Stats FaultStats
}

// FaultStats counts what a FaultCluster injected.
type FaultStats struct {
	Writes     int // the engine's writes that reached the store
	Crashes    int // engine crashes
	Dropped    int // requests a crashed engine did not send
	StaleReads int // engine reads answered from a lagged view that differed from the store
}

type version struct {
	obj map[string]any
	ok  bool
}

type change struct {
	ref    adapters.Ref
	before version
}

// lagged is one write not yet visible to the engine: the changes it made
// (with each object as it was before) and its records.
type lagged struct {
	changes []change
	records []madeRecord
	at      int       // the engine's reconciles when it was made
	when    time.Time // the virtual time it was made
}

var _ Stager = (*FaultCluster)(nil)

// NewFaultCluster wraps inner with the faults of sched. Use it from
// Options.Cluster.
func NewFaultCluster(inner *sim.Cluster, sched FaultSchedule) *FaultCluster {
	f := &FaultCluster{inner: inner, sched: sched, last: map[adapters.Ref]version{},
		overlay: map[adapters.Ref]map[string]any{}, Touched: map[adapters.Ref]bool{}}
	if sched.StaleWrites > 0 {
		inner.OnChange(func(ch sim.Change) { f.pending = append(f.pending, ch.Ref) })
	}
	return f
}

// The runner tells a FaultCluster when the engine reconciles (see
// reconcileHooks in run.go).
func (f *FaultCluster) beginReconcile(ref adapters.Ref) {
	f.inReconcile, f.current = true, ref
	f.reconciles++
	f.catchUp()
}

// catchUp makes visible the writes that have been invisible for N
// reconciles or for StaleFor.
func (f *FaultCluster) catchUp() {
	staleFor := f.staleFor()
	now := f.inner.Clock().Now()
	for len(f.lag) > 0 && (f.reconciles-f.lag[0].at > f.sched.StaleWrites || !now.Before(f.lag[0].when.Add(staleFor))) {
		f.visible = append(f.visible, f.lag[0].records...)
		f.lag = f.lag[1:]
	}
}

func (f *FaultCluster) endReconcile() bool {
	f.inReconcile, f.current = false, adapters.Ref{}
	if !f.restart {
		return false
	}
	f.restart, f.crashed = false, false
	// A new process: its informers list afresh.
	f.releaseAll()
	clear(f.overlay)
	return true
}

func isWrite(req adapters.Request) bool {
	switch req.Verb {
	case adapters.Get, adapters.List:
		return false
	}
	return true
}

// Do implements adapters.API.
func (f *FaultCluster) Do(ctx context.Context, req adapters.Request) adapters.Result {
	if f.inReconcile && f.crashed {
		f.Stats.Dropped++
		return adapters.Result{Outcome: adapters.Transient, Message: "not sent: the engine crashed"}
	}
	f.heal()
	if f.inReconcile && f.stale() && !isWrite(req) && req.Identity == "" && req.Subresource == "" {
		return f.staleRead(ctx, req)
	}
	held := false
	if f.inReconcile && f.stale() && isWrite(req) {
		_, held = f.view(req.Ref)
	}
	res := f.inner.Do(ctx, req)
	if f.inReconcile && isWrite(req) && !req.DryRun {
		f.Touched[req.Ref] = true
		f.Writes = append(f.Writes, req)
		f.writes++
		if res.Outcome == adapters.OK {
			f.Stats.Writes++
		}
		if f.writes == f.sched.CrashAfterWrite {
			f.crashed, f.restart = true, true
			f.Stats.Crashes++
		}
		if f.stale() && res.Outcome == adapters.OK {
			switch {
			case req.Verb == adapters.Delete:
				delete(f.overlay, req.Ref)
			case req.Verb != adapters.Create && held && res.Object != nil:
				f.overlay[req.Ref] = res.Object
			}
		}
	}
	f.drainServed()
	return res
}

func (f *FaultCluster) stale() bool { return f.sched.StaleWrites > 0 && !f.healed }

// heal ends the stale reads once HealAt has come, and makes visible what
// has been invisible long enough.
func (f *FaultCluster) heal() {
	if f.stale() {
		f.catchUp()
	}
	if f.stale() && !f.sched.HealAt.IsZero() && !f.inner.Clock().Now().Before(f.sched.HealAt) {
		f.healed = true
		f.releaseAll()
		clear(f.overlay)
	}
}

// drain records the changes the store made since the last drain as one
// write (with the records of its requests) and makes the oldest visible
// beyond N.
func (f *FaultCluster) drain() { f.drainRecords(false) }

// drainServed is drain right after the inner cluster served a request: its
// record is the last one, and during a reconcile it is that reconcile's.
// The records before it are its simulated controllers' (the garbage
// collector acts before the first request served once it is due), made in
// no reconcile.
func (f *FaultCluster) drainServed() { f.drainRecords(f.inReconcile) }

func (f *FaultCluster) drainRecords(served bool) {
	taken := f.inner.TakeRecords()
	recs := make([]madeRecord, len(taken))
	for i, r := range taken {
		recs[i] = madeRecord{Record: r}
	}
	if served && len(recs) > 0 {
		recs[len(recs)-1].by = f.current
	}
	if !f.stale() {
		f.visible = append(f.visible, recs...)
		f.pending = f.pending[:0]
		return
	}
	e := lagged{at: f.reconciles, when: f.inner.Clock().Now()}
	for _, r := range recs {
		if r.IsWrite() && r.Outcome == adapters.OK && !r.DryRun {
			e.records = append(e.records, r)
		} else {
			f.visible = append(f.visible, r) // reads and failures wake nothing
		}
	}
	for _, ref := range f.pending {
		cur, ok := f.inner.Object(ref)
		e.changes = append(e.changes, change{ref: ref, before: f.last[ref]})
		f.last[ref] = version{cur, ok}
	}
	f.pending = f.pending[:0]
	if len(e.changes) == 0 {
		f.visible = append(f.visible, e.records...)
		return
	}
	f.lag = append(f.lag, e)
	for len(f.lag) > f.sched.StaleWrites {
		f.visible = append(f.visible, f.lag[0].records...)
		f.lag = f.lag[1:]
	}
}

func (f *FaultCluster) releaseAll() {
	for _, e := range f.lag {
		f.visible = append(f.visible, e.records...)
	}
	f.lag = nil
}

// view is the object ref as the engine's cache holds it: as it was before
// its oldest write not yet visible, else as stored; with the engine's own
// write instead while the view has not caught up with it.
func (f *FaultCluster) view(ref adapters.Ref) (map[string]any, bool) {
	v, lagging := version{}, false
	for _, e := range f.lag {
		for _, c := range e.changes {
			if c.ref == ref {
				v, lagging = c.before, true
				break
			}
		}
		if lagging {
			break
		}
	}
	if !lagging {
		v.obj, v.ok = f.inner.Object(ref)
	}
	if !v.ok {
		return nil, false
	}
	if w, ok := f.overlay[ref]; ok {
		if newer(w, v.obj) {
			return w, true
		}
		delete(f.overlay, ref)
	}
	return v.obj, true
}

func (f *FaultCluster) lagging(ref adapters.Ref) bool {
	for _, e := range f.lag {
		for _, c := range e.changes {
			if c.ref == ref {
				return true
			}
		}
	}
	return false
}

// newer reports whether a's resourceVersion is after b's (the simulator's
// are increasing integers).
func newer(a, b map[string]any) bool {
	ra, errA := strconv.ParseInt(resourceVersionOf(a), 10, 64)
	rb, errB := strconv.ParseInt(resourceVersionOf(b), 10, 64)
	return errA == nil && errB == nil && ra > rb
}

func resourceVersionOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	rv, _ := md["resourceVersion"].(string)
	return rv
}

// staleRead answers an engine read from the lagged view.
func (f *FaultCluster) staleRead(ctx context.Context, req adapters.Request) adapters.Result {
	res := f.inner.Do(ctx, req) // the fresh answer: classification, scope, and the read's record
	f.drainServed()
	if res.Outcome != adapters.OK && res.Outcome != adapters.NotFound {
		return res
	}
	if req.Verb == adapters.Get {
		if !f.lagging(req.Ref) && len(f.overlay) == 0 {
			return res
		}
		obj, ok := f.view(req.Ref)
		out := adapters.Result{Outcome: adapters.OK, Object: obj}
		if !ok {
			out = adapters.Result{Outcome: adapters.NotFound, Message: notFoundMessage(res, req.Ref)}
		}
		if out.Outcome != res.Outcome || resourceVersionOf(out.Object) != resourceVersionOf(res.Object) {
			f.Stats.StaleReads++
		}
		return out
	}
	sel, err := labels.Parse(req.LabelSelector)
	if err != nil {
		return res
	}
	byRef := map[adapters.Ref]map[string]any{}
	for _, it := range res.Items {
		byRef[sim.RefOf(it)] = it
	}
	changed := false
	consider := func(ref adapters.Ref) {
		if ref.APIVersion != req.Ref.APIVersion || ref.Kind != req.Ref.Kind ||
			req.Ref.Namespace != "" && ref.Namespace != req.Ref.Namespace {
			return
		}
		cur, had := byRef[ref]
		obj, ok := f.view(ref)
		if ok && !sel.Matches(labels.Set(labelsOf(obj))) {
			ok = false
		}
		switch {
		case ok:
			byRef[ref] = obj
			changed = changed || !had || resourceVersionOf(cur) != resourceVersionOf(obj)
		case had:
			delete(byRef, ref)
			changed = true
		}
	}
	for _, e := range f.lag {
		for _, c := range e.changes {
			consider(c.ref)
		}
	}
	for ref := range f.overlay {
		consider(ref)
	}
	if !changed {
		return res
	}
	f.Stats.StaleReads++
	refs := make([]adapters.Ref, 0, len(byRef))
	for ref := range byRef {
		refs = append(refs, ref)
	}
	sort.Slice(refs, func(i, j int) bool {
		if refs[i].Namespace != refs[j].Namespace {
			return refs[i].Namespace < refs[j].Namespace
		}
		return refs[i].Name < refs[j].Name
	})
	items := make([]map[string]any, len(refs))
	for i, ref := range refs {
		items[i] = byRef[ref]
	}
	return adapters.Result{Outcome: adapters.OK, Items: items}
}

func labelsOf(obj map[string]any) map[string]string {
	md, _ := obj["metadata"].(map[string]any)
	ls, _ := md["labels"].(map[string]any)
	out := make(map[string]string, len(ls))
	for k, v := range ls {
		out[k], _ = v.(string)
	}
	return out
}

// notFoundMessage is the simulator's message for a missing ref: the one it
// gave, else one in its words.
func notFoundMessage(res adapters.Result, ref adapters.Ref) string {
	if res.Outcome == adapters.NotFound {
		return res.Message
	}
	return fmt.Sprintf("%ss %q not found", strings.ToLower(ref.Kind), ref.Name)
}

// Scope implements adapters.API.
func (f *FaultCluster) Scope(ctx context.Context, apiVersion, kind string) adapters.Scope {
	if f.inReconcile && f.crashed {
		return adapters.Unknown
	}
	return f.inner.Scope(ctx, apiVersion, kind)
}

// TakeRecords returns the records of the requests served since the last
// call; with stale reads, a write's only once the engine can see it.
func (f *FaultCluster) TakeRecords() []sim.Record {
	made := f.takeRecords()
	out := make([]sim.Record, len(made))
	for i, r := range made {
		out[i] = r.Record
	}
	return out
}

// takeRecords is TakeRecords with the object whose reconcile made each
// request (see madeRecord).
func (f *FaultCluster) takeRecords() []madeRecord {
	f.heal()
	f.drain()
	out := f.visible
	f.visible = nil
	return out
}

// Object implements Cluster: the store as it is.
func (f *FaultCluster) Object(ref adapters.Ref) (map[string]any, bool) { return f.inner.Object(ref) }

// Objects implements Cluster: the store as it is.
func (f *FaultCluster) Objects(apiVersion, kind string) []map[string]any {
	return f.inner.Objects(apiVersion, kind)
}

// Apply implements Cluster: staged objects are visible at once (the
// engine's first list sees them).
func (f *FaultCluster) Apply(obj map[string]any) error {
	err := f.inner.Apply(obj)
	for _, ref := range f.pending {
		cur, ok := f.inner.Object(ref)
		f.last[ref] = version{cur, ok}
	}
	f.pending = f.pending[:0]
	return err
}

// RegisterKind implements Cluster.
func (f *FaultCluster) RegisterKind(apiVersion, kind string, scope adapters.Scope, opts sim.KindOptions) {
	f.inner.RegisterKind(apiVersion, kind, scope, opts)
}

// Deny implements Stager.
func (f *FaultCluster) Deny(identity string, verb adapters.Verb, apiVersion, kind string, status sim.DenyStatus) {
	f.inner.Deny(identity, verb, apiVersion, kind, status)
}

// ClearDenials implements Stager.
func (f *FaultCluster) ClearDenials() { f.inner.ClearDenials() }

// InjectFault implements Stager.
func (f *FaultCluster) InjectFault(fl sim.Fault) { f.inner.InjectFault(fl) }

// ClearFaults implements Stager.
func (f *FaultCluster) ClearFaults() { f.inner.ClearFaults() }

// AddAdmission implements Stager.
func (f *FaultCluster) AddAdmission(a sim.Admission) { f.inner.AddAdmission(a) }

// ClearAdmissions implements Stager.
func (f *FaultCluster) ClearAdmissions() { f.inner.ClearAdmissions() }

// reconcileHooks is a Cluster that is told when the engine reconciles an
// object (FaultCluster: the engine's requests are the ones made in
// between); endReconcile returning true means the engine crashed in it,
// and the runner restarts it.
type reconcileHooks interface {
	beginReconcile(ref adapters.Ref)
	endReconcile() (restart bool)
	// takeRecords is TakeRecords with the object whose reconcile made
	// each request: the runner cannot tell it from when it takes a
	// record, which may be long after (stale reads).
	takeRecords() []madeRecord
	// nextVisible is when a write the engine cannot see yet becomes
	// visible (ok false: none is waiting).
	nextVisible() (at time.Time, ok bool)
}

// madeRecord is a served request with the object whose reconcile made it
// (zero: made in none, as the world's requests). The runner wakes nobody
// for a write by an object's own reconcile to itself, nor the object for
// its own writes to what it controls (flush); with stale reads a write
// reaches the runner only once visible, in another reconcile or in none,
// so the record carries who made it.
type madeRecord struct {
	sim.Record
	by adapters.Ref
}

// wakeFor makes the runner take a step when the next lagged write becomes
// visible, so that the engine hears of it then (an informer event) rather
// than at whatever happens next.
func (r *runner) wakeFor(h reconcileHooks) {
	at, ok := h.nextVisible()
	if !ok || !at.After(r.clock.Now()) || !at.After(r.visibleWake) {
		return
	}
	r.visibleWake = at
	r.push(item{at: at, kind: itemEvent, event: &Event{At: at.Sub(r.s.Start)}})
}

func (f *FaultCluster) nextVisible() (time.Time, bool) {
	if !f.stale() || len(f.lag) == 0 {
		return time.Time{}, false
	}
	return f.lag[0].when.Add(f.staleFor()), true
}

func (f *FaultCluster) staleFor() time.Duration {
	if f.sched.StaleFor == 0 {
		return time.Second
	}
	return f.sched.StaleFor
}
