package fsm

import (
	"strings"

	"github.com/statecraft/statecraft/rules"
)

// checkAccepts refuses an accept block (statecraft verify's accepted
// findings) that names a state the machine does not have, or a property it
// does not declare. A state of another machine is written MACHINE.STATE and
// checked by verify, which knows the machines explored together.
func (c *compiler) checkAccepts(m *Machine) {
	for _, a := range c.src.Accepts {
		for _, s := range a.States {
			if strings.Contains(s, ".") || m.State(s) != nil {
				continue
			}
			var names []string
			for _, st := range m.States {
				names = append(names, st.Name)
			}
			c.errf(a.StatesRange, "Unknown state", "Accept %q names state %q, which machine %s does not have.%s", a.Name, s, m.Name, suggest(s, names))
		}
		if a.Property != "" && !hasProperty(c.src, a.Property) {
			c.errf(a.DeclRange, "Unknown property", "Accept %q names property %q, which machine %s does not declare.", a.Name, a.Property, m.Name)
		}
	}
}

func hasProperty(m *rules.Machine, name string) bool {
	for _, p := range m.Properties {
		if p.Name == name {
			return true
		}
	}
	return false
}
