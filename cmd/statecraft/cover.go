package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// coverage accumulates, per machine (by name), what a scenario suite
// exercised: states entered or stepped from, transitions fired, routes
// taken, and each top-level guard clause seen true and seen false.
type coverage struct {
	machines map[string]*machineCover
	order    []string
}

type machineCover struct {
	m           *fsm.Machine
	states      map[string]bool
	transitions map[string]bool
	routes      map[string]bool    // route event names
	clauses     map[string][2]bool // transition + "\x00" + clause index: seen false, seen true
}

func newCoverage() *coverage { return &coverage{machines: map[string]*machineCover{}} }

func (c *coverage) machine(m *fsm.Machine) *machineCover {
	mc := c.machines[m.Name]
	if mc == nil {
		mc = &machineCover{m: m, states: map[string]bool{}, transitions: map[string]bool{}, routes: map[string]bool{}, clauses: map[string][2]bool{}}
		c.machines[m.Name] = mc
		c.order = append(c.order, m.Name)
	}
	return mc
}

// lastMachine remembers which machine the next Transition call is about.
var _ engine.StepTracer = (*coverTracer)(nil)

type coverTracer struct {
	engine.NopTracer // its Problem does nothing

	c    *coverage
	last map[adapters.Ref]*fsm.Machine
}

func (t *coverTracer) Step(_ time.Time, obj adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	if t.last == nil {
		t.last = map[adapters.Ref]*fsm.Machine{}
	}
	t.last[obj] = m
	mc := t.c.machine(m)
	mc.states[d.From] = true
	for _, g := range d.Guards {
		var tr *fsm.Transition
		for _, x := range m.Candidates(d.From) {
			if x.Name == g.Transition {
				tr = x
			}
		}
		if tr == nil || tr.When == nil {
			continue
		}
		for i, v := range engine.ClauseValues(m, snap, tr.When) {
			if v == nil {
				continue
			}
			k := fmt.Sprintf("%s\x00%d", tr.Name, i)
			seen := mc.clauses[k]
			if *v {
				seen[1] = true
			} else {
				seen[0] = true
			}
			mc.clauses[k] = seen
		}
	}
}

func (t *coverTracer) Transition(_ time.Time, obj adapters.Ref, r *engine.Result) {
	m := t.last[obj]
	if m == nil {
		return
	}
	mc := t.c.machine(m)
	mc.transitions[r.Transition] = true
	mc.routes[r.Event] = true
	mc.states[r.To] = true
}

// coverRow is one measure of one machine.
type coverRow struct {
	what           string
	covered, total int
	missing        []string
}

func (r coverRow) percent() float64 {
	if r.total == 0 {
		return 100
	}
	return 100 * float64(r.covered) / float64(r.total)
}

func (mc *machineCover) rows() []coverRow {
	m := mc.m
	st := coverRow{what: "states"}
	for _, s := range m.States {
		st.total++
		if mc.states[s.Name] {
			st.covered++
		} else {
			st.missing = append(st.missing, s.Name)
		}
	}
	tr := coverRow{what: "transitions"}
	ro := coverRow{what: "outcome routes"}
	cl := coverRow{what: "guard clauses (true and false)"}
	for _, t := range m.Transitions {
		tr.total++
		if mc.transitions[t.Name] {
			tr.covered++
		} else {
			tr.missing = append(tr.missing, fmt.Sprintf("%q", t.Name))
		}
		rs := t.Routes
		if t.Done != nil {
			rs = append([]*fsm.Route{t.Done}, rs...)
		}
		for _, r := range rs {
			ro.total++
			if mc.routes[r.Event] {
				ro.covered++
			} else {
				name := fmt.Sprintf("%q ok", t.Name)
				if r.Action != "" {
					name = fmt.Sprintf("%q on %s %s", t.Name, r.Action, r.Outcome)
					if r.When != nil {
						name += " if " + oneLine(r.When.Expr.Source)
					}
				}
				ro.missing = append(ro.missing, name)
			}
		}
		if t.When == nil {
			continue
		}
		for i, c := range t.When.Clauses() {
			seen := mc.clauses[fmt.Sprintf("%s\x00%d", t.Name, i)]
			for v, label := range []string{"false", "true"} {
				cl.total++
				if seen[v] {
					cl.covered++
				} else {
					cl.missing = append(cl.missing, fmt.Sprintf("%q: %s never %s", t.Name, c.Text, label))
				}
			}
		}
	}
	return []coverRow{st, tr, ro, cl}
}

// write prints the coverage per machine and returns the lowest percentage
// of any measure.
func (c *coverage) write(w io.Writer) float64 {
	low := 100.0
	names := append([]string(nil), c.order...)
	sort.Strings(names)
	for _, n := range names {
		mc := c.machines[n]
		fmt.Fprintf(w, "coverage of machine %s\n", n)
		for _, r := range mc.rows() {
			fmt.Fprintf(w, "  %-31s %3d/%-3d %5.1f%%\n", r.what, r.covered, r.total, r.percent())
			if len(r.missing) > 0 {
				fmt.Fprintf(w, "    missing: %s\n", strings.Join(r.missing, "; "))
			}
			if p := r.percent(); p < low {
				low = p
			}
		}
	}
	return low
}
