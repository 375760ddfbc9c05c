package enginetest

import (
	"fmt"
	"time"

	"github.com/statecraft/statecraft/engine"
)

// DecisionLines is what a decision says, as lines to compare: the state it
// was made in, its wake-up, the transition that fires, its problem, every
// guard's value and error, and every action's requests and error.
func DecisionLines(d *engine.Decision) []string {
	out := []string{"from " + d.From, "wake " + d.Wake.Format(time.RFC3339Nano)}
	if d.Transition != nil {
		out = append(out, "transition "+d.Transition.Name)
	}
	if d.Problem != nil {
		out = append(out, "problem "+d.Problem.Reason+": "+d.Problem.Message)
	}
	for _, g := range d.Guards {
		out = append(out, fmt.Sprintf("guard %s %v %v", g.Transition, g.Value, g.Err))
	}
	for _, a := range d.Actions {
		out = append(out, fmt.Sprintf("action %s %d requests %v", a.Action.Name, len(a.Requests), a.Err))
	}
	return out
}
