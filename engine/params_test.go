package engine_test

import (
	"testing"
	"time"

	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/rules"
)

// Params resolve the same whether their checks can be remembered (reading
// only value) or not (reading an earlier param), for one object and for
// the next one with other overrides.
func TestParamsResolveAndCheck(t *testing.T) {
	m := compile(t, header+`
  param "max" {
    type     = duration
    default  = "1h"
    override = "spec.max"
    valid    = "value > duration('0s')"
    reason   = InvalidSpec
  }
  param "every" {
    type     = duration
    default  = "5m"
    override = "spec.every"
    valid    = "value <= param.max"
    reason   = InvalidSpec
  }
  state "A" {
    initial = true
    recheck = "param.every"
  }
}`)
	for _, c := range []struct {
		spec   map[string]any
		wake   time.Duration
		reason string
	}{
		{map[string]any{}, 5 * time.Minute, ""},
		{map[string]any{"every": "10m"}, 10 * time.Minute, ""},
		{map[string]any{"every": "2h"}, 0, "InvalidSpec"},
		{map[string]any{"every": "2h", "max": "3h"}, 2 * time.Hour, ""},
		{map[string]any{"max": "-1m"}, 0, "InvalidSpec"},
		{map[string]any{"every": "10m"}, 10 * time.Minute, ""}, // remembered
	} {
		for range 2 {
			d := engine.Step(m, engine.Snapshot{Object: widget(c.spec, map[string]any{"state": "A"}), Now: t0})
			switch {
			case c.reason != "":
				if d.Problem == nil || d.Problem.Reason != c.reason {
					t.Errorf("%v: problem %+v, want %s", c.spec, d.Problem, c.reason)
				}
			case d.Problem != nil:
				t.Errorf("%v: problem %+v", c.spec, d.Problem)
			case !d.Wake.Equal(t0.Add(c.wake)):
				t.Errorf("%v: wake %v, want %v", c.spec, d.Wake.Sub(t0), c.wake)
			}
		}
	}
}

// A frozen spec remembers the params resolved for it, per compiled
// machine: two machines of one name with other defaults each see their
// own, and an override in the spec still wins.
func TestParamsRememberedOnFrozenSpec(t *testing.T) {
	src := func(def string) string {
		return header + `
  param "every" {
    type     = duration
    default  = "` + def + `"
    override = "spec.every"
    valid    = "value > duration('0s')"
    reason   = InvalidSpec
  }
  state "A" {
    initial = true
    recheck = "param.every"
  }
}`
	}
	mem := fsm.NewMemory(jsonvalue.NewRegistry())
	five, ten := compileIn(t, mem, src("5m")), compileIn(t, mem, src("10m"))
	plain := mem.Frozen().Freeze(widget(map[string]any{"x": "y"}, map[string]any{"state": "A"}))
	tuned := mem.Frozen().Freeze(widget(map[string]any{"every": "7m"}, map[string]any{"state": "A"}))
	for _, c := range []struct {
		m    *fsm.Machine
		obj  map[string]any
		wake time.Duration
	}{
		{five, plain, 5 * time.Minute}, {ten, plain, 10 * time.Minute}, {five, plain, 5 * time.Minute},
		{five, tuned, 7 * time.Minute}, {ten, tuned, 7 * time.Minute},
	} {
		for range 2 {
			d := engine.Step(c.m, engine.Snapshot{Object: c.obj, Now: t0})
			if d.Problem != nil || !d.Wake.Equal(t0.Add(c.wake)) {
				t.Errorf("%v: wake %v (problem %+v), want %v", c.obj["spec"], d.Wake.Sub(t0), d.Problem, c.wake)
			}
		}
	}
}

// compileIn compiles the one machine of src into mem.
func compileIn(t *testing.T, mem *fsm.Memory, src string) *fsm.Machine {
	t.Helper()
	f, diags := rules.Parse([]byte(src), "test.hcl")
	ms, more := fsm.CompileIn(mem, f)
	if diags = append(diags, more...); diags.HasErrors() {
		t.Fatal(diags)
	}
	return ms[0]
}
