package engine

import (
	"fmt"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
)

// MicroStepLimitReason is the status reason of an object whose reconcile hit
// the machine's micro-step bound.
const MicroStepLimitReason = "MicroStepLimitExceeded"

// A Reconciliation is one reconcile of one object, as a state machine that
// does no I/O. It reads the object, observes, steps, and carries out the
// chosen transition's actions, resolves the route, and repeats until
// nothing fires, a wait is asked for, or the micro-step bound is reached;
// then it writes the object's status once, if it changed.
//
// It says what it needs next through Ready, and takes the outcome back
// through Deliver:
//
//	r := engine.Start(m, ref, now, engine.Options{})
//	for rd := r.Ready(); rd.Done == nil; rd = r.Ready() {
//		// rd.Trace: what happened since the last Ready
//		switch {
//		case rd.Reads != nil:   // make them; deliver their Observations, in order
//		case rd.Request != nil: // send it; deliver its Result
//		}
//	}
//
// Drive is that loop on an adapters.API. A Reconciliation never reads the
// wall clock (now is an input) and never sleeps (wake-ups are returned).
type Reconciliation struct {
	m    *fsm.Machine
	ref  adapters.Ref
	now  time.Time
	opts Options

	need  Ready
	trace []Entry
	rep   Report

	obj  map[string]any // the object as the engine now knows it (with the status it computed, when it keeps its memory there)
	mem  map[string]any // the machine's memory, as it now is
	orig map[string]any // the memory read
	// companion: the memory is kept in a companion ConfigMap, which
	// exists (companionFound) or is created at the end.
	companion, companionFound bool
	// written holds the objects this reconcile wrote (nil: deleted): later
	// micro-steps observe them as written instead of reading them again,
	// so a cache that has not caught up cannot make a fresh write look
	// undone.
	written map[adapters.Ref]map[string]any
	// seen keeps what this reconcile already read, until it writes: a
	// later micro-step that observes the same object again gets the same
	// answer without a request. A reconcile makes a few reads, so a slice
	// searched in order costs less than a map (whose Observation values,
	// larger than a map slot, are each allocated apart).
	seen  []seenRead
	steps int

	// The micro-step in progress.
	v       *vars    // its activation
	problem *Problem // its params' problem
	snap    Snapshot
	wave    int           // the wave of observations being made
	pending []pendingRead // the reads Ready asked for
	d       *Decision
	results []ActionResult
	sentAny bool         // the transition's actions sent a request
	action  int          // index in d.Actions of the action being carried out
	request int          // index in its Requests of the request sent
	cur     ActionResult // the action's outcome so far
	status  bool         // the request sent is the closing status write
}

// Options tune a Reconciliation.
type Options struct {
	// Certify asks, when the reconcile ends at rest without a problem,
	// for the certificate of that rest (Report.Certificate; see Certify).
	Certify bool
	// Steps asks for every step's Snapshot and Decision in the trace (for
	// a StepTracer); without it the trace holds what fired.
	Steps bool
}

// Ready is what a Reconciliation needs next: exactly one of Reads,
// Request or Done is set.
type Ready struct {
	// Trace is what happened since the last Deliver, in order.
	Trace []Entry
	// Reads are observations to make (the kind's scope, then the get or
	// list, unless ScopeOnly); deliver them as Observations in this order.
	// They are the reconcile's own (its step's Snapshot.Reads, often):
	// read them, do not change them.
	Reads []Read
	// Request is to be carried out; deliver its Result.
	Request *adapters.Request
	// Done is set when the reconcile is over.
	Done *Report
}

// An Entry is one event of a reconcile, for tracers: a step (Decision,
// with the Snapshot it decided from), a fired transition (Fired), a
// transition that changed nothing and so is a rest (Unchanged), or the
// problem the reconcile reports instead of moving on (Problem).
type Entry struct {
	Snapshot  *Snapshot
	Decision  *Decision
	Fired     *Result
	Unchanged *Result
	Problem   *Problem
}

// Delivery is the outcome of what Ready asked for: the Result of a
// Request, or the Observations of Reads. Deliver keeps copies of the
// Observations, not the slice, which the caller may reuse.
type Delivery struct {
	Result       adapters.Result
	Observations []Observation
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
	// Err, when set, is an API failure that ended the reconcile (reading
	// the object or writing its status): nothing is lost, and the caller
	// retries.
	Err error
	// Rest and RestSnapshot, when the reconcile came to rest without a
	// problem, are the decision it rested with and what that last step
	// saw. When the reconcile also fired or wrote status, the step saw the
	// object with the status then written, and what it read before that
	// write.
	Rest         *Decision
	RestSnapshot Snapshot
	// Certificate, with Options.Certify, certifies that rest (nil when it
	// cannot be certified).
	Certificate *Rest
}

// readKey identifies a read by what it reads.
type readKey struct {
	ref   adapters.Ref
	list  bool
	label string
}

// seenRead is an observation a reconcile made, by what it read.
type seenRead struct {
	key readKey
	obs Observation
}

// pendingRead is a read Ready asked for, and the observations it answers:
// target, and the others in more (most reads answer one observation).
type pendingRead struct {
	key    readKey
	target readTarget
	more   []readTarget
	// written, when set, is the object this reconcile wrote (or deleted)
	// under this reference: only the scope is asked for.
	written *writtenObject
}

type writtenObject struct{ obj map[string]any }

// Start begins the reconcile of the object ref of machine m at now. Its
// first need is the object itself.
func Start(m *fsm.Machine, ref adapters.Ref, now time.Time, opts Options) *Reconciliation {
	r := &Reconciliation{m: m, ref: ref, now: now, opts: opts}
	// Nothing in r points into r: a caller that inlines Start (Reconcile,
	// a runner's Drive(ctx, api, Start(...), tr)) keeps r on its stack.
	r.need = Ready{Request: &adapters.Request{Verb: adapters.Get, Ref: ref}}
	return r
}

// Ready returns what the reconcile needs next, with what happened since
// the last Deliver. It changes nothing: calling it again returns the same.
func (r *Reconciliation) Ready() Ready {
	rd := r.need
	rd.Trace = r.trace
	return rd
}

// Deliver hands back the outcome of what Ready asked for and moves the
// reconcile on to its next need. Deliver after Done does nothing.
func (r *Reconciliation) Deliver(d Delivery) {
	r.trace = nil
	switch {
	case r.need.Done != nil:
		return
	case r.need.Reads != nil:
		r.observed(d.Observations)
	case r.need.Request != nil && r.status:
		r.statusWritten(d.Result)
	case r.need.Request != nil && r.companion:
		r.readCompanion(d.Result)
	case r.need.Request != nil && r.d == nil:
		r.read(d.Result)
	default:
		r.sent(d.Result)
	}
}

// read takes the object the reconcile is about.
func (r *Reconciliation) read(res adapters.Result) {
	switch res.Outcome {
	case adapters.OK:
	case adapters.NotFound:
		r.rep.Gone = true
		r.done()
		return
	default:
		r.rep.Err = fmt.Errorf("get %s: %s: %s", r.ref, res.Outcome, res.Message)
		r.done()
		return
	}
	r.obj = res.Object
	if r.m.Source.MemoryIn == "companion" {
		r.companion = true
		r.need = Ready{Request: &adapters.Request{Verb: adapters.Get, Ref: companionRef(r.m, r.ref)}}
		return
	}
	r.remember(memoryOf(r.m, r.obj))
}

// remember takes the memory read and begins the first micro-step.
func (r *Reconciliation) remember(mem map[string]any) {
	// Memories are never changed in place (resolve builds each new one),
	// so the memory read is kept as it is to compare with at the end.
	r.orig, _ = libraryOf(r.m).Canonical(mem).(map[string]any)
	r.mem = r.orig
	r.observe()
}

// readCompanion takes the companion ConfigMap that holds the memory.
func (r *Reconciliation) readCompanion(res adapters.Result) {
	r.companion = false
	switch res.Outcome {
	case adapters.OK:
		r.companionFound = true
		r.remember(CompanionMemory(res.Object))
	case adapters.NotFound:
		r.remember(map[string]any{})
	default:
		r.rep.Err = fmt.Errorf("get the memory of %s: %s: %s", r.ref, res.Outcome, res.Message)
		r.done()
	}
}

// observe begins a micro-step: it computes the step's reads and answers
// what it can itself (skipped reads, failed references, objects it wrote,
// what it already read); the rest it asks for.
func (r *Reconciliation) observe() {
	if r.steps == r.m.MaxSteps {
		r.rep.Problem = &Problem{Reason: MicroStepLimitReason, Message: fmt.Sprintf("%d transitions fired in one reconcile without coming to rest; the machine may loop", r.m.MaxSteps)}
		r.finish()
		return
	}
	r.d = nil
	r.v, r.problem = newVarsUnobserved(r.m, r.obj, r.mem, true, r.now)
	r.snap = Snapshot{Object: r.obj, Memory: r.mem, Now: r.now}
	if len(r.m.Observes) > 0 {
		r.snap.Observations = make(map[string]Observation, len(r.m.Observes))
	}
	r.wave = 0
	r.observeWave()
}

// observeWave makes the observations wave by wave (fsm.Observe.Wave): the
// reads of a wave are computed with the observations of the waves before
// it, and asked for together.
func (r *Reconciliation) observeWave() {
	for ; r.wave <= maxWave(r.m); r.wave++ {
		v := r.v
		if r.wave > 0 {
			v = r.v.observing(r.snap.Observations)
		}
		reads := readsWith(r.m, v, r.wave)
		if r.wave == 0 {
			r.snap.Reads = reads
		} else {
			r.snap.Reads = append(r.snap.Reads, reads...)
		}
		if asked := r.answer(reads); len(asked) > 0 {
			r.need = Ready{Reads: asked}
			return
		}
	}
	r.decide()
}

func maxWave(m *fsm.Machine) int {
	w := 0
	for _, o := range m.Observes {
		w = max(w, o.Wave)
	}
	return w
}

// answer places what the reconcile knows of reads itself (skipped reads,
// failed references, objects it wrote, what it already read) and returns
// the reads it must ask for.
func (r *Reconciliation) answer(reads []Read) []Read {
	obs := r.snap.Observations
	// An observation with for_each is the list of its elements'.
	for _, rd := range reads {
		switch {
		case !rd.Each:
		case rd.Skip:
			obs[rd.Name] = Observation{Each: []Observation{}}
		case rd.Index < 0:
			obs[rd.Name] = Observation{Each: []Observation{{Outcome: adapters.Invalid, Message: rd.Err.Error()}}}
		default:
			o := obs[rd.Name]
			if len(o.Each) <= rd.Index {
				o.Each = append(o.Each, make([]Observation, rd.Index+1-len(o.Each))...)
			}
			obs[rd.Name] = o
		}
	}
	r.pending = r.pending[:0]
	if cap(r.pending) < len(reads) {
		r.pending = make([]pendingRead, 0, len(reads))
	}
	var asked []Read
	// same: every read so far is asked as it is (reads[:len(asked)] ==
	// asked), and Ready can hand reads itself.
	same := true
	for i, rd := range reads {
		t := readTarget{name: rd.Name, index: -1, item: rd.Item}
		if rd.Each {
			if rd.Skip || rd.Index < 0 {
				continue
			}
			t.index = rd.Index
		}
		key := readKey{rd.Ref, rd.List, rd.LabelSelector}
		switch {
		case rd.Skip:
			r.place(t, skippedObservation)
			continue
		case rd.Err != nil:
			r.place(t, Observation{Outcome: adapters.Invalid, Message: rd.Err.Error()}.withValue())
			continue
		}
		if o, ok := r.seenObservation(key); ok && (rd.List || !hasRef(r.written, rd.Ref)) {
			r.place(t, o)
			continue
		}
		if i := r.pendingIndex(key); i >= 0 {
			r.pending[i].more = append(r.pending[i].more, t)
			continue
		}
		p := pendingRead{key: key, target: t}
		q := Read{Name: rd.Name, Ref: rd.Ref, List: rd.List, LabelSelector: rd.LabelSelector, Each: rd.Each, Index: rd.Index, Item: rd.Item}
		if !rd.List && hasRef(r.written, rd.Ref) {
			p.written = &writtenObject{r.written[rd.Ref]}
			q.ScopeOnly = true
		}
		r.pending = append(r.pending, p)
		// q is rd unless it is ScopeOnly (rd is neither Skip nor Err).
		if same && i == len(asked) && !q.ScopeOnly && !rd.StatusBlind {
			asked = reads[:i+1]
			continue
		}
		if same {
			same = false
			asked = append(make([]Read, 0, len(reads)), asked...)
		}
		asked = append(asked, q)
	}
	return asked
}

// readTarget is where an observation goes: the observation of name, or
// element index of it (index >= 0, made for item).
type readTarget struct {
	name  string
	index int
	item  any
}

func (r *Reconciliation) place(t readTarget, o Observation) {
	if t.index < 0 {
		r.snap.Observations[t.name] = o
		return
	}
	o.Item, o.val = t.item, nil // its value carries the element
	if o.canonical || o.Object == nil && o.Items == nil {
		o = o.withValue()
	}
	r.snap.Observations[t.name].Each[t.index] = o
}

// seenObservation returns what this reconcile already read of key.
func (r *Reconciliation) seenObservation(key readKey) (Observation, bool) {
	for i := range r.seen {
		if r.seen[i].key == key {
			return r.seen[i].obs, true
		}
	}
	return Observation{}, false
}

func (r *Reconciliation) pendingIndex(key readKey) int {
	for i, p := range r.pending {
		if p.key == key && p.written == nil {
			return i
		}
	}
	return -1
}

// observed takes the observations Ready asked for.
func (r *Reconciliation) observed(got []Observation) {
	for i, p := range r.pending {
		var o Observation
		if i < len(got) {
			o = got[i]
		} else {
			o = Observation{Outcome: adapters.Transient, Message: "the read was not made"}
		}
		if p.written != nil {
			// What a write returned is canonical (adapters.Result).
			w := Observation{Outcome: adapters.NotFound, Scope: o.Scope, canonical: true}
			if p.written.obj != nil {
				w.Outcome, w.Object = adapters.OK, p.written.obj
			}
			o = w.withValue()
		} else {
			if r.seen == nil {
				r.seen = make([]seenRead, 0, len(r.pending))
			}
			r.seen = append(r.seen, seenRead{p.key, o})
		}
		r.place(p.target, o)
		for _, t := range p.more {
			r.place(t, o)
		}
	}
	r.pending = r.pending[:0]
	r.wave++
	r.observeWave()
}

// decide steps with what was observed, and starts the actions of the
// transition that fires, or ends the reconcile at rest.
func (r *Reconciliation) decide() {
	v := r.v.observing(r.snap.Observations)
	r.v = v
	// A runner that skips certified rests itself (the simulator) has no
	// use for them answered again: none is remembered or asked for.
	var d *Decision
	if !r.opts.Certify {
		d = restAgain(r.m, r.snap)
	}
	again := d != nil
	if !again {
		d = step(r.m, r.snap, v, r.problem)
	}
	r.d = d
	snap := r.snap
	if r.opts.Steps {
		traced := snap
		r.trace = append(r.trace, Entry{Snapshot: &traced, Decision: d})
	}
	switch {
	case d.Problem != nil:
		r.rep.Problem, r.rep.Wake = d.Problem, d.Wake
		r.finish()
		return
	case d.Transition == nil:
		r.rep.Wake = d.Wake
		r.rep.Rest, r.rep.RestSnapshot = d, snap
		if r.opts.Certify {
			if c, ok := certify(r.m, snap, d, v); ok {
				r.rep.Certificate = &c
			}
		}
		if !again && !r.opts.Certify {
			rememberRest(r.m, snap, d, v)
		}
		r.finish()
		return
	}
	r.steps++
	r.results = r.results[:0]
	r.sentAny = false
	r.action = -1
	r.nextAction()
}

// nextAction starts the next action of the transition, or resolves the
// route once the actions have reached one.
func (r *Reconciliation) nextAction() {
	for {
		if r.action >= 0 {
			if r.writes(r.d.Actions[r.action]) {
				r.seen = r.seen[:0] // a write may change what other reads return
			}
			if !next(r.d, r.results) {
				r.resolveRoute()
				return
			}
		} else if len(r.d.Actions) == 0 {
			r.resolveRoute()
			return
		}
		r.action++
		pa := r.d.Actions[r.action]
		switch {
		case pa.Err != nil:
			r.results = append(r.results, bestEffort(pa.Action, classify(r.v, pa, 0, adapters.Result{})))
			continue
		case pa.Skipped || len(pa.Requests) == 0:
			r.results = append(r.results, ActionResult{Action: pa.Action.Name, Outcome: string(adapters.OK)})
			continue
		}
		r.cur = ActionResult{Action: pa.Action.Name, Outcome: string(adapters.OK)}
		r.request = 0
		r.sentAny = true
		r.need = Ready{Request: &pa.Requests[0]}
		return
	}
}

// writes reports whether a planned action sends a request that may change
// the cluster.
func (r *Reconciliation) writes(pa PlannedAction) bool {
	for _, q := range pa.Requests {
		if q.Verb != adapters.Get && q.Verb != adapters.List && !q.DryRun {
			return true
		}
	}
	return false
}

// sent takes the result of an action's request.
func (r *Reconciliation) sent(res adapters.Result) {
	pa := r.d.Actions[r.action]
	req := pa.Requests[r.request]
	ar := classify(r.v, pa, r.request, res)
	if res.Outcome == adapters.OK && !req.DryRun && req.Verb != adapters.Get {
		if r.written == nil {
			r.written = map[adapters.Ref]map[string]any{}
		}
		switch {
		case req.Verb == adapters.Delete:
			r.written[req.Ref] = nil
		case res.Object != nil:
			r.written[req.Ref] = res.Object
		}
		// A write to the reconciled object itself is what the object now
		// is; its status stays the engine's own.
		if res.Object != nil && req.Subresource == "" && sameObject(req.Ref, r.ref) {
			r.obj = res.Object
			if r.m.Source.MemoryIn == "status" {
				r.obj = withStatus(res.Object, r.mem)
			}
		}
	}
	if ar.Outcome != string(adapters.OK) {
		if len(pa.Requests) > 1 {
			ar.Message = fmt.Sprintf("%s %s: %s", req.Verb, req.Ref, ar.Message)
		}
		r.results = append(r.results, bestEffort(pa.Action, ar))
		r.nextAction()
		return
	}
	r.cur = ar
	if r.request++; r.request < len(pa.Requests) {
		r.need = Ready{Request: &pa.Requests[r.request]}
		return
	}
	r.results = append(r.results, r.cur)
	r.nextAction()
}

// resolveRoute routes the actions' outcomes to a state; then the next
// micro-step begins, unless the route waits.
func (r *Reconciliation) resolveRoute() {
	res, err := resolve(r.m, r.d, r.v, r.results)
	if err != nil {
		// Retried at the recheck of the state the object is still in.
		r.rep.Wake, _ = restWake(r.m, r.d.From, r.snap, r.v)
		r.rep.Problem = &Problem{Reason: "EvaluationError", Message: err.Error()}
		r.finish()
		return
	}
	// A transition back to its own state that sent nothing, waits for
	// nothing and leaves the status as it was changes nothing: it is a
	// rest, not a firing (no guard is needed to stop it).
	if res.To == r.d.From && !r.sentAny && !res.Wait && jsonvalue.Equal(res.Status, r.mem) {
		r.trace = append(r.trace, Entry{Unchanged: res})
		r.rep.Wake, r.rep.Problem = restWake(r.m, r.d.From, r.snap, r.v)
		if r.rep.Problem == nil {
			r.rep.Rest, r.rep.RestSnapshot = r.d, r.snap
		}
		r.finish()
		return
	}
	r.rep.Transitions = append(r.rep.Transitions, res)
	r.trace = append(r.trace, Entry{Fired: res})
	r.mem = res.Status
	if r.m.Source.MemoryIn == "status" {
		r.obj = withStatus(r.obj, res.Status)
	}
	if res.Wait {
		r.rep.Wake = res.Wake
		r.finish()
		return
	}
	r.observe()
}

// finish computes the final status (a problem's reason and message) and
// asks for the status write when it changed.
func (r *Reconciliation) finish() {
	st := r.mem
	if r.rep.Problem != nil {
		r.trace = append(r.trace, Entry{Problem: r.rep.Problem})
		st = shallowCopy(st)
		st["reason"] = r.rep.Problem.Reason
		st["message"] = r.rep.Problem.Message
		if gen, ok := jsonvalue.Lookup(r.obj, generationPath); ok {
			st["observedGeneration"] = library.Normalize(gen)
		}
	}
	if jsonvalue.Equal(r.orig, st) {
		r.done()
		return
	}
	req, err := memoryWrite(r.m, r.ref, r.obj, r.orig, st, r.companionFound)
	if err != nil {
		r.rep.Err = err
		r.done()
		return
	}
	r.status = true
	r.need = Ready{Request: &req}
}

// statusWritten takes the result of the status write.
func (r *Reconciliation) statusWritten(res adapters.Result) {
	switch res.Outcome {
	case adapters.OK:
		r.rep.StatusWritten = true
	case adapters.NotFound:
		r.rep.StatusWritten = true // the object went while the reconcile ran
	default:
		r.rep.Err = fmt.Errorf("write the memory of %s: %s: %s", r.ref, res.Outcome, res.Message)
		if r.m.Source.MemoryIn == "status" {
			r.rep.Err = fmt.Errorf("write status of %s: %s: %s", r.ref, res.Outcome, res.Message)
		}
	}
	r.done()
}

func (r *Reconciliation) done() {
	rep := r.rep
	r.need = Ready{Done: &rep}
}

func sameObject(a, b adapters.Ref) bool {
	return a.Kind == b.Kind && a.Name == b.Name && a.Namespace == b.Namespace && a.Group() == b.Group()
}

func hasRef(m map[adapters.Ref]map[string]any, r adapters.Ref) bool {
	_, ok := m[r]
	return ok
}
