package fsm_test

import (
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// A move is carried by looplab/fsm: the event's destination is entered
// through its enter_state callback, and a move back to the same state
// enters it again.
func TestMoveEnters(t *testing.T) {
	f, diags := rules.Parse([]byte(`
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "B" {}
  transition "go" {
    from = [A]
    to   = B
  }
  transition "stay" {
    from = [B]
    to   = B
  }
}`), "m.hcl")
	ms, more := fsm.Compile(f)
	if diags = append(diags, more...); diags.HasErrors() {
		t.Fatal(diags)
	}
	m := ms[0]
	var entered []string
	enter := func(s *fsm.State) { entered = append(entered, s.Name) }
	to, err := m.Move("A", m.Transitions[0].Done.Event, enter)
	if err != nil || to != "B" {
		t.Fatalf("go: %q, %v", to, err)
	}
	to, err = m.Move("B", m.Transitions[1].Done.Event, enter)
	if err != nil || to != "B" {
		t.Fatalf("stay: %q, %v", to, err)
	}
	if len(entered) != 2 || entered[0] != "B" || entered[1] != "B" {
		t.Errorf("entered %v, want B twice", entered)
	}
	if _, err := m.Move("A", m.Transitions[1].Done.Event, enter); err == nil {
		t.Error("an event that does not leave A moved it")
	}
	if len(entered) != 2 {
		t.Errorf("a refused move entered a state: %v", entered)
	}
}
