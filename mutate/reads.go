package mutate

import (
	"sort"

	"github.com/antlr4-go/antlr/v4"
	"github.com/google/cel-go/parser/gen"

	"github.com/statecraft/statecraft/rules"
)

// idents lists the identifiers a CEL expression names (variables, lets,
// observations; a comprehension's own variable too, which only makes the
// list longer than needed).
func idents(src string) map[string]bool {
	out := map[string]bool{}
	t, ok := parseCEL(src)
	if !ok {
		return nil
	}
	var walk func(n antlr.Tree)
	walk = func(n antlr.Tree) {
		if c, ok := n.(*gen.IdentContext); ok {
			out[c.GetId().GetText()] = true
		}
		for _, ch := range n.GetChildren() {
			walk(ch)
		}
	}
	walk(t.tree)
	return out
}

// letReaders says, for each let of a machine, what reads it, directly or
// through other lets: transitions (their guards, actions and routes) and
// states (rechecks, jitters, sets). always is set when an observation or a
// param's check reads it: those are evaluated at every step.
type letReaders struct {
	transitions, states []string
	always              bool
}

func readersOfLets(m *rules.Machine) map[string]*letReaders {
	lets := map[string]bool{}
	letReads := map[string]map[string]bool{}
	for _, l := range m.Lets {
		lets[l.Name] = true
	}
	for _, l := range m.Lets {
		letReads[l.Name] = idents(l.Value.Source)
	}
	// closure: the lets an expression reaches.
	reach := func(es ...*rules.Expr) map[string]bool {
		out := map[string]bool{}
		var visit func(name string)
		visit = func(name string) {
			if !lets[name] || out[name] {
				return
			}
			out[name] = true
			for r := range letReads[name] {
				visit(r)
			}
		}
		for _, e := range es {
			if e == nil {
				continue
			}
			for id := range idents(e.Source) {
				visit(id)
			}
		}
		return out
	}
	res := map[string]*letReaders{}
	for _, l := range m.Lets {
		res[l.Name] = &letReaders{}
	}
	route := func(r *rules.Route) []*rules.Expr {
		if r == nil {
			return nil
		}
		es := []*rules.Expr{r.When, r.Message, r.After, r.At}
		for _, a := range r.Set {
			es = append(es, a.Value)
		}
		return es
	}
	for _, t := range m.Transitions {
		es := []*rules.Expr{t.When}
		for _, a := range t.Actions {
			es = append(es, a.Target, a.Body, a.Identity, a.Expect, a.ForEach, a.When)
		}
		es = append(es, route(t.Done)...)
		for _, r := range t.Routes {
			es = append(es, route(r)...)
		}
		for l := range reach(es...) {
			res[l].transitions = append(res[l].transitions, t.Name)
		}
	}
	for _, s := range m.States {
		es := []*rules.Expr{s.Recheck, s.Jitter}
		for _, a := range s.Set {
			es = append(es, a.Value)
		}
		for l := range reach(es...) {
			res[l].states = append(res[l].states, s.Name)
		}
	}
	var always []*rules.Expr
	for _, o := range m.Observes {
		always = append(always, o.Get, o.List, o.When)
	}
	for _, p := range m.Params {
		always = append(always, p.Valid)
	}
	for l := range reach(always...) {
		res[l].always = true
	}
	for _, r := range res {
		sort.Strings(r.transitions)
		sort.Strings(r.states)
	}
	return res
}
