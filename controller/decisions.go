package controller

// Decision records: with Options.DecisionRecords, the controller keeps on
// each driven object its last decisions, each with the clause values that
// decided it, in one annotation, for `statecraft why` to read on a live
// cluster.
//
// Why an annotation on the object, and not Events: an Event expires (an
// hour by default, kube-apiserver --event-ttl) and client-go's correlator
// merges or drops repeated ones, while an object that went to Error days
// ago must still say which transition and clause put it there; the record
// lives and goes with its object, and a reader needs only get on it. Why
// not its status: the status schema is the CRD's (a structural schema
// prunes what it does not declare) or, for a built-in or foreign kind,
// not the machine's at all, and the memory may not even live there (an
// annotation or a companion ConfigMap, spec/language.md "Memory"); a
// companion object of its own would need create rights on ConfigMaps in
// every namespace. The cost is one merge patch of the object's metadata
// per reconcile that fired a transition or reported a new problem (never
// on a check that found nothing to do, nor for a periodic self-transition
// that repeats the last record), made with the patch right the controller
// already has on the kinds it drives; the change is not taken for a change
// of the object (changedBeyondStatus ignores the annotation). The ring is
// bounded in count (the option) and in size (maxDecisionBytes), far below
// the API server's 256 KiB for all annotations.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// DecisionAnnotation is the annotation that holds an object's decision
// records: a JSON list, oldest first.
const DecisionAnnotation = "statecraft.dev/decisions"

// maxDecisionBytes bounds the annotation's value: the oldest records go
// first.
const maxDecisionBytes = 16 << 10

// A DecisionRecord is one decision the controller kept on an object: a
// fired transition with the values of its guard's clauses and the
// candidates tried before it with the clause that blocked each, or a
// problem reported instead of a transition.
type DecisionRecord struct {
	At         time.Time `json:"at"`
	Machine    string    `json:"machine"`
	From       string    `json:"from,omitempty"`
	To         string    `json:"to,omitempty"`
	Transition string    `json:"transition,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Message    string    `json:"message,omitempty"`
	// Outcome is "ACTION OUTCOME" when the route was taken for an
	// action's outcome other than ok ("patch forbidden").
	Outcome string `json:"outcome,omitempty"`
	// Wake is when the route asked to be looked at again.
	Wake *time.Time `json:"wake,omitempty"`
	// Problem is set for a problem reported instead of a transition
	// (Reason and Message).
	Problem bool `json:"problem,omitempty"`
	// Guard is the fired transition's guard ("" when it has none) and
	// Because the values of its top-level clauses.
	Guard   string         `json:"guard,omitempty"`
	Because []ClauseRecord `json:"because,omitempty"`
	// Blocked are the candidates tried before the one that fired, each
	// with the clause that kept it from firing.
	Blocked []BlockedRecord `json:"blocked,omitempty"`
	// Writes are the writes the transition's actions sent, as trace
	// lines show them ("patch ConfigMap/ns/x (merge): ok").
	Writes []string `json:"writes,omitempty"`
}

// ClauseRecord is one top-level clause of a guard with its value and the
// values it read.
type ClauseRecord struct {
	Clause string   `json:"clause"`
	Value  string   `json:"value"`
	Reads  []string `json:"reads,omitempty"`
}

// BlockedRecord is a candidate that did not fire, with what blocked it:
// the guard's error, or its false clauses (the first false operand of an
// &&, every operand of an ||); Opens says when a false time comparison in
// the clause would next hold.
type BlockedRecord struct {
	Transition string         `json:"transition"`
	Error      string         `json:"error,omitempty"`
	Clauses    []ClauseRecord `json:"clauses,omitempty"`
	Opens      *time.Time     `json:"opens,omitempty"`
	OpensWhat  string         `json:"opensWhat,omitempty"`
}

// Because returns the clause records of a fired transition's explanation.
func Because(y engine.Why) []ClauseRecord {
	out := make([]ClauseRecord, 0, len(y.Clauses))
	for _, c := range y.Clauses {
		out = append(out, clauseRecord(c))
	}
	return out
}

// Blocking returns what kept the candidate y from firing.
func Blocking(y engine.Why) BlockedRecord {
	b := BlockedRecord{Transition: y.Transition}
	if y.Err != nil {
		b.Error = clip(y.Err.Error(), 300)
		return b
	}
	for _, c := range y.Clauses {
		if c.Bool == nil || *c.Bool {
			continue
		}
		b.Clauses = append(b.Clauses, clauseRecord(c))
		if !c.Opens.IsZero() && b.Opens == nil {
			at := c.Opens.UTC()
			b.Opens, b.OpensWhat = &at, clip(c.OpensWhat, 200)
		}
		if c.Op == "&&" {
			break // the first false conjunct decides
		}
	}
	if len(b.Clauses) == 0 && y.Guard != "" {
		b.Clauses = []ClauseRecord{{Clause: clip(oneLine(y.Guard), 200), Value: "false"}}
	}
	return b
}

func clauseRecord(c engine.ClauseWhy) ClauseRecord {
	r := ClauseRecord{Clause: clip(oneLine(c.Text), 200), Value: clip(c.Value, 120)}
	for i, rd := range c.Reads {
		if i == 4 {
			break
		}
		r.Reads = append(r.Reads, clip(rd, 160))
	}
	return r
}

// Explained turns a step's explanation into the record of the transition
// it fired: its guard and clause values, and what blocked the candidates
// before it. The record's other fields are left to the caller.
func Explained(whys []engine.Why) DecisionRecord {
	var rec DecisionRecord
	for _, y := range whys {
		if y.Fired {
			rec.Transition, rec.Guard, rec.Because = y.Transition, clip(oneLine(y.Guard), 300), Because(y)
			continue
		}
		if len(rec.Blocked) < 12 {
			rec.Blocked = append(rec.Blocked, Blocking(y))
		}
	}
	return rec
}

// DecisionRecords reads the decision records kept on obj (oldest first);
// nil when it has none.
func DecisionRecords(obj map[string]any) ([]DecisionRecord, error) {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	s, ok := ann[DecisionAnnotation].(string)
	if !ok || s == "" {
		return nil, nil
	}
	var out []DecisionRecord
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, fmt.Errorf("annotation %s is not a list of decision records: %v", DecisionAnnotation, err)
	}
	return out, nil
}

// decisionCollector gathers the decision records of one reconcile and
// keeps them on the object when it is over.
type decisionCollector struct {
	c      *Controller
	ref    adapters.Ref
	m      *fsm.Machine
	recs   []DecisionRecord
	firing bool         // the last step fired a transition, whose actions run
	why    []engine.Why // that step's explanation
	writes []string     // the writes its actions sent so far
}

func (d *decisionCollector) Step(_ time.Time, _ adapters.Ref, m *fsm.Machine, snap engine.Snapshot, dec *engine.Decision) {
	d.m, d.why, d.writes, d.firing = m, nil, nil, dec.Transition != nil
	if d.firing {
		d.why = engine.Explain(m, snap, dec)
	}
}

// Request notes the writes of the transition being carried out: they come
// between its step and its Transition (the closing memory write comes
// after the last Transition, and is not a decision).
func (d *decisionCollector) Request(req adapters.Request, res adapters.Result) {
	if d.firing && req.Verb != adapters.Get && req.Verb != adapters.List && len(d.writes) < 8 {
		d.writes = append(d.writes, WriteLine(req, res))
	}
}

func (d *decisionCollector) Transition(now time.Time, _ adapters.Ref, r *engine.Result) {
	rec := Explained(d.why)
	rec.At, rec.Machine = now.UTC(), machineName(d.m)
	rec.From, rec.To, rec.Transition, rec.Reason, rec.Message = r.From, r.To, r.Transition, r.Reason, clip(r.Message, 300)
	if r.Last != nil && r.Last.Outcome != string(adapters.OK) {
		rec.Outcome = r.Last.Action + " " + r.Last.Outcome
	}
	if r.Wait && !r.Wake.IsZero() {
		w := r.Wake.UTC()
		rec.Wake = &w
	}
	rec.Writes = d.writes
	d.recs = append(d.recs, rec)
	d.why, d.writes, d.firing = nil, nil, false
}

func (d *decisionCollector) Problem(now time.Time, _ adapters.Ref, p *engine.Problem) {
	d.recs = append(d.recs, DecisionRecord{At: now.UTC(), Machine: machineName(d.m), Problem: true, Reason: p.Reason, Message: clip(p.Message, 300)})
}

// Done keeps the reconcile's records on the object, after the records
// already there, unless the reconcile failed (it is retried, and decides
// again) or its only records repeat the last one kept.
func (d *decisionCollector) Done(rep engine.Report) {
	if rep.Err != nil || rep.Gone || len(d.recs) == 0 {
		return
	}
	ctx := context.Background()
	got := d.c.cache.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: d.ref})
	if got.Outcome != adapters.OK {
		return
	}
	kept, err := DecisionRecords(got.Object)
	if err != nil {
		d.c.opts.Logger.Warn("decision records unreadable; starting them again", "object", d.ref.String(), "error", err)
		kept = nil
	}
	added := false
	for _, rec := range d.recs {
		if n := len(kept); n > 0 && repeats(kept[n-1], rec) {
			continue
		}
		kept, added = append(kept, rec), true
	}
	if !added {
		return
	}
	val := encodeRecords(kept, d.c.opts.DecisionRecords)
	body := map[string]any{"metadata": map[string]any{"annotations": map[string]any{DecisionAnnotation: val}}}
	res := d.c.api.Do(ctx, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: d.ref, Body: body})
	if res.Outcome != adapters.OK && res.Outcome != adapters.NotFound {
		d.c.opts.Logger.Warn("decision records not kept", "object", d.ref.String(), "outcome", res.Outcome, "message", res.Message)
	}
}

// repeats reports whether rec says again what last says: the same
// problem, or the same self-transition sending nothing (a periodic check
// such as waiting for a target).
func repeats(last, rec DecisionRecord) bool {
	if rec.Problem {
		return last.Problem && last.Reason == rec.Reason && last.Message == rec.Message
	}
	return !last.Problem && rec.From == rec.To && len(rec.Writes) == 0 && last.From == rec.From && last.To == rec.To &&
		last.Transition == rec.Transition && last.Reason == rec.Reason && last.Message == rec.Message
}

// encodeRecords renders the newest n records (fewer when they would pass
// maxDecisionBytes) as the annotation's value.
func encodeRecords(recs []DecisionRecord, n int) string {
	if len(recs) > n {
		recs = recs[len(recs)-n:]
	}
	for {
		b, _ := json.Marshal(recs)
		if len(b) <= maxDecisionBytes || len(recs) == 0 {
			return string(b)
		}
		if len(recs) == 1 {
			r := recs[0]
			r.Because, r.Blocked, r.Writes = nil, nil, nil
			b, _ = json.Marshal([]DecisionRecord{r})
			return string(b)
		}
		recs = recs[1:]
	}
}

func machineName(m *fsm.Machine) string {
	if m == nil {
		return ""
	}
	return m.Name
}

// WriteLine renders a write and its outcome as a trace line does, without
// the server's message (a decision record stays small).
func WriteLine(req adapters.Request, res adapters.Result) string {
	return adapters.RequestLine(req, res.Outcome, "")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
