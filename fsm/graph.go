package fsm

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// A graph has one node per state, in declaration order, and one edge per
// route (the success route, then the on routes) and per state the route's
// transition fires from, in declaration order. A transition from "*" is
// drawn once, from a node "any state", instead of from every state. The
// initial state is entered from a start point; a final state leads to an
// end point (Mermaid) or has a double border (DOT).

// edgeLabel is the label of one route's edge: the transition name, then for
// an on route the action and outcome it handles (and its guard), then the
// reason, and the wait if the route asks for one.
func edgeLabel(t *Transition, r *Route) string {
	var b strings.Builder
	b.WriteString(t.Name)
	if r != t.Done {
		fmt.Fprintf(&b, " [%s %s", r.Action, r.Outcome)
		if r.When != nil {
			fmt.Fprintf(&b, " if %s", r.When.Expr.Source)
		}
		b.WriteString("]")
	}
	if names := r.ReasonNames(); len(names) > 0 {
		fmt.Fprintf(&b, " / %s", strings.Join(names, " | "))
	}
	if r.After != nil {
		fmt.Fprintf(&b, " (after %s)", r.After.Expr.Source)
	}
	if r.At != nil {
		fmt.Fprintf(&b, " (at %s)", r.At.Expr.Source)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

type graphEdge struct {
	from, to string // state names; from is Wildcard for "*"
	label    string
}

func graphEdges(m *Machine) []graphEdge {
	var out []graphEdge
	for _, t := range m.Transitions {
		var from []string
		if slices.Contains(t.From, Wildcard) {
			from = []string{Wildcard}
		} else {
			from = t.From
		}
		for _, r := range routes(t) {
			for _, f := range from {
				to := r.To
				if to == "" { // the route stays: a self-loop
					if f == Wildcard {
						continue
					}
					to = f
				}
				out = append(out, graphEdge{from: f, to: to, label: edgeLabel(t, r)})
			}
		}
	}
	return out
}

func hasWildcard(m *Machine) bool {
	for _, t := range m.Transitions {
		if slices.Contains(t.From, Wildcard) {
			return true
		}
	}
	return false
}

func stateNote(s *State) string {
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
	return strings.Join(attrs, ", ")
}

var mermaidID = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// WriteMermaid writes the machine as a Mermaid state diagram
// (stateDiagram-v2), which renders in code review.
func WriteMermaid(w io.Writer, m *Machine) error {
	ids := map[string]string{Wildcard: "any_state"}
	for i, s := range m.States {
		id := s.Name
		if !mermaidID.MatchString(id) || id == "any_state" || id == "state" || id == "end" || id == "direction" || id == "note" {
			id = fmt.Sprintf("s%d", i)
		}
		ids[s.Name] = id
	}
	var b strings.Builder
	b.WriteString("stateDiagram-v2\n")
	fmt.Fprintf(&b, "    %%%% machine %s\n", mermaidText(m.Name))
	for _, s := range m.States {
		label := s.Name
		if n := stateNote(s); n != "" {
			label += " (" + n + ")"
		}
		fmt.Fprintf(&b, "    state \"%s\" as %s\n", mermaidText(label), ids[s.Name])
	}
	if hasWildcard(m) {
		fmt.Fprintf(&b, "    state \"any state\" as %s\n", ids[Wildcard])
	}
	if m.Initial != nil {
		fmt.Fprintf(&b, "    [*] --> %s\n", ids[m.Initial.Name])
	}
	for _, e := range graphEdges(m) {
		fmt.Fprintf(&b, "    %s --> %s: %s\n", ids[e.from], ids[e.to], mermaidText(e.label))
	}
	for _, s := range m.States {
		if s.Final {
			fmt.Fprintf(&b, "    %s --> [*]\n", ids[s.Name])
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// mermaidText escapes what would end a Mermaid label or statement.
func mermaidText(s string) string {
	return strings.NewReplacer("#", "#35;", ";", "#59;", `"`, "#quot;", "\n", " ").Replace(s)
}

// WriteDOT writes the machine as a Graphviz digraph.
func WriteDOT(w io.Writer, m *Machine) error {
	var b strings.Builder
	fmt.Fprintf(&b, "digraph %s {\n", dotQuote(m.Name))
	b.WriteString("  rankdir=LR;\n")
	b.WriteString("  node [shape=box, style=rounded];\n")
	if m.Initial != nil {
		b.WriteString("  \"__start\" [shape=point, label=\"\"];\n")
	}
	for _, s := range m.States {
		attrs := []string{"label=" + dotQuote(s.Name)}
		if n := stateNote(s); n != "" {
			attrs[0] = "label=" + dotQuote(s.Name+"\n"+n)
		}
		if s.Final {
			attrs = append(attrs, "peripheries=2")
		}
		fmt.Fprintf(&b, "  %s [%s];\n", dotQuote(s.Name), strings.Join(attrs, ", "))
	}
	if hasWildcard(m) {
		fmt.Fprintf(&b, "  %s [label=\"any state\", shape=plaintext];\n", dotQuote(Wildcard))
	}
	if m.Initial != nil {
		fmt.Fprintf(&b, "  \"__start\" -> %s;\n", dotQuote(m.Initial.Name))
	}
	for _, e := range graphEdges(m) {
		fmt.Fprintf(&b, "  %s -> %s [label=%s];\n", dotQuote(e.from), dotQuote(e.to), dotQuote(e.label))
	}
	b.WriteString("}\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func dotQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s) + `"`
}
