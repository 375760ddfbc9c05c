package record

import (
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
)

// reconcileLog turns one reconcile into decision log lines, in the order
// it made them: the writes of a transition's actions, then the transition
// (with its step's clause values), then the next step's; a problem; the
// closing memory write. The controller (through controller.Observer) and
// the replay (through the scenario runner's tracer and a cluster wrapper)
// feed it the same calls in the same order, so the two logs compare line
// by line.
type reconcileLog struct {
	start   time.Time // the recording's start
	now     time.Time
	object  string
	machine string
	redact  bool // Secrets' data is redacted
	lines   []Decision
	why     []Why // of the step that fired, for its transition
	// reqs are the reconcile's requests with their results, in order,
	// for what the recorder learns from them (the engine's own writes,
	// the denials it met, objects of kinds no watch shows yet).
	reqs []exchange
	// decisionsOnly keeps no reqs (the replay needs only the decisions).
	decisionsOnly bool
}

type exchange struct {
	req adapters.Request
	res adapters.Result
}

func newReconcileLog(start, now time.Time, ref adapters.Ref, m *fsm.Machine, redact bool) *reconcileLog {
	name := ""
	if m != nil {
		name = m.Name
	}
	return &reconcileLog{start: start, now: now, object: ref.String(), machine: name, redact: redact}
}

func (l *reconcileLog) at() Offset { return l.now.Sub(l.start) }

// Step explains a step that fires (a few times the cost of the step, on
// transitions only).
func (l *reconcileLog) Step(_ time.Time, _ adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	l.why = nil
	if d.Transition != nil {
		l.why = whys(engine.Explain(m, snap, d), l.start)
	}
}

func (l *reconcileLog) Transition(_ time.Time, _ adapters.Ref, r *engine.Result) {
	d := Decision{At: l.at(), Object: l.object, Machine: l.machine, Type: "transition",
		From: r.From, To: r.To, Transition: r.Transition, Reason: r.Reason, Message: r.Message, Why: l.why}
	if r.Last != nil && r.Last.Outcome != string(adapters.OK) {
		d.Outcome = r.Last.Action + " " + r.Last.Outcome
	}
	if r.Wait && !r.Wake.IsZero() {
		w := r.Wake.Sub(l.start)
		d.Wake = &w
	}
	l.why = nil
	l.lines = append(l.lines, d)
}

func (l *reconcileLog) Problem(_ time.Time, _ adapters.Ref, p *engine.Problem) {
	l.lines = append(l.lines, Decision{At: l.at(), Object: l.object, Machine: l.machine, Type: "problem", Reason: p.Reason, Message: p.Message})
}

// Request records a write with its body and outcome; reads are kept only
// for what the recorder learns from them.
func (l *reconcileLog) Request(req adapters.Request, res adapters.Result) {
	if !l.decisionsOnly {
		l.reqs = append(l.reqs, exchange{req, res})
	}
	if req.Verb == adapters.Get || req.Verb == adapters.List {
		return
	}
	w := &Write{Verb: string(req.Verb), Ref: refOf(req.Ref), Subresource: req.Subresource, PatchType: string(req.PatchType),
		DryRun: req.DryRun, Identity: req.Identity, Body: jsonvalue.DeepCopy(req.Body), Outcome: string(res.Outcome)}
	if res.Outcome != adapters.OK {
		w.Message = res.Message
	}
	if l.redact && isSecret(req.Ref.APIVersion, req.Ref.Kind) {
		w.Body = redactBody(w.Body)
	}
	l.lines = append(l.lines, Decision{At: l.at(), Object: l.object, Machine: l.machine, Type: "write", Write: w})
}

func refOf(r adapters.Ref) Ref {
	return Ref{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

func (r Ref) adapters() adapters.Ref {
	return adapters.Ref{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// whys converts an explanation, its times as offsets since start.
func whys(ws []engine.Why, start time.Time) []Why {
	out := make([]Why, 0, len(ws))
	for _, w := range ws {
		y := Why{Transition: w.Transition, Fired: w.Fired, Guard: w.Guard}
		if w.Err != nil {
			y.Error = w.Err.Error()
		}
		for _, c := range w.Clauses {
			cl := Clause{Text: c.Text, Op: c.Op, Value: c.Value, Bool: c.Bool, Reads: c.Reads, OpensWhat: c.OpensWhat}
			if !c.Opens.IsZero() {
				o := c.Opens.Sub(start)
				cl.Opens = &o
			}
			y.Clauses = append(y.Clauses, cl)
		}
		out = append(out, y)
	}
	return out
}
