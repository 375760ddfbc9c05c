package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/scenario"
)

// whyStep is one explained step of one object.
type whyStep struct {
	at    time.Time
	obj   string
	from  string
	fired bool
	whys  []engine.Why
}

// whyCollector explains every step of a scenario run (sim --why).
type whyCollector struct {
	engine.NopTracer // its Transition and Problem do nothing

	steps []*whyStep
}

func (c *whyCollector) Step(now time.Time, obj adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	if d.Problem != nil && d.Transition == nil && len(d.Guards) == 0 {
		return
	}
	c.steps = append(c.steps, &whyStep{at: now, obj: obj.String(), from: d.From, fired: d.Transition != nil, whys: engine.Explain(m, snap, d)})
}

// writeWhy prints the trace lines with, under each transition line, why it
// fired and why the candidates before it did not; steps where nothing fired
// are explained after the lines of their time ("rests in ...").
func writeWhy(w io.Writer, lines []scenario.Line, steps []*whyStep, start time.Time, object string) {
	var rest []*whyStep
	byObj := map[string][]*whyStep{}
	for _, s := range steps {
		if object != "" && s.obj != object {
			continue
		}
		if s.fired {
			byObj[s.obj] = append(byObj[s.obj], s)
		} else {
			rest = append(rest, s)
		}
	}
	flushRest := func(before time.Duration, all bool) {
		for len(rest) > 0 && (all || rest[0].at.Sub(start) < before) {
			s := rest[0]
			rest = rest[1:]
			// Without --object, a resting step shows only the candidates
			// that time alone would let through.
			var shown []engine.Why
			for _, y := range s.whys {
				if object != "" || timeGated(y) {
					shown = append(shown, y)
				}
			}
			if len(shown) == 0 {
				continue
			}
			fmt.Fprintf(w, "%s  %s: rests in %s: no candidate fired\n", scenario.Stamp(s.at.Sub(start)), s.obj, s.from)
			for _, y := range shown {
				writeWhyNot(w, y, s.at, start)
			}
		}
	}
	for _, l := range lines {
		flushRest(l.At, false)
		fmt.Fprintln(w, l)
		if l.Kind != "transition" {
			continue
		}
		q := byObj[l.Object]
		if len(q) == 0 {
			continue
		}
		s := q[0]
		byObj[l.Object] = q[1:]
		for _, y := range s.whys {
			if y.Fired {
				writeWhyFired(w, y)
			} else {
				writeWhyNot(w, y, s.at, start)
			}
		}
	}
	flushRest(0, true)
}

func timeGated(y engine.Why) bool {
	for _, c := range y.Clauses {
		if !c.Opens.IsZero() {
			return true
		}
	}
	return false
}

const whyIndent = "             "

func writeWhyFired(w io.Writer, y engine.Why) {
	if y.Guard == "" {
		fmt.Fprintf(w, "%s  why %q: no guard\n", whyIndent, y.Transition)
		return
	}
	fmt.Fprintf(w, "%s  why %q: %s\n", whyIndent, y.Transition, oneLine(y.Guard))
	for _, c := range y.Clauses {
		fmt.Fprintf(w, "%s    %s %s = %s%s\n", whyIndent, mark(c.Bool), c.Text, c.Value, readsText(c.Reads))
	}
}

func writeWhyNot(w io.Writer, y engine.Why, now, start time.Time) {
	if y.Err != nil {
		fmt.Fprintf(w, "%s  why not %q: the guard failed: %v\n", whyIndent, y.Transition, y.Err)
		return
	}
	var false_ []engine.ClauseWhy
	for _, c := range y.Clauses {
		if c.Bool != nil && !*c.Bool {
			false_ = append(false_, c)
			if c.Op == "&&" {
				break // the first false conjunct decides
			}
		}
	}
	if len(false_) == 0 {
		fmt.Fprintf(w, "%s  why not %q: %s is false\n", whyIndent, y.Transition, oneLine(y.Guard))
		return
	}
	for _, c := range false_ {
		fmt.Fprintf(w, "%s  why not %q: %s is false%s%s\n", whyIndent, y.Transition, c.Text, readsText(c.Reads), opensText(c, now, start))
	}
}

func opensText(c engine.ClauseWhy, now, start time.Time) string {
	if c.Opens.IsZero() {
		return ""
	}
	in := c.Opens.Sub(now)
	if in <= 0 {
		return fmt.Sprintf("; %s could pass now", c.OpensWhat)
	}
	return fmt.Sprintf("; %s holds from %s (in %s)", c.OpensWhat, scenario.Stamp(c.Opens.Sub(start)), shortDuration(in))
}

// shortDuration renders 3h12m, 90s as 1m30s, 2d4h.
func shortDuration(d time.Duration) string {
	d = d.Round(time.Second)
	var b strings.Builder
	for _, u := range []struct {
		n string
		d time.Duration
	}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}} {
		if d >= u.d {
			fmt.Fprintf(&b, "%d%s", d/u.d, u.n)
			d %= u.d
		}
	}
	if b.Len() == 0 {
		return "0s"
	}
	return b.String()
}

func mark(b *bool) string {
	switch {
	case b == nil:
		return "?"
	case *b:
		return "✓"
	}
	return "✗"
}

func readsText(r []string) string {
	if len(r) == 0 {
		return ""
	}
	return "  (" + strings.Join(r, ", ") + ")"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
