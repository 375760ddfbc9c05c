package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/scenario"
)

// Options bound the exploration.
type Options struct {
	// MaxDepth bounds the environment events along a path (default 16).
	MaxDepth int
	// MaxStates bounds the abstract states explored (default 5000).
	MaxStates int
	// CounterCap: integer status fields count as equal from this value
	// up (default 4), so that a counter nothing bounds closes a cycle.
	CounterCap int
	// FaultDepth: failed requests are explored only along the first
	// FaultDepth events of a path (default 8); deeper, every request
	// succeeds unless the world makes it fail.
	FaultDepth int
	// ReadFaults also fails reads (forbidden, transient), not only
	// actions' requests.
	ReadFaults bool
	// Start is the virtual start time (default 2026-01-01T00:00:00Z, the
	// scenarios' default).
	Start time.Time
	// Progress, when set, receives a line every 500 abstract states.
	Progress io.Writer
	// MaxCascade bounds the reconciles one event causes: the object it
	// wakes, and every object of the machines explored together that a
	// reconcile's writes wake in turn (default 64).
	MaxCascade int
}

func (o *Options) defaults() {
	if o.MaxDepth == 0 {
		o.MaxDepth = 16
	}
	if o.MaxStates == 0 {
		o.MaxStates = 5000
	}
	if o.CounterCap == 0 {
		o.CounterCap = 4
	}
	if o.FaultDepth == 0 {
		o.FaultDepth = 8
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	if o.MaxCascade == 0 {
		o.MaxCascade = 64
	}
}

// Step is one environment event and the reconcile it caused.
type Step struct {
	Event string        // what the environment did
	At    time.Duration // when (since the start)
	Lines []string      // the trace: transitions and writes, stamped
	ev    event
}

// Finding is one problem with its counterexample: Path leads from the
// start to it; Cycle, when set, repeats forever after Path.
type Finding struct {
	Kind    string // unreached, stuck, livelock, unbounded retries, property
	Summary string
	Path    []*Step
	Cycle   []*Step
	// Reproducible is false when the counterexample has an event a
	// scenario cannot make (a spec edit without a spec change).
	Reproducible bool
	// Machine is the machine the finding is about (a state of another
	// machine explored with the first is unreached); States the states it
	// is about (the unreached or stuck one, those of a cycle); Reasons
	// the status reasons along it; Property the property that fails.
	Machine  string
	States   []string
	Reasons  []string
	Property string
	// Accepted names the accept block of the machine's rule file that
	// declares the finding meant, and Because its reason.
	Accepted, Because string
}

// Report is the result of exploring one machine from one object, with the
// machines explored together with it.
type Report struct {
	Machine   string
	Object    string
	States    int // abstract states reached
	Edges     int
	Depth     int  // the deepest path explored
	Truncated bool // a bound stopped the exploration
	Reached   []string
	Findings  []*Finding
	Objects   []map[string]any // the starting objects (the CR without status first)
	Start     time.Time
	// Others are the machines explored together with Machine (objects it
	// creates, and they in turn), each with the states its objects
	// entered.
	Others []Reach
	// Unused names the accept blocks that matched no finding.
	Unused []string
}

// Reach is what states a machine explored with another reached.
type Reach struct {
	Machine string   `json:"machine"`
	Reached []string `json:"reached"`
}

type event struct {
	kind  string // start, wake, drift, delete, create, spec, annotate
	ref   adapters.Ref
	patch map[string]any
	obj   map[string]any
	at    time.Time
	fault *fault
}

type fault struct {
	point      int
	verb       adapters.Verb
	apiVersion string
	kind       string
	nth        int // the matching call (verb, apiVersion, kind) in the reconcile, from 1
	outcome    adapters.Outcome
}

type node struct {
	w          *world
	now, wake  time.Time // wake: the earliest pending wake-up of any driven object
	wakes      map[adapters.Ref]time.Time
	depth      int
	key        string
	state      string
	reason     string
	parent     *node
	via        *edge
	out        []*edge
	expanded   bool
	lastWrites []time.Time
}

type edge struct {
	from, to *node
	step     *Step
	auto     bool // time, drift and faults only: no user action
	drift    bool
	writes   []time.Time
	faulted  bool
	failed   bool // an action request failed (the injected fault hit a write)
	// calm: time alone (no fault, no write to another object) lowered an
	// integer status field: a streak reset, so a cycle through it is
	// bounded per streak.
	calm bool
}

type explorer struct {
	m        *fsm.Machine   // the machine explored, whose object is cr
	ms       []*fsm.Machine // m and the machines explored with it
	opts     Options
	cr       adapters.Ref
	base     map[adapters.Ref]map[string]any
	annos    []string
	nodes    map[string]*node
	order    []*node
	edges    int
	trunc    bool
	maxSeen  int
	reported int // progress lines written, by 500 states
}

var annoRe = regexp.MustCompile(`annotations\s*(?:\[\??|\.\??)\s*['"]([^'"]+)['"]`)

// Explore runs the bounded exploration of m from the first object of
// objects that m drives; the other objects are the world it starts in.
func Explore(m *fsm.Machine, objects []map[string]any, opts Options) (*Report, error) {
	return ExploreGroup([]*fsm.Machine{m}, objects, opts)
}

// ExploreGroup explores ms[0] from the first object of objects it drives,
// with the machines ms[1:] driving the objects of their kinds: those among
// objects, and those the machines create (a ClusterObjectDeployment's
// revisions, driven by the ClusterObjectSet machine). An event wakes the
// objects due then; a write to an object a machine drives, or to an object
// it controls, wakes that object in turn, as a controller's watches would.
// The findings are about ms[0]'s object, and the states no object of each
// other machine entered.
func ExploreGroup(ms []*fsm.Machine, objects []map[string]any, opts Options) (*Report, error) {
	opts.defaults()
	m := ms[0]
	x := &explorer{m: m, ms: ms, opts: opts, nodes: map[string]*node{}, base: map[adapters.Ref]map[string]any{}}
	w := &world{objs: map[adapters.Ref]map[string]any{}, now: opts.Start}
	var cr map[string]any
	for _, o := range objects {
		o = deep(o)
		r := refOf(o)
		switch {
		case cr == nil && drives(m, r):
			// The machine starts from its initial state; the rest of the
			// status the scenario gives is what other actors wrote (an
			// installation's installedVersion, written by its operator).
			if st := asMap(o["status"]); len(st) > 0 {
				st = deep(st)
				delete(st, m.StateField)
				o["status"] = st
			}
			cr = o
			x.cr = r
		case drives(m, r):
			continue // one object of the machine at a time
		case x.machineOf(r) != nil:
			delete(o, "status") // driven by another machine: from the start
		}
		md := metaOf(o)
		md["generation"] = int64(1)
		// What an API server gives every object: rules read uids (owner
		// references) and creation times (deadlines).
		if _, ok := md["uid"]; !ok {
			w.uids++
			md["uid"] = fmt.Sprintf("verify-uid-%d", w.uids)
		}
		if _, ok := md["creationTimestamp"]; !ok {
			md["creationTimestamp"] = opts.Start.UTC().Format(time.RFC3339)
		}
		o["metadata"] = md
		w.objs[r] = o
		x.base[r] = deep(o)
	}
	if cr == nil {
		return nil, fmt.Errorf("no object of a kind machine %s drives", m.Name)
	}
	seen := map[string]bool{}
	for _, p := range m.Programs() {
		for _, mm := range annoRe.FindAllStringSubmatch(p.Expr.Source, -1) {
			if !seen[mm[1]] {
				seen[mm[1]] = true
				x.annos = append(x.annos, mm[1])
			}
		}
	}
	sort.Strings(x.annos)
	rep := &Report{Machine: m.Name, Object: x.cr.String(), Start: opts.Start}
	rep.Objects = append(rep.Objects, deep(cr))
	for _, o := range objects {
		if r := refOf(o); r != x.cr && !drives(m, r) {
			rep.Objects = append(rep.Objects, deep(o))
		}
	}
	root := &node{w: w, now: opts.Start, wakes: map[adapters.Ref]time.Time{}}
	st := x.run(root, event{kind: "start", at: opts.Start}, nil)
	first := st.to
	first.parent = nil
	first.lastWrites = st.edge.writes
	x.add(first)
	queue := []*node{first}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.depth >= opts.MaxDepth || len(x.nodes) >= opts.MaxStates {
			x.trunc = true
			continue
		}
		if opts.Progress != nil && len(x.nodes)/500 > x.reported {
			x.reported = len(x.nodes) / 500
			fmt.Fprintf(opts.Progress, "verify %s: %d abstract states, %d transitions, depth %d\n", m.Name, len(x.nodes), x.edges, x.maxSeen)
		}
		n.expanded = true
		for _, ev := range x.events(n) {
			for _, e := range x.successors(n, ev) {
				x.edges++
				if old, ok := x.nodes[e.to.key]; ok {
					e.to = old
				} else {
					e.to.parent, e.to.via, e.to.depth = n, e, n.depth+1
					e.to.lastWrites = append(append([]time.Time(nil), n.lastWrites...), e.writes...)
					x.add(e.to)
					queue = append(queue, e.to)
				}
				n.out = append(n.out, e)
			}
		}
	}
	rep.States, rep.Edges, rep.Truncated, rep.Depth = len(x.nodes), x.edges, x.trunc, x.maxSeen
	x.analyse(rep, first, st.step)
	return rep, nil
}

// machineOf returns the machine of the group that drives r's kind.
func (x *explorer) machineOf(r adapters.Ref) *fsm.Machine {
	for _, m := range x.ms {
		if drives(m, r) {
			return m
		}
	}
	return nil
}

func drives(m *fsm.Machine, r adapters.Ref) bool {
	for _, res := range m.Resources {
		if res.APIVersion == r.APIVersion && res.Kind == r.Kind {
			return true
		}
	}
	return false
}

func (x *explorer) add(n *node) {
	x.nodes[n.key] = n
	x.order = append(x.order, n)
	if n.depth > x.maxSeen {
		x.maxSeen = n.depth
	}
}

// events lists what the environment may do next.
func (x *explorer) events(n *node) []event {
	var out []event
	if !n.wake.IsZero() {
		out = append(out, event{kind: "wake", at: n.wake})
		refs := make([]adapters.Ref, 0, len(x.base))
		for r := range x.base {
			if r != x.cr && r.Kind != "Namespace" {
				refs = append(refs, r)
			}
		}
		sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
		for _, r := range refs {
			cur := n.w.objs[r]
			switch {
			case cur == nil:
				out = append(out, event{kind: "create", ref: r, obj: content(x.base[r]), at: n.wake})
			default:
				// An object another machine of the group drives is its
				// machine's to change: other actors delete it and create
				// it again, but do not rewrite it.
				if p := mergePatch(cur, x.base[r]); len(p) > 0 && x.machineOf(r) == nil {
					out = append(out, event{kind: "drift", ref: r, patch: p, at: n.wake})
				}
				out = append(out, event{kind: "delete", ref: r, at: n.wake})
			}
		}
	}
	if n.wake.IsZero() || n.wake.After(n.now.Add(time.Second)) {
		at := n.now.Add(time.Second)
		out = append(out, event{kind: "spec", ref: x.cr, at: at})
		cr := n.w.objs[x.cr]
		annos, _ := metaOf(cr)["annotations"].(map[string]any)
		for _, a := range x.annos {
			if annos[a] != "true" {
				out = append(out, event{kind: "annotate", ref: x.cr, at: at,
					patch: map[string]any{"metadata": map[string]any{"annotations": map[string]any{a: "true"}}}})
			}
		}
	}
	return out
}

func (ev event) String() string {
	switch ev.kind {
	case "start":
		return "start"
	case "wake":
		return "time passes to the wake-up"
	case "drift":
		b, _ := json.Marshal(ev.patch)
		return fmt.Sprintf("another actor reverts %s: %s", ev.ref, b)
	case "delete":
		return "another actor deletes " + ev.ref.String()
	case "create":
		return "another actor creates " + ev.ref.String()
	case "spec":
		return "a user edits the spec of " + ev.ref.String() + " (generation bump)"
	case "annotate":
		b, _ := json.Marshal(ev.patch)
		return fmt.Sprintf("a user patches %s: %s", ev.ref, b)
	}
	return ev.kind
}

// successors runs the reconcile an event causes, once with every request
// answered as the world would, and once per possible failure of each
// request (at most one failure per reconcile).
func (x *explorer) successors(n *node, ev event) []*edge {
	first := x.run(n, ev, nil)
	out := []*edge{first.edge}
	if n.depth >= x.opts.FaultDepth {
		if len(first.points) > 0 {
			x.trunc = true
		}
		return out
	}
	for i, p := range first.points {
		for _, o := range p.alts {
			f := &fault{point: i, verb: p.verb, apiVersion: p.apiVersion, kind: p.kind, nth: p.nth, outcome: o}
			e := x.run(n, ev, f)
			e.faulted = true
			e.failed = p.write
			out = append(out, e.edge)
		}
	}
	return out
}

type point struct {
	verb       adapters.Verb
	apiVersion string
	kind       string
	nth        int
	write      bool
	alts       []adapters.Outcome
}

type runResult struct {
	*edge
	points []point
}

// faultAPI answers the engine's requests from the world, failing the one
// the fault names, and records choice points, writes and trace lines. One
// serves every reconcile an event causes; subject is the object being
// reconciled.
type faultAPI struct {
	x       *explorer
	w       *world
	f       *fault
	now     time.Time
	points  []point
	counts  map[string]int
	lines   *[]string
	writes  []time.Time // by the explored object's reconciles, to other objects
	subject adapters.Ref
	first   bool
	// written are the objects written, in order: what the reconcile wakes
	// (not the subject itself: its reconcile runs until it rests).
	written []adapters.Ref
}

func (a *faultAPI) Scope(ctx context.Context, av, k string) adapters.Scope {
	return a.w.Scope(ctx, av, k)
}

func (a *faultAPI) Do(ctx context.Context, req adapters.Request) adapters.Result {
	ck := string(req.Verb) + " " + req.Ref.APIVersion + " " + req.Ref.Kind
	a.counts[ck]++
	nth := a.counts[ck]
	isWrite := req.Verb != adapters.Get && req.Verb != adapters.List
	self := key(req.Ref) == a.subject
	var alts []adapters.Outcome
	switch {
	case req.Verb == adapters.Get && self && !a.first:
		a.first = true
	case req.Subresource == "status" && self:
	case !isWrite:
		if a.x.opts.ReadFaults {
			alts = []adapters.Outcome{adapters.Forbidden, adapters.Transient}
		}
	default:
		verb := string(req.Verb)
		switch {
		case req.Subresource == "status":
			verb = "status"
		case req.PatchType == adapters.ApplyPatch:
			verb = "apply"
		}
		for _, o := range fsm.VerbOutcomes[verb] {
			// not_found comes from the world (another actor deletes the
			// object), never as a fault on an object that exists.
			if o != string(adapters.NotFound) {
				alts = append(alts, adapters.Outcome(o))
			}
		}
	}
	res := adapters.Result{}
	hit := false
	if len(alts) > 0 {
		idx := len(a.points)
		a.points = append(a.points, point{verb: req.Verb, apiVersion: req.Ref.APIVersion, kind: req.Ref.Kind, nth: nth, write: isWrite, alts: alts})
		if a.f != nil && a.f.point == idx {
			hit = true
			res = adapters.Result{Outcome: a.f.outcome, Message: fmt.Sprintf("verify: injected %s", a.f.outcome)}
		}
	}
	if !hit {
		res = a.w.Do(ctx, req)
	}
	if isWrite {
		*a.lines = append(*a.lines, stamp(a.now.Sub(a.x.opts.Start))+"    "+scenario.RequestText(sim.Record{Verb: req.Verb, Ref: req.Ref, Subresource: req.Subresource,
			PatchType: req.PatchType, DryRun: req.DryRun, Identity: req.Identity, Outcome: res.Outcome, Message: res.Message}))
		if res.Outcome == adapters.OK && !req.DryRun && !self && a.subject == a.x.cr {
			a.writes = append(a.writes, a.now)
		}
		if res.Outcome == adapters.OK && !req.DryRun {
			a.written = append(a.written, key(req.Ref))
		}
	}
	return res
}

type tracer struct {
	x     *explorer
	lines *[]string
}

func (t tracer) Transition(now time.Time, obj adapters.Ref, res *engine.Result) {
	*t.lines = append(*t.lines, stamp(now.Sub(t.x.opts.Start))+"  "+scenario.TransitionText(obj, res, t.x.opts.Start))
}

func (t tracer) Problem(now time.Time, obj adapters.Ref, p *engine.Problem) {
	*t.lines = append(*t.lines, stamp(now.Sub(t.x.opts.Start))+"  "+fmt.Sprintf("%s: problem %s: %s", obj, p.Reason, p.Message))
}

// woken lists what a write to ref wakes: ref itself when a machine of the
// group drives it, and its controller owner when one does.
func (x *explorer) woken(w *world, ref adapters.Ref) []adapters.Ref {
	var out []adapters.Ref
	if x.machineOf(ref) != nil {
		out = append(out, ref)
	}
	obj := w.objs[ref]
	owners, _ := metaOf(obj)["ownerReferences"].([]any)
	for _, o := range owners {
		om, _ := o.(map[string]any)
		if c, _ := om["controller"].(bool); !c {
			continue
		}
		av, _ := om["apiVersion"].(string)
		kind, _ := om["kind"].(string)
		name, _ := om["name"].(string)
		owner := adapters.Ref{APIVersion: av, Kind: kind, Name: name}
		if m := x.machineOf(owner); m != nil {
			for _, r := range m.Resources {
				if r.APIVersion == av && r.Kind == kind && r.Scope == string(adapters.Namespaced) {
					owner.Namespace = ref.Namespace
				}
			}
			out = append(out, owner)
		}
	}
	return out
}

// run applies ev to a copy of n's world and reconciles what it wakes: the
// explored object for its own events, every driven object due at the
// event's time, and, in turn, what their writes wake.
func (x *explorer) run(n *node, ev event, f *fault) runResult {
	w := n.w.clone()
	ev.fault = f
	var lines []string
	at := ev.at
	w.now = at
	wakes := make(map[adapters.Ref]time.Time, len(n.wakes))
	for r, t := range n.wakes {
		wakes[r] = t
	}
	var queue []adapters.Ref
	queued := map[adapters.Ref]bool{}
	enqueue := func(r adapters.Ref) {
		if !queued[r] {
			queued[r] = true
			queue = append(queue, r)
		}
	}
	switch ev.kind {
	case "drift", "annotate":
		w.Do(context.Background(), adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ev.ref, Body: ev.patch})
	case "delete":
		w.remove(ev.ref, true)
	case "create":
		w.Do(context.Background(), adapters.Request{Verb: adapters.Create, Ref: ev.ref, Body: ev.obj})
	case "spec":
		cr := w.objs[x.cr]
		md := metaOf(cr)
		g, _ := library.Normalize(md["generation"]).(int64)
		md["generation"] = g + 1
		cr["metadata"] = md
	}
	// The explored object first (its events, and its wake-ups), then the
	// other driven objects due now, in order, then what the event's write
	// wakes.
	if t, pending := wakes[x.cr]; ev.kind == "start" || ev.kind == "spec" || ev.kind == "annotate" || (pending && !t.After(at)) {
		enqueue(x.cr)
	}
	var due []adapters.Ref
	for r, t := range wakes {
		if r != x.cr && !t.After(at) {
			due = append(due, r)
		}
	}
	if ev.kind == "start" {
		for r := range w.objs {
			if r != x.cr && x.machineOf(r) != nil {
				due = append(due, r)
			}
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].String() < due[j].String() })
	for _, r := range due {
		enqueue(r)
	}
	if ev.kind == "drift" || ev.kind == "create" || ev.kind == "delete" {
		for _, r := range x.woken(n.w, ev.ref) {
			enqueue(r)
		}
	}
	step := &Step{Event: ev.String(), At: at.Sub(x.opts.Start), ev: ev}
	if f != nil {
		step.Event += fmt.Sprintf("; request %d of the reconcile (%s %s) fails %s", f.point+1, f.verb, f.kind, f.outcome)
	}
	api := &faultAPI{x: x, w: w, f: f, now: at, counts: map[string]int{}, lines: &lines}
	reconciles := 0
	for len(queue) > 0 {
		r := queue[0]
		queue = queue[1:]
		queued[r] = false
		m := x.machineOf(r)
		if _, exists := w.objs[r]; !exists || m == nil {
			delete(wakes, r)
			continue
		}
		if reconciles >= x.opts.MaxCascade {
			x.trunc = true
			lines = append(lines, stamp(at.Sub(x.opts.Start))+"  verify: more reconciles than --max-cascade; the rest are not run")
			break
		}
		reconciles++
		api.subject, api.first, api.written = r, false, nil
		rep, err := engine.Reconcile(context.Background(), m, api, r, at, tracer{x: x, lines: &lines})
		if err != nil {
			lines = append(lines, stamp(at.Sub(x.opts.Start))+"  reconcile failed: "+err.Error())
		}
		if rep.Wake.IsZero() {
			delete(wakes, r)
		} else {
			wakes[r] = rep.Wake
		}
		for _, wr := range api.written {
			for _, o := range x.woken(w, wr) {
				if o != r {
					enqueue(o)
				}
			}
		}
	}
	for r := range wakes {
		if _, exists := w.objs[r]; !exists {
			delete(wakes, r)
		}
	}
	step.Lines = lines
	to := &node{w: w, now: at, wakes: wakes}
	for _, t := range wakes {
		if to.wake.IsZero() || t.Before(to.wake) {
			to.wake = t
		}
	}
	st, _ := w.objs[x.cr]["status"].(map[string]any)
	to.state, _ = st[x.m.StateField].(string)
	if to.state == "" {
		to.state = x.m.Initial.Name
	}
	to.reason, _ = st["reason"].(string)
	to.key = x.key(to)
	e := &edge{from: n, to: to, step: step, writes: api.writes,
		auto: ev.kind == "wake" || ev.kind == "drift", drift: ev.kind == "drift"}
	if ev.kind == "wake" && f == nil && len(api.writes) == 0 {
		old := asMap(n.w.objs[x.cr]["status"])
		for k, v := range st {
			a, okA := library.Normalize(old[k]).(int64)
			b, okB := library.Normalize(v).(int64)
			if okA && okB && b < a {
				e.calm = true
			}
		}
	}
	return runResult{edge: e, points: api.points}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// key is the abstract state: the object's status with timestamps reduced
// to past/now/future, integers capped, messages dropped; generation as
// observed or not; annotations; each other object as it started, absent,
// or changed (by content); whether a wake-up is pending.
func (x *explorer) key(n *node) string {
	cr := n.w.objs[x.cr]
	st := deep(asMap(cr["status"]))
	delete(st, "message")
	gen := metaOf(cr)["generation"]
	if og, ok := st["observedGeneration"]; ok {
		st["observedGeneration"] = fmt.Sprint(og == gen)
	}
	abs := x.abstract(st, n.now)
	parts := map[string]any{"status": abs, "annotations": metaOf(cr)["annotations"]}
	objs := map[string]string{}
	for r, b := range x.base {
		if r == x.cr {
			continue
		}
		cur := n.w.objs[r]
		switch {
		case cur == nil:
			objs[r.String()] = "absent"
		case string(mustJSON(content(cur))) == string(mustJSON(content(b))):
			objs[r.String()] = "as started"
		default:
			objs[r.String()] = string(mustJSON(content(cur)))
		}
	}
	// Objects the machines made, and the objects of the other machines:
	// their content, and for driven ones their abstract status and
	// whether a wake-up is pending.
	for r, cur := range n.w.objs {
		if _, isBase := x.base[r]; isBase || r == x.cr {
			continue
		}
		if x.machineOf(r) == nil {
			objs[r.String()] = string(mustJSON(content(cur)))
			continue
		}
		st := deep(asMap(cur["status"]))
		delete(st, "message")
		objs[r.String()] = string(mustJSON(map[string]any{"content": content(cur), "status": x.abstract(st, n.now), "wake": wakeKey(n.wakes[r], n.now)}))
	}
	parts["objects"] = objs
	parts["wake"] = wakeKey(n.wakes[x.cr], n.now)
	return string(mustJSON(parts))
}

func wakeKey(t, now time.Time) string {
	switch {
	case t.IsZero():
		return "none"
	case !t.After(now):
		return "now"
	}
	return "pending"
}

func asMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func (x *explorer) abstract(v any, now time.Time) any {
	switch t := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range t {
			if k == "message" {
				continue
			}
			out[k] = x.abstract(e, now)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = x.abstract(e, now)
		}
		return out
	case string:
		if ts, err := time.Parse(time.RFC3339, t); err == nil {
			switch {
			case ts.Before(now):
				return "<past>"
			case ts.After(now):
				return "<future>"
			}
			return "<now>"
		}
		return t
	case int64:
		if t >= int64(x.opts.CounterCap) {
			return fmt.Sprintf(">=%d", x.opts.CounterCap)
		}
		return t
	case float64:
		if t >= float64(x.opts.CounterCap) {
			return fmt.Sprintf(">=%d", x.opts.CounterCap)
		}
		return t
	}
	return v
}

// stamp renders a duration since the start as traces do.
func stamp(d time.Duration) string { return scenario.Stamp(d) }
