package verify

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

func (x *explorer) pathTo(n *node, start *Step) []*Step {
	var rev []*Step
	for c := n; c != nil && c.via != nil; c = c.parent {
		rev = append(rev, c.via.step)
	}
	out := []*Step{start}
	for i := len(rev) - 1; i >= 0; i-- {
		out = append(out, rev[i])
	}
	return out
}

func reproducible(steps ...[]*Step) bool {
	for _, ss := range steps {
		for _, s := range ss {
			if s.ev.kind == "spec" {
				return false
			}
		}
	}
	return true
}

func (x *explorer) finding(kind, summary string, path, cycle []*Step) *Finding {
	return &Finding{Kind: kind, Summary: summary, Path: path, Cycle: cycle, Reproducible: reproducible(path, cycle)}
}

func (x *explorer) analyse(rep *Report, first *node, start *Step) {
	reached := map[string]map[string]bool{}
	for _, m := range x.ms {
		reached[m.Name] = map[string]bool{}
	}
	reached[x.m.Name][x.m.Initial.Name] = true
	byKind := map[string]string{}
	for _, m := range x.ms {
		for _, r := range m.Resources {
			byKind[r.Kind] = m.Name
		}
	}
	// States entered, from the trace lines ("Kind/ns/name: A → B by ...")
	// and the objects of every node.
	note := func(l string) {
		i := strings.Index(l, " → ")
		if i < 0 {
			return
		}
		// "+0d00:00:00  Kind/name: FROM → TO by ...": an object stepped
		// from FROM (its first state, say) and entered TO.
		to := strings.Fields(l[i+len(" → "):])[0]
		head := strings.Fields(l[:i])
		if len(head) < 3 {
			return
		}
		kind, _, _ := strings.Cut(head[1], "/")
		if name, ok := byKind[kind]; ok {
			reached[name][to] = true
			reached[name][head[len(head)-1]] = true
		}
	}
	for _, l := range start.Lines {
		note(l)
	}
	for _, n := range x.order {
		for _, e := range append([]*edge{n.via}, n.out...) {
			if e == nil {
				continue
			}
			for _, l := range e.step.Lines {
				note(l)
			}
		}
		for r, o := range n.w.objs {
			if m := x.machineOf(r); m != nil {
				st, _ := asMap(o["status"])[m.StateField].(string)
				if st == "" || m.State(st) == nil {
					st = m.Initial.Name
				}
				reached[m.Name][st] = true
			}
		}
	}
	how := "no path reaches it"
	if x.trunc {
		how = "no path within the bounds reaches it"
	}
	for _, s := range x.m.States {
		if reached[x.m.Name][s.Name] {
			rep.Reached = append(rep.Reached, s.Name)
			continue
		}
		rep.Findings = append(rep.Findings, &Finding{Kind: "unreached", Summary: fmt.Sprintf("state %s is never entered: %s", s.Name, how),
			Reproducible: true, Machine: x.m.Name, States: []string{s.Name}})
	}
	for _, m := range x.ms[1:] {
		r := Reach{Machine: m.Name}
		for _, s := range m.States {
			if reached[m.Name][s.Name] {
				r.Reached = append(r.Reached, s.Name)
				continue
			}
			rep.Findings = append(rep.Findings, &Finding{Kind: "unreached", Summary: fmt.Sprintf("state %s of machine %s (driven with %s) is never entered: %s", s.Name, m.Name, x.m.Name, how),
				Reproducible: true, Machine: m.Name, States: []string{s.Name}})
		}
		rep.Others = append(rep.Others, r)
	}
	x.stuck(rep, start)
	x.cycles(rep, start)
	x.properties(rep, start)
	x.accept(rep)
}

// accept marks the findings an accept block of their machine's rule file
// declares (a finding about another machine explored with this one may
// also be declared by this machine's rule file, naming MACHINE.STATE), and
// lists this machine's accept blocks that matched nothing.
func (x *explorer) accept(rep *Report) {
	used := map[string]bool{}
	for _, f := range rep.Findings {
		if f.Machine == "" {
			f.Machine = x.m.Name
		}
		states := append([]string(nil), f.States...)
		if f.Machine != x.m.Name {
			for _, st := range f.States {
				states = append(states, f.Machine+"."+st)
			}
		}
		for _, m := range x.ms {
			if m.Name != f.Machine && m != x.m {
				continue
			}
			for _, a := range m.Source.Accepts {
				if f.Accepted == "" && a.Matches(f.Kind, states, f.Reasons, f.Property) {
					f.Accepted, f.Because = a.Name, a.Because
					if m == x.m {
						used[a.Name] = true
					}
				}
			}
		}
	}
	for _, a := range x.m.Source.Accepts {
		if !used[a.Name] {
			rep.Unused = append(rep.Unused, a.Name)
		}
	}
}

// stuck: a node from which no sequence of events leads to another state.
// Nodes the bounds left unexpanded count as able to leave.
func (x *explorer) stuck(rep *Report, start *Step) {
	can := map[*node]bool{}
	for _, n := range x.order {
		if !n.expanded {
			can[n] = true
		}
		for _, e := range n.out {
			if e.to.state != n.state {
				can[n] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for _, n := range x.order {
			if can[n] {
				continue
			}
			for _, e := range n.out {
				if can[e.to] && e.to.state == n.state {
					can[n], changed = true, true
					break
				}
			}
		}
	}
	done := map[string]bool{}
	for _, n := range x.order {
		if can[n] || done[n.state] {
			continue
		}
		done[n.state] = true
		f := x.finding("stuck",
			fmt.Sprintf("an object in %s (reason %s) can never leave it: no event the environment can make (time, other actors, failed requests, spec edits, annotations) moves it", n.state, orNone(n.reason)),
			x.pathTo(n, start), nil)
		f.States, f.Reasons = []string{n.state}, []string{n.reason}
		rep.Findings = append(rep.Findings, f)
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// cycles finds strongly connected sets of autonomous edges (time, another
// actor's drift, failed requests; no user action, no streak reset) that
// contain a drift and a write (livelock) or a failed write (retries).
func (x *explorer) cycles(rep *Report, start *Step) {
	fight := func(e *edge) bool { return e.auto && !e.calm && e.from.expanded }
	index := map[*node]int{}
	low := map[*node]int{}
	on := map[*node]bool{}
	var stack []*node
	comp := map[*node]int{}
	next, ncomp := 0, 0
	var strong func(n *node)
	strong = func(n *node) {
		index[n], low[n] = next, next
		next++
		stack = append(stack, n)
		on[n] = true
		for _, e := range n.out {
			if !fight(e) {
				continue
			}
			if _, ok := index[e.to]; !ok {
				strong(e.to)
				low[n] = min(low[n], low[e.to])
			} else if on[e.to] {
				low[n] = min(low[n], index[e.to])
			}
		}
		if low[n] == index[n] {
			for {
				m := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				on[m] = false
				comp[m] = ncomp
				if m == n {
					break
				}
			}
			ncomp++
		}
	}
	for _, n := range x.order {
		if _, ok := index[n]; !ok {
			strong(n)
		}
	}
	reported := map[string]int{}
	for c := 0; c < ncomp; c++ {
		var entry *node
		var driftE, writeE, failE *edge
		for _, n := range x.order {
			if comp[n] != c {
				continue
			}
			if entry == nil {
				entry = n
			}
			for _, e := range n.out {
				if !fight(e) || comp[e.to] != c {
					continue
				}
				if e.drift && driftE == nil {
					driftE = e
				}
				if len(e.writes) > 0 && !e.drift && writeE == nil {
					writeE = e
				}
				if e.failed && failE == nil {
					failE = e
				}
			}
		}
		if entry == nil {
			continue
		}
		inC := func(e *edge) bool { return fight(e) && comp[e.from] == c && comp[e.to] == c }
		var cstates, creasons []string
		for _, n := range x.order {
			if comp[n] == c {
				if !slices.Contains(cstates, n.state) {
					cstates = append(cstates, n.state)
				}
				if !slices.Contains(creasons, n.reason) {
					creasons = append(creasons, n.reason)
				}
			}
		}
		switch {
		case driftE != nil && (writeE != nil || len(driftE.writes) > 0):
			if reported["livelock"] >= 1 {
				continue
			}
			reported["livelock"]++
			via := []*edge{driftE}
			if writeE != nil && len(driftE.writes) == 0 {
				via = append(via, writeE)
			}
			cyc := x.replay(entry, x.cycleThrough(entry, via, inC))
			f := x.finding("livelock",
				fmt.Sprintf("repair fights another actor with no bound: every time %s is changed back, the machine writes it again, and nothing (a counter, a wait that grows without cap, a final state) ends the cycle through %s", driftE.step.ev.ref, statesOf(cyc)),
				x.pathTo(entry, start), cyc)
			f.States, f.Reasons = cstates, creasons
			rep.Findings = append(rep.Findings, f)
		case failE != nil:
			if reported["retries"] >= 1 {
				continue
			}
			reported["retries"]++
			cyc := x.replay(entry, x.cycleThrough(entry, []*edge{failE}, inC))
			f := x.finding("unbounded retries",
				fmt.Sprintf("a failing request is retried without bound: the cycle through %s repeats as long as the request fails", statesOf(cyc)),
				x.pathTo(entry, start), cyc)
			f.States, f.Reasons = cstates, creasons
			rep.Findings = append(rep.Findings, f)
		}
	}
}

func statesOf(steps []*Step) string {
	var out []string
	for _, s := range steps {
		for _, l := range s.Lines {
			if i := strings.Index(l, " → "); i > 0 {
				rest := l[i+len(" → "):]
				st := strings.Fields(rest)[0]
				if !slices.Contains(out, st) {
					out = append(out, st)
				}
			}
		}
	}
	if len(out) == 0 {
		return "the same state"
	}
	return strings.Join(out, ", ")
}

// cycleThrough returns steps from entry through each edge of via, in
// order, and back to entry, moving along edges ok allows.
func (x *explorer) cycleThrough(entry *node, via []*edge, ok func(*edge) bool) []*Step {
	var out []*Step
	at := entry
	for _, e := range via {
		out = append(out, x.route(at, e.from, ok)...)
		out = append(out, e.step)
		at = e.to
	}
	return append(out, x.route(at, entry, ok)...)
}

// replay plays the events of steps again from n's concrete world, so that
// the steps follow one another in time (abstract edges are found from
// other concrete representatives of the same abstract state).
func (x *explorer) replay(n *node, steps []*Step) []*Step {
	var out []*Step
	cur := n
	for _, s := range steps {
		ev := s.ev
		switch ev.kind {
		case "spec", "annotate":
			ev.at = cur.now.Add(time.Second)
		default:
			if cur.wake.IsZero() {
				return out
			}
			ev.at = cur.wake
		}
		r := x.run(cur, ev, ev.fault)
		out = append(out, r.step)
		cur = r.to
	}
	return out
}

// route is a shortest path of steps from a to b along allowed edges.
func (x *explorer) route(a, b *node, ok func(*edge) bool) []*Step {
	if a == b {
		return nil
	}
	prev := map[*node]*edge{a: nil}
	q := []*node{a}
	for len(q) > 0 {
		n := q[0]
		q = q[1:]
		for _, e := range n.out {
			if !ok(e) {
				continue
			}
			if _, seen := prev[e.to]; seen {
				continue
			}
			prev[e.to] = e
			if e.to == b {
				var rev []*Step
				for c := b; c != a; c = prev[c].from {
					rev = append(rev, prev[c].step)
				}
				slices.Reverse(rev)
				return rev
			}
			q = append(q, e.to)
		}
	}
	return nil
}

// properties checks the machine's property blocks.
func (x *explorer) properties(rep *Report, start *Step) {
	for _, p := range x.m.Source.Properties {
		if len(p.Eventually) > 0 {
			if f := x.eventually(p.Name, p.Eventually, p.ExceptReasons, start); f != nil {
				f.Property = p.Name
				rep.Findings = append(rep.Findings, f)
			}
		}
		if p.NeverWrites > 0 {
			win, _ := time.ParseDuration(p.NeverWindow)
			for _, n := range x.order {
				if k := len(n.lastWrites); k >= p.NeverWrites {
					w := n.lastWrites[k-p.NeverWrites:]
					if w[len(w)-1].Sub(w[0]) < win {
						f := x.finding("property",
							fmt.Sprintf("property %q fails: %d writes to other objects within %s (at %s and %s)", p.Name, p.NeverWrites, p.NeverWindow, stamp(w[0].Sub(x.opts.Start)), stamp(w[len(w)-1].Sub(x.opts.Start))),
							x.pathTo(n, start), nil)
						f.Property, f.States, f.Reasons = p.Name, []string{n.state}, []string{n.reason}
						rep.Findings = append(rep.Findings, f)
						break
					}
				}
			}
		}
	}
}

// eventually: from every reachable state, left alone (only time passes,
// every request succeeds), the object comes to one of the states.
func (x *explorer) eventually(name string, states, except []string, start *Step) *Finding {
	quiet := func(n *node) *edge {
		for _, e := range n.out {
			if e.step.ev.kind == "wake" && !e.faulted {
				return e
			}
		}
		return nil
	}
	good := map[*node]bool{}
	for _, n := range x.order {
		var walk []*node
		var steps []*Step
		seen := map[*node]int{}
		c := n
		for {
			if good[c] || slices.Contains(states, c.state) || !c.expanded {
				for _, w := range walk {
					good[w] = true
				}
				break
			}
			if i, ok := seen[c]; ok || quiet(c) == nil {
				// Rests for ever (no wake-up), or cycles from walk[i].
				loop := walk
				var cyc []*Step
				if ok {
					loop = walk[i:]
					cyc = steps[i:]
				} else {
					loop = []*node{c}
				}
				excused := len(except) > 0
				for _, l := range loop {
					if !slices.Contains(except, l.reason) {
						excused = false
					}
				}
				if excused {
					for _, w := range walk {
						good[w] = true
					}
					break
				}
				all := x.replay(n, steps)
				if len(all) == len(steps) {
					cyc = all[len(steps)-len(cyc):]
					steps = all
				}
				path := append(x.pathTo(n, start), steps[:len(steps)-len(cyc)]...)
				what := fmt.Sprintf("rests in %s (reason %s) with nothing to wake it", c.state, orNone(c.reason))
				if ok {
					what = fmt.Sprintf("cycles through %s for ever", statesOf(cyc))
					if statesOf(cyc) == "the same state" {
						what = fmt.Sprintf("stays in %s (reason %s), rechecking for ever", c.state, orNone(c.reason))
					}
				}
				f := x.finding("property", fmt.Sprintf("property %q fails: left alone, the object never comes to %s: it %s", name, strings.Join(states, " or "), what), path, cyc)
				for _, l := range loop {
					if !slices.Contains(f.States, l.state) {
						f.States = append(f.States, l.state)
					}
					if !slices.Contains(f.Reasons, l.reason) {
						f.Reasons = append(f.Reasons, l.reason)
					}
				}
				return f
			}
			seen[c] = len(walk)
			walk = append(walk, c)
			e := quiet(c)
			steps = append(steps, e.step)
			c = e.to
		}
	}
	return nil
}
