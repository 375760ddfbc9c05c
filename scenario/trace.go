package scenario

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
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
	return string(l.Append(nil))
}

// Append appends the line as String renders it to b.
func (l Line) Append(b []byte) []byte {
	b = AppendStamp(b, l.At)
	b = append(b, "  "...)
	return append(b, l.Text...)
}

// TraceWriter writes trace lines as a golden file holds them, one per
// line, buffered: give its Line to Options.Trace to stream a run's trace,
// and Flush when the run is over. The first write error stops the
// writing; Flush reports it.
type TraceWriter struct {
	w   *bufio.Writer
	buf []byte
	err error
}

// NewTraceWriter returns a TraceWriter writing to w.
func NewTraceWriter(w io.Writer) *TraceWriter {
	return &TraceWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

// Line writes one line.
func (t *TraceWriter) Line(l Line) {
	if t.err != nil {
		return
	}
	t.buf = append(l.Append(t.buf[:0]), '\n')
	_, t.err = t.w.Write(t.buf)
}

// Flush writes what is buffered and returns the first write error.
func (t *TraceWriter) Flush() error {
	if t.err != nil {
		return t.err
	}
	t.err = t.w.Flush()
	return t.err
}

// Stamp renders a duration since the start as +DdHH:MM:SS.
func Stamp(d time.Duration) string {
	return string(AppendStamp(nil, d))
}

// AppendStamp appends Stamp(d) to b.
func AppendStamp(b []byte, d time.Duration) []byte {
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h := d / time.Hour
	d -= h * time.Hour
	m := d / time.Minute
	d -= m * time.Minute
	s := d / time.Second
	b = append(b, '+')
	b = strconv.AppendInt(b, int64(days), 10)
	b = append(b, 'd')
	two := func(b []byte, v time.Duration) []byte {
		if v >= 0 && v < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(v), 10)
	}
	b = two(b, h)
	b = append(b, ':')
	b = two(b, m)
	b = append(b, ':')
	return two(b, s)
}

func (r *runner) since() time.Duration { return r.clock.Now().Sub(r.s.Start) }

func (r *runner) add(kind, object, text string) {
	r.emit(Line{At: r.since(), Kind: kind, Object: object, Text: text})
}

// emit hands one line to the run's sink (Options.Trace), or keeps it in
// Result.Trace when there is none.
func (r *runner) emit(l Line) {
	r.res.Lines++
	if r.opts.Trace != nil {
		r.opts.Trace(l)
		return
	}
	r.res.Trace = append(r.res.Trace, l)
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
	for _, made := range r.takeRecords() {
		rec := made.Record
		for w := range r.counts {
			if matches(rec, w) {
				r.counts[w]++
			}
		}
		if !rec.IsWrite() {
			continue
		}
		if trace {
			r.emit(Line{At: rec.Time.Sub(r.s.Start), Kind: "request", Object: rec.Ref.String(), Text: "  " + RequestText(rec)})
		}
		if rec.Outcome != adapters.OK || rec.DryRun {
			continue
		}
		if rec.Ref != made.by {
			r.schedule(rec.Ref, r.clock.Now())
		}
		if owner, ok := r.controller(rec.Ref); ok && owner != made.by {
			r.schedule(owner, r.clock.Now())
		}
	}
}

// takeRecords takes the cluster's records, each with the object whose
// reconcile made it: a FaultCluster knows; any other cluster hands the
// runner its records as they are served, so during a reconcile they are
// that reconcile's, and outside one the world's. The slice handed out is
// reused by the next call (as the simulator reuses its records): flush is
// done with a batch when it takes the next.
func (r *runner) takeRecords() []madeRecord {
	if h, ok := r.cluster.(reconcileHooks); ok {
		return h.takeRecords()
	}
	out := r.made[:0]
	for _, rec := range r.cluster.TakeRecords() {
		out = append(out, madeRecord{Record: rec, by: r.current})
	}
	r.made = out
	return out
}

// RequestText renders one request as a trace line shows it: verb,
// subresource, object, patch type, dry run, identity, outcome and, for a
// failure, the server's message.
func RequestText(rec sim.Record) string {
	return adapters.RequestLine(adapters.Request{Verb: rec.Verb, Ref: rec.Ref, Subresource: rec.Subresource,
		PatchType: rec.PatchType, DryRun: rec.DryRun, Identity: rec.Identity}, rec.Outcome, rec.Message)
}

// Transition implements engine.Tracer.
func (r *runner) Transition(now time.Time, obj adapters.Ref, res *engine.Result) {
	if r.opts.Steps != nil {
		r.opts.Steps.Transition(now, obj, res)
	}
	r.flush(true)
	r.emit(Line{At: r.since(), Kind: "transition", Object: obj.String(), Text: TransitionText(obj, res, r.s.Start), From: res.From, To: res.To})
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
