package verify

import (
	"regexp"

	"github.com/statecraft/statecraft/fsm"
)

// kindLiteral finds the kinds an action names in its target or body:
// 'kind': 'ClusterObjectSet'.
var kindLiteral = regexp.MustCompile(`['"]kind['"]\s*:\s*['"]([A-Za-z0-9]+)['"]`)

// Creates reports whether machine a writes objects of a kind machine b
// drives (a create, apply, update or patch action whose target or body names
// the kind): b's objects are then made or changed by a, and b is explored
// with a.
func Creates(a, b *fsm.Machine) bool {
	if a == b {
		return false
	}
	kinds := map[string]bool{}
	for _, r := range b.Resources {
		kinds[r.Kind] = true
	}
	for _, t := range a.Transitions {
		for _, act := range t.Actions {
			switch act.Verb {
			case "create", "apply", "update", "patch":
			default:
				continue
			}
			for _, e := range []*fsm.Program{act.Target, act.Body} {
				if e == nil || e.Expr == nil {
					continue
				}
				for _, m := range kindLiteral.FindAllStringSubmatch(e.Expr.Source, -1) {
					if kinds[m[1]] {
						return true
					}
				}
			}
		}
	}
	return false
}

// Groups says how to explore machines loaded together: a group per machine
// worth exploring on its own, that machine first, then every machine it
// creates objects of, and they in turn (Creates). A machine another of them
// creates objects of, and that creates none itself, is explored only in
// its creators' groups (a ClusterObjectSet with the ClusterObjectDeployment
// that stamps it out); the others are explored on their own too.
func Groups(ms []*fsm.Machine) [][]*fsm.Machine {
	var out [][]*fsm.Machine
	for _, m := range ms {
		created, creates := false, false
		for _, o := range ms {
			created = created || Creates(o, m)
			creates = creates || Creates(m, o)
		}
		if created && !creates {
			continue
		}
		group := []*fsm.Machine{m}
		for i := 0; i < len(group); i++ {
			for _, o := range ms {
				if Creates(group[i], o) && !contains(group, o) {
					group = append(group, o)
				}
			}
		}
		out = append(out, group)
	}
	return out
}

func contains(ms []*fsm.Machine, m *fsm.Machine) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}
