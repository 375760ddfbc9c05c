package rules

// Structural differences between two versions of rule files, for review.

import (
	"fmt"
	"sort"
	"strings"
)

// A Change is one structural difference between two versions of a
// machine's source, matched by name.
type Change struct {
	Machine string
	Kind    string   // "+" added, "-" removed, "~" changed
	What    string   // `state "Applied"`, `transition "apply"`, `reason Applied`
	Detail  []string // for "~": each attribute that changed, "name: old → new"
}

// Diff compares two setsText of machines by name: machines, their settings,
// resources, params, observations, lets, states, transitions (with their
// guards, actions and routes) and the reasonsOf they can report, in the
// order of the new source.
func Diff(oldM, newM map[string]*Machine) []Change {
	var out []Change
	names := map[string]bool{}
	for n := range oldM {
		names[n] = true
	}
	for n := range newM {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		o, nw := oldM[n], newM[n]
		switch {
		case o == nil:
			out = append(out, Change{Machine: n, Kind: "+", What: "machine " + quoted(n)})
		case nw == nil:
			out = append(out, Change{Machine: n, Kind: "-", What: "machine " + quoted(n)})
		default:
			out = append(out, machineDiff(n, o, nw)...)
		}
	}
	return out
}

// diffElement is a named part of a machine rendered as attributes.
type diffElement struct {
	what  string
	attrs [][2]string
}

func diffElements(m *Machine) []diffElement {
	var out []diffElement
	out = append(out, diffElement{what: "machine settings", attrs: [][2]string{{"state_field", m.StateField}, {"max_steps", fmt.Sprint(m.MaxSteps)}, {"description", m.Description}}})
	for _, r := range m.Resources {
		out = append(out, diffElement{what: "resource " + quoted(r.APIVersion+" "+r.Kind), attrs: [][2]string{{"scope", r.Scope}, {"schema", r.Schema}}})
	}
	for _, p := range m.Params {
		out = append(out, diffElement{what: "param " + quoted(p.Name), attrs: [][2]string{{"type", p.Type}, {"default", fmt.Sprint(p.Default)}, {"override", p.Override}, {"valid", exprText(p.Valid)}, {"reason", p.Reason}}})
	}
	for _, o := range m.Observes {
		out = append(out, diffElement{what: "observe " + quoted(o.Name), attrs: [][2]string{{"get", exprText(o.Get)}, {"list", exprText(o.List)}, {"when", exprText(o.When)}}})
	}
	for _, l := range m.Lets {
		out = append(out, diffElement{what: "let " + quoted(l.Name), attrs: [][2]string{{"value", exprText(l.Value)}}})
	}
	for _, s := range m.States {
		out = append(out, diffElement{what: "state " + quoted(s.Name), attrs: [][2]string{{"initial", fmt.Sprint(s.Initial)}, {"final", fmt.Sprint(s.Final)}, {"outcome", s.Outcome}, {"conditions", literalsText(s.Conditions)}, {"recheck", exprText(s.Recheck)}}})
	}
	for i, t := range m.Transitions {
		a := [][2]string{{"order", fmt.Sprint(i + 1)}, {"from", strings.Join(t.From, ", ")}, {"when", exprText(t.When)}}
		for _, ac := range t.Actions {
			p := "do " + quoted(ac.Name) + " "
			a = append(a, [2]string{p + "verb", ac.Verb}, [2]string{p + "target", exprText(ac.Target)}, [2]string{p + "body", exprText(ac.Body)},
				[2]string{p + "type", ac.PatchType}, [2]string{p + "dry_run", fmt.Sprint(ac.DryRun)}, [2]string{p + "identity", exprText(ac.Identity)},
				[2]string{p + "expect", exprText(ac.Expect)}, [2]string{p + "for_each", exprText(ac.ForEach)}, [2]string{p + "when", exprText(ac.When)}, [2]string{p + "propagation", ac.Propagation})
		}
		if t.Done != nil {
			a = append(a, diffRouteAttrs("success ", t.Done)...)
		}
		seen := map[string]int{}
		for _, r := range t.Routes {
			key := "on " + quoted(r.Action) + " " + quoted(r.Outcome)
			seen[key]++
			if seen[key] > 1 {
				key += fmt.Sprintf(" #%d", seen[key])
			}
			a = append(a, diffRouteAttrs(key+" ", r)...)
		}
		out = append(out, diffElement{what: "transition " + quoted(t.Name), attrs: a})
	}
	return out
}

func diffRouteAttrs(p string, r *Route) [][2]string {
	return [][2]string{{p + "when", exprText(r.When)}, {p + "to", r.To}, {p + "reason", r.Reason}, {p + "reason expression", exprText(r.ReasonExpr)}, {p + "reasons", strings.Join(r.Reasons, ", ")}, {p + "message", exprText(r.Message)},
		{p + "set", setsText(r.Set)}, {p + "conditions", literalsText(r.Conditions)}, {p + "after", exprText(r.After)}, {p + "at", exprText(r.At)}}
}

func quoted(s string) string { return fmt.Sprintf("%q", s) }

func exprText(e *Expr) string {
	if e == nil {
		return ""
	}
	return strings.Join(strings.Fields(e.Source), " ")
}

func literalsText(as []Assignment) string {
	var p []string
	for _, a := range as {
		p = append(p, a.Path+" = "+a.Lit)
	}
	return strings.Join(p, ", ")
}

func setsText(as []Assignment) string {
	var p []string
	for _, a := range as {
		p = append(p, a.Path+" = "+exprText(a.Value))
	}
	return strings.Join(p, ", ")
}

func reasonsOf(m *Machine) map[string]bool {
	out := map[string]bool{}
	for _, t := range m.Transitions {
		if t.Done != nil {
			for _, n := range t.Done.ReasonNames() {
				out[n] = true
			}
		}
		for _, r := range t.Routes {
			for _, n := range r.ReasonNames() {
				out[n] = true
			}
		}
	}
	for _, p := range m.Params {
		if p.Override != "" || p.Valid != nil {
			out[p.Reason] = true
		}
	}
	return out
}

func machineDiff(name string, o, n *Machine) []Change {
	var out []Change
	oe, ne := diffElements(o), diffElements(n)
	index := func(es []diffElement) map[string]diffElement {
		m := map[string]diffElement{}
		for _, e := range es {
			m[e.what] = e
		}
		return m
	}
	oi, ni := index(oe), index(ne)
	for _, e := range oe {
		if _, ok := ni[e.what]; !ok {
			out = append(out, Change{Machine: name, Kind: "-", What: e.what})
		}
	}
	for _, e := range ne {
		old, ok := oi[e.what]
		if !ok {
			out = append(out, Change{Machine: name, Kind: "+", What: e.what})
			continue
		}
		om := map[string]string{}
		for _, a := range old.attrs {
			om[a[0]] = a[1]
		}
		nm := map[string]bool{}
		var det []string
		for _, a := range e.attrs {
			nm[a[0]] = true
			if ov := om[a[0]]; ov != a[1] {
				det = append(det, fmt.Sprintf("%s: %s → %s", a[0], shownValue(ov), shownValue(a[1])))
			}
		}
		for _, a := range old.attrs {
			if !nm[a[0]] && a[1] != "" {
				det = append(det, fmt.Sprintf("%s: %s → %s", a[0], shownValue(a[1]), shownValue("")))
			}
		}
		if len(det) > 0 {
			out = append(out, Change{Machine: name, Kind: "~", What: e.what, Detail: det})
		}
	}
	or, nr := reasonsOf(o), reasonsOf(n)
	for _, r := range sortedNames(or) {
		if !nr[r] {
			out = append(out, Change{Machine: name, Kind: "-", What: "reason " + r})
		}
	}
	for _, r := range sortedNames(nr) {
		if !or[r] {
			out = append(out, Change{Machine: name, Kind: "+", What: "reason " + r})
		}
	}
	return out
}

func shownValue(s string) string {
	if s == "" {
		return "(none)"
	}
	return quoted(s)
}

func sortedNames(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ------------------------------------------------------------ behaviour
