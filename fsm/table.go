package fsm

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// WriteTable renders a machine as a transition table: one row per route,
// in the order transitions are tried. With only set, it shows what can
// happen from that state, in order.
func WriteTable(w io.Writer, m *Machine, only string) {
	fmt.Fprintf(w, "machine %s", m.Name)
	if m.Source.Description != "" {
		fmt.Fprintf(w, ": %s", m.Source.Description)
	}
	fmt.Fprintln(w)
	var binds []string
	for _, r := range m.Resources {
		binds = append(binds, fmt.Sprintf("%s %s (%s)", r.APIVersion, r.Kind, r.Scope))
	}
	fmt.Fprintf(w, "resources: %s\n", strings.Join(binds, ", "))
	var states []string
	for _, s := range m.States {
		desc := s.Name
		var attrs []string
		if s.Initial {
			attrs = append(attrs, "initial")
		}
		if s.Final {
			attrs = append(attrs, "final")
		}
		if s.Outcome != "" {
			attrs = append(attrs, "outcome "+s.Outcome)
		}
		if s.Recheck != nil {
			attrs = append(attrs, "recheck "+s.Recheck.Expr.Source)
			if s.Jitter != nil {
				attrs = append(attrs, "jitter "+s.Jitter.Expr.Source)
			}
		}
		if len(attrs) > 0 {
			desc += " (" + strings.Join(attrs, ", ") + ")"
		}
		states = append(states, desc)
	}
	fmt.Fprintf(w, "states: %s\n\n", strings.Join(states, ", "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FROM\tTRANSITION\tGUARD\tACTIONS\tON\tTO\tREASON")
	for _, t := range m.Transitions {
		from := strings.Join(t.From, ",")
		if only != "" {
			if !fromIncludes(t, only) {
				continue
			}
			from = only
		}
		guard := "true"
		if t.When != nil {
			guard = t.When.Expr.Source
		}
		var acts []string
		for _, a := range t.Actions {
			s := a.Verb + " " + a.Name
			if a.DryRun {
				s += " (dry-run)"
			}
			acts = append(acts, s)
		}
		actions := strings.Join(acts, "; ")
		if actions == "" {
			actions = "-"
		}
		if t.Done != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", from, t.Name, guard, actions, "done", stay(t.Done.To), dash(strings.Join(t.Done.ReasonNames(), " | ")))
		}
		for _, r := range t.Routes {
			on := r.Action + " " + r.Outcome
			if r.When != nil {
				on += " if " + r.When.Expr.Source
			}
			fmt.Fprintf(tw, "\t\t\t\t%s\t%s\t%s\n", on, stay(r.To), dash(strings.Join(r.ReasonNames(), " | ")))
		}
	}
	tw.Flush()
}

func fromIncludes(t *Transition, state string) bool {
	for _, f := range t.From {
		if f == Wildcard || f == state {
			return true
		}
	}
	return false
}

// stay renders an empty destination: the object stays where it is.
func stay(to string) string {
	if to == "" {
		return "(stays)"
	}
	return to
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteCosts lists every expression with its position and static cost
// estimate (min..max CEL cost units, "unbounded" when an input's size is
// not known), against the runtime limit.
func WriteCosts(w io.Writer, m *Machine) {
	fmt.Fprintf(w, "expression costs (runtime limit %d per evaluation):\n", DefaultCostLimit)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range m.Programs() {
		max := fmt.Sprint(p.Cost.Max)
		if p.Cost.Max == math.MaxUint64 {
			max = "unbounded"
		}
		src := strings.Join(strings.Fields(p.Expr.Source), " ")
		if len(src) > 70 {
			src = src[:67] + "..."
		}
		fmt.Fprintf(tw, "%s:%d:%d\t%d..%s\t%s\n", p.Expr.Range.Filename, p.Expr.Range.Start.Line, p.Expr.Range.Start.Column, p.Cost.Min, max, src)
	}
	tw.Flush()
}
