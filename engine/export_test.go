package engine

import "github.com/statecraft/statecraft/fsm"

// StepInFull is Step deciding in full, never answering a rest from the
// last one (again.go): for the tests that compare the two and the
// benchmark of a first step.
func StepInFull(m *fsm.Machine, snap Snapshot) *Decision {
	v, problem := newVars(m, snap.Object, snap.Memory, snap.Observations, snap.Now)
	return step(m, snap, v, problem)
}
