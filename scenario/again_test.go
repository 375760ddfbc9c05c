package scenario_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/engine/enginetest"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/scenario"
)

// TestRestsDecidedAgainAsInFull runs every scenario of the suites, and the
// drift workload of the benchmark, stepping every object at every wake-up,
// and decides each step again in full: with the same machine compiled into
// a memory of its own, whose registry holds none of the run's frozen
// values, so that nothing is answered from a rest remembered on an object
// (engine/again.go). Every decision must be the same, and the suite must
// answer many rests again (else the test proves nothing).
func TestRestsDecidedAgainAsInFull(t *testing.T) {
	runs := suiteRuns(t, driftScenario(100, 24*time.Hour))
	var steps, again int
	for _, r := range runs {
		ms, diags := scenario.Compile(r.s)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", r.name, diags)
		}
		c := &inFull{t: t, name: r.name, fresh: map[*fsm.Machine]*fsm.Machine{}, seen: map[*engine.GuardResult]bool{}}
		if _, err := scenario.Run(context.Background(), r.s, ms, scenario.Options{Steps: c}); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		steps += c.steps
		again += c.again
	}
	t.Logf("%d steps, %d of them rests answered again", steps, again)
	if again < steps/10 {
		t.Errorf("only %d of %d steps were rests answered again", again, steps)
	}
}

// inFull decides every step of a run again in full and compares.
type inFull struct {
	engine.NopTracer // its Transition and Problem do nothing

	t            *testing.T
	name         string
	fresh        map[*fsm.Machine]*fsm.Machine
	seen         map[*engine.GuardResult]bool // the guards of each rest decided
	steps, again int
}

func (c *inFull) Step(now time.Time, obj adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	c.steps++
	f := c.fresh[m]
	if f == nil {
		var diags error
		f, diags = compileAlone(m)
		if diags != nil {
			c.t.Fatalf("%s: %v", c.name, diags)
		}
		c.fresh[m] = f
	}
	// A rest answered again shares its guards with the rest it repeats.
	if len(d.Guards) > 0 && d.Transition == nil {
		if c.seen[&d.Guards[0]] {
			c.again++
		}
		c.seen[&d.Guards[0]] = true
	}
	full := engine.Step(f, snap)
	if diff := cmp.Diff(enginetest.DecisionLines(full), enginetest.DecisionLines(d)); diff != "" {
		c.t.Errorf("%s: %s at %s: the decision differs from the one made in full (-full +run):\n%s", c.name, obj, now.Format(time.RFC3339), diff)
	}
}

// compileAlone compiles m's rules into a memory of their own.
func compileAlone(m *fsm.Machine) (*fsm.Machine, error) {
	f, diags := fsm.CompileMachine(m.Source)
	if diags.HasErrors() {
		return nil, diags
	}
	return f, nil
}

// TestRunLeavesNothingFrozen runs the drift workload with a step tracer
// that keeps every object the engine was stepped on: frozen in the
// machines' registry while the run reads them (else no rest is remembered
// on them), thawed when Run returns, so that a registry serving many runs
// (a mutation run's) keeps none of them, nor the rests, and through them
// the machines, remembered on them.
func TestRunLeavesNothingFrozen(t *testing.T) {
	s := driftScenario(10, 2*time.Hour)
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	reg := ms[0].Memory.Frozen()
	k := &keeper{reg: reg}
	if _, err := scenario.Run(context.Background(), s, ms, scenario.Options{Steps: k}); err != nil {
		t.Fatal(err)
	}
	if len(k.objs) == 0 || k.frozen < len(k.objs)/2 {
		t.Fatalf("%d of %d objects stepped on were frozen during the run", k.frozen, len(k.objs))
	}
	for _, o := range k.objs {
		if reg.Frozen(o) {
			t.Fatalf("after the run, an object stepped on is still frozen: %v", o["metadata"])
		}
	}
}

// keeper keeps the objects of every step.
type keeper struct {
	engine.NopTracer // its Transition and Problem do nothing

	reg    *jsonvalue.Registry
	objs   []map[string]any
	frozen int
}

func (k *keeper) Step(_ time.Time, _ adapters.Ref, _ *fsm.Machine, snap engine.Snapshot, _ *engine.Decision) {
	if k.reg.Frozen(snap.Object) {
		k.frozen++
	}
	k.objs = append(k.objs, snap.Object)
}
