package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/rules"
)

// Line is one line of a trace.
type Line struct {
	At     time.Duration `json:"at"` // since the scenario's start
	Object string        `json:"object,omitempty"`
	Kind   string        `json:"kind"` // transition, request, world, problem
	Text   string        `json:"text"`
	// From and To are the states of a transition line.
	From string `json:"from,omitempty"`
	To   string `json:"to,omitempty"`
}

// String renders the line with its virtual time.
func (l Line) String() string {
	return Stamp(l.At) + "  " + l.Text
}

// Stamp renders a duration since the start as +DdHH:MM:SS.
func Stamp(d time.Duration) string {
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h := d / time.Hour
	d -= h * time.Hour
	m := d / time.Minute
	d -= m * time.Minute
	s := d / time.Second
	return fmt.Sprintf("+%dd%02d:%02d:%02d", days, h, m, s)
}

// Result is what a run produced.
type Result struct {
	Trace    []Line
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
	// DiscardTrace keeps no trace (for long runs measured by benchmarks).
	DiscardTrace bool
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
}

// Compile loads and compiles the rule files a scenario names: shipped
// policies by name, or paths relative to the scenario file.
func Compile(s *Scenario) ([]*fsm.Machine, hcl.Diagnostics) {
	var files []*rules.File
	var diags hcl.Diagnostics
	for _, r := range s.Rules {
		ref := r
		if p := filepath.Join(s.Dir, r); fileExists(p) {
			ref = p
		}
		f, d := rules.LoadRef(ref)
		diags = append(diags, d...)
		if f != nil {
			diags = append(diags, overrideParams(f, s.Params[r], s.DeclRange)...)
			files = append(files, f)
		}
	}
	if diags.HasErrors() {
		return nil, diags
	}
	ms, d := fsm.Compile(files...)
	return ms, append(diags, d...)
}

// overrideParams replaces param defaults of every machine in f; a param no
// machine declares is an error.
func overrideParams(f *rules.File, params map[string]any, rng hcl.Range) hcl.Diagnostics {
	var diags hcl.Diagnostics
	for _, name := range library.SortedKeys(params) {
		found := false
		for _, m := range f.Machines {
			for _, p := range m.Params {
				if p.Name == name {
					p.Default, found = params[name], true
				}
			}
		}
		if !found {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unknown param",
				Detail: fmt.Sprintf("No machine of %s declares a param %q.", f.Filename, name), Subject: rng.Ptr()})
		}
	}
	return diags
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

type itemKind int

const (
	itemEvent itemKind = iota
	itemReconcile
	itemExpect
)

type item struct {
	at    time.Time
	when  int64 // at in Unix nanoseconds, for ordering
	kind  itemKind
	seq   int
	event *Event
	exp   *Expect
	obj   *driven // for itemReconcile
	gen   int     // obj's wake-up generation when queued
}

// driven is what the runner keeps of one object a machine drives.
type driven struct {
	ref     adapters.Ref
	machine *fsm.Machine
	// gen counts the object's wake-ups: a queued reconcile of an older
	// generation was superseded by a later decision.
	gen int
	// rest is the object's certified rest while it rests (see rest.go).
	rest resting
}

// queue is the runner's agenda: a 4-ary min-heap of items by time, then
// kind (world events, then reconciles, then expectations), then the order
// they were queued in. Items are held by value, and four children share a
// cache line or two: a week of rechecks queues tens of millions of them.
type queue []item

func (q queue) less(i, j int) bool {
	a, b := &q[i], &q[j]
	if a.when != b.when {
		return a.when < b.when
	}
	if a.kind != b.kind {
		return a.kind < b.kind
	}
	return a.seq < b.seq
}

func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 4
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = item{}
	h = h[:n]
	for i := 0; ; {
		first := 4*i + 1
		if first >= n {
			break
		}
		m := first
		for c := first + 1; c < first+4 && c < n; c++ {
			if h.less(c, m) {
				m = c
			}
		}
		if !h.less(m, i) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	*q = h
	return top
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
	res      *Result
	counts   map[*WriteCount]int // requests so far matching each count expectation
	end      time.Time
	// changes, when rests may be skipped, tells what changed in the
	// cluster.
	changes changeWatcher
	watches watches
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
		cluster = sim.New(clock, sim.WithSeed(s.Seed), sim.WithSharedReads())
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
		if err := r.cluster.Apply(obj); err != nil {
			return nil, fmt.Errorf("%s: starting objects: %v", s.File, err)
		}
		r.schedule(sim.RefOf(obj), s.Start)
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
	for len(r.q) > 0 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
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

func (r *runner) since() time.Duration { return r.clock.Now().Sub(r.s.Start) }

func (r *runner) add(kind, object, text string) {
	if r.opts.DiscardTrace {
		return
	}
	r.res.Trace = append(r.res.Trace, Line{At: r.since(), Kind: kind, Object: object, Text: text})
}

// flush takes the requests the cluster served since the last flush, counts
// them for the count expectations, and, when trace is true, appends its
// writes to the trace (reads are left out: a trace shows what changed the
// world; the world's own requests are described by its own lines).
//
// A successful write also wakes the machines that care: the written object
// when a machine drives its kind, and the object's controller owner when a
// machine drives the owner's kind (so a deployment hears of its revisions).
// Writes by an object's own reconcile to itself wake nothing.
func (r *runner) flush(trace bool) {
	for _, rec := range r.cluster.TakeRecords() {
		for w := range r.counts {
			if matches(rec, w) {
				r.counts[w]++
			}
		}
		if !rec.IsWrite() {
			continue
		}
		if trace && !r.opts.DiscardTrace {
			r.res.Trace = append(r.res.Trace, Line{At: rec.Time.Sub(r.s.Start), Kind: "request", Object: rec.Ref.String(), Text: "  " + RequestText(rec)})
		}
		if rec.Outcome != adapters.OK || rec.DryRun {
			continue
		}
		if rec.Ref != r.current {
			r.schedule(rec.Ref, r.clock.Now())
		}
		if owner, ok := r.controller(rec.Ref); ok && owner != r.current {
			r.schedule(owner, r.clock.Now())
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

// RequestText renders one request as a trace line shows it: verb,
// subresource, object, patch type, dry run, identity, outcome and, for a
// failure, the server's message.
func RequestText(rec sim.Record) string {
	var b strings.Builder
	b.WriteString(string(rec.Verb))
	if rec.Subresource != "" {
		b.WriteString(" " + rec.Subresource)
	}
	b.WriteString(" " + rec.Ref.String())
	var opts []string
	if rec.PatchType != "" {
		opts = append(opts, string(rec.PatchType))
	}
	if rec.DryRun {
		opts = append(opts, "dry-run")
	}
	if len(opts) > 0 {
		b.WriteString(" (" + strings.Join(opts, ", ") + ")")
	}
	if rec.Identity != "" {
		b.WriteString(" as " + rec.Identity)
	}
	b.WriteString(": " + string(rec.Outcome))
	if rec.Outcome != adapters.OK && rec.Message != "" {
		b.WriteString(" (" + rec.Message + ")")
	}
	return b.String()
}

// Transition implements engine.Tracer.
func (r *runner) Transition(now time.Time, obj adapters.Ref, res *engine.Result) {
	if r.opts.Steps != nil {
		r.opts.Steps.Transition(now, obj, res)
	}
	r.flush(true)
	text := TransitionText(obj, res, r.s.Start)
	r.add("transition", obj.String(), text)
	if n := len(r.res.Trace); n > 0 {
		r.res.Trace[n-1].From, r.res.Trace[n-1].To = res.From, res.To
	}
}

// Step implements engine.StepTracer, forwarding to Options.Steps.
func (r *runner) Step(now time.Time, obj adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	if r.opts.Steps != nil {
		r.opts.Steps.Step(now, obj, m, snap, d)
	}
}

// TransitionText renders a fired transition as a trace line shows it, with
// its wake-up as a time since start.
func TransitionText(obj adapters.Ref, res *engine.Result, start time.Time) string {
	text := fmt.Sprintf("%s: %s → %s by %q", obj, res.From, res.To, res.Transition)
	if res.Reason != "" {
		text += " reason " + res.Reason
	}
	if res.Last != nil && res.Last.Outcome != string(adapters.OK) {
		text += fmt.Sprintf(" (%s %s)", res.Last.Action, res.Last.Outcome)
	}
	if res.Wait {
		text += " wait until " + Stamp(res.Wake.Sub(start))
	}
	return text
}

// Problem implements engine.Tracer.
func (r *runner) Problem(now time.Time, obj adapters.Ref, p *engine.Problem) {
	if r.opts.Steps != nil {
		r.opts.Steps.Problem(now, obj, p)
	}
	r.flush(true)
	r.add("problem", obj.String(), fmt.Sprintf("%s: problem %s: %s", obj, p.Reason, p.Message))
}

func (r *runner) reconcile(ctx context.Context, d *driven) error {
	ref, m := d.ref, d.machine
	r.current = ref
	r.res.Reconciles++
	d.rest = resting{}
	rep, err := engine.Reconcile(ctx, m, r.cluster, ref, r.clock.Now(), r)
	r.flush(true)
	r.current = adapters.Ref{}
	if err == nil && r.changes != nil && rep.Rest != nil {
		if c, ok := engine.Certify(m, rep.RestSnapshot, rep.Rest); ok && r.sawNow(m, ref, rep, c) {
			r.rest(d, c)
		}
	}
	if err != nil {
		// An API failure is retried after a short, fixed delay.
		r.add("problem", ref.String(), fmt.Sprintf("%s: reconcile failed, retrying in 10s: %v", ref, err))
		r.wake(d, r.clock.Now().Add(10*time.Second))
		return nil
	}
	if !rep.Wake.IsZero() {
		r.wake(d, rep.Wake)
	}
	return nil
}

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
		b, _ := json.Marshal(obj)
		ref := sim.RefOf(obj)
		res := r.cluster.Do(ctx, adapters.Request{Verb: adapters.Create, Ref: ref, Body: b, Identity: who})
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
			res := r.cluster.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Body: b, Patch: p.Merge, Identity: who})
			r.add("world", ref.String(), fmt.Sprintf("world: patch %s %s as %s: %s", ref, b, who, res.Outcome))
			r.flush(false)
		}
		if p.Status != nil {
			b, _ := json.Marshal(map[string]any{"status": p.Status})
			res := r.cluster.Do(ctx, adapters.Request{Verb: adapters.Patch, Subresource: "status", PatchType: adapters.MergePatch, Ref: ref, Body: b, Identity: who})
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
}

func (r *runner) check(e *Expect) {
	r.res.Expects++
	fail := func(format string, args ...any) {
		r.res.Failures = append(r.res.Failures, fmt.Sprintf("%s: at %s, %s: %s", e.Range, Stamp(e.At), e.Object, fmt.Sprintf(format, args...)))
	}
	for i := range e.Writes {
		w := &e.Writes[i]
		if got := r.counts[w]; got != w.Count {
			fail("want %d %s, got %d", w.Count, w, got)
		}
	}
	if e.Object.Kind == "" {
		return
	}
	ref, err := r.target(e.Object)
	if err != nil {
		fail("%v", err)
		return
	}
	obj, ok := r.cluster.Object(ref)
	if e.Absent {
		if ok {
			fail("want the object absent; it exists")
		}
		return
	}
	if !ok {
		fail("the object does not exist")
		return
	}
	obj = library.Normalize(obj).(map[string]any)
	st, _ := obj["status"].(map[string]any)
	if e.State != nil {
		field := "state"
		if m := r.machines[ref.APIVersion+"/"+ref.Kind]; m != nil {
			field = m.StateField
		}
		if got, _ := st[field].(string); got != *e.State {
			fail("want state %q, got %q", *e.State, got)
		}
	}
	if e.Reason != nil {
		if got, _ := st["reason"].(string); got != *e.Reason {
			fail("want reason %q, got %q", *e.Reason, got)
		}
	}
	for _, f := range e.Fields {
		got, present := lookupPath(obj, f.Path)
		switch {
		case f.Value == nil && present:
			fail("want %s absent, got %s", f.Path, jsonText(got))
		case f.Value != nil && !reflect.DeepEqual(library.Normalize(f.Value), got):
			fail("want %s = %s, got %s", f.Path, jsonText(f.Value), jsonText(got))
		}
	}
}

func jsonText(v any) string {
	if v == nil {
		return "absent"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// lookupPath reads a dotted path; a segment [Type] selects the condition
// (or any list element) whose "type" is Type: status.conditions[Ready].status.
// A segment that is a number indexes a list (metadata.ownerReferences.0.uid);
// `\.` is a dot inside a key (metadata.labels.app\.kubernetes\.io/name).
func lookupPath(obj map[string]any, path string) (any, bool) {
	var cur any = obj
	for _, seg := range splitPath(path) {
		sel := ""
		if i := strings.Index(seg, "["); i >= 0 && strings.HasSuffix(seg, "]") {
			seg, sel = seg[:i], seg[i+1:len(seg)-1]
		}
		if list, isList := cur.([]any); isList {
			n, err := strconv.Atoi(seg)
			if err != nil || n < 0 || n >= len(list) || sel != "" {
				return nil, false
			}
			cur = list[n]
			continue
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[seg]; !ok {
			return nil, false
		}
		if sel != "" {
			list, _ := cur.([]any)
			found := false
			for _, it := range list {
				if im, ok := it.(map[string]any); ok && im["type"] == sel {
					cur, found = im, true
					break
				}
			}
			if !found {
				return nil, false
			}
		}
	}
	return cur, true
}

// splitPath splits a dotted path at the dots not escaped as `\.`.
func splitPath(path string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] == '\\' && i+1 < len(path) && path[i+1] == '.':
			cur.WriteByte('.')
			i++
		case path[i] == '.':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(path[i])
		}
	}
	return append(out, cur.String())
}

// builtinKinds resolves kinds named in scenarios that no loaded object or
// machine declares.
var builtinKinds = map[string]string{
	"Namespace": "v1", "ConfigMap": "v1", "Secret": "v1", "Service": "v1", "ServiceAccount": "v1",
	"Deployment": "apps/v1", "StatefulSet": "apps/v1", "DaemonSet": "apps/v1",
	"HorizontalPodAutoscaler": "autoscaling/v2", "PodDisruptionBudget": "policy/v1",
	"Lease": "coordination.k8s.io/v1", "Event": "events.k8s.io/v1",
}
