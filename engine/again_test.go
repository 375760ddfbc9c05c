package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/engine/enginetest"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// sameRest reports whether b is a's rest answered again: a rest decided
// again shares its guards with the one it repeats.
func sameRest(a, b *engine.Decision) bool {
	return len(a.Guards) > 0 && len(b.Guards) > 0 && &a.Guards[0] == &b.Guards[0]
}

// TestRestAnsweredAgain: Step answers a rest again, without evaluating a
// guard, only for the same machine, the same frozen object and the same
// frozen observations, at a time inside the rest's certificate; the
// decision is the one made in full, its wake-up counted from now.
func TestRestAnsweredAgain(t *testing.T) {
	m := compile(t, restMachine)
	reg := m.Memory.Frozen()
	st := map[string]any{"state": "Waiting", "calmSince": "2026-01-01T00:00:00Z"}
	obj := reg.Freeze(widget(map[string]any{"deadline": "2026-01-01T00:20:00Z"}, st))
	peerObj := func() map[string]any {
		return reg.Freeze(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "peer", "namespace": "default"}})
	}
	peer := peerObj()
	obs := map[string]engine.Observation{"peer": {Outcome: adapters.OK, Object: peer}}
	snap := func(obj map[string]any, obs map[string]engine.Observation, at time.Duration) engine.Snapshot {
		return engine.Snapshot{Object: obj, Observations: obs, Now: t0.Add(at)}
	}
	check := func(name string, s engine.Snapshot, d *engine.Decision) {
		t.Helper()
		if diff := cmp.Diff(enginetest.DecisionLines(engine.StepInFull(m, s)), enginetest.DecisionLines(d)); diff != "" {
			t.Errorf("%s: not the decision made in full (-full +step):\n%s", name, diff)
		}
	}

	first := engine.Step(m, snap(obj, obs, 0))
	check("first", snap(obj, obs, 0), first)
	if first.Transition != nil {
		t.Fatalf("first step fired %s", first.Transition.Name)
	}
	again := engine.Step(m, snap(obj, obs, time.Minute))
	check("a minute later", snap(obj, obs, time.Minute), again)
	if !sameRest(first, again) {
		t.Errorf("the same inputs a minute later were decided in full")
	}
	if want := t0.Add(6 * time.Minute); !again.Wake.Equal(want) {
		t.Errorf("wake %v, want %v (the recheck counted from now)", again.Wake, want)
	}
	// The deadline gate changes at 20m: from then on the rest no longer
	// holds, and the deadline fires.
	late := engine.Step(m, snap(obj, obs, 20*time.Minute))
	check("at the deadline", snap(obj, obs, 20*time.Minute), late)
	if late.Transition == nil || late.Transition.Name != "deadline" {
		t.Errorf("at the deadline: %+v, want the deadline to fire", late.Transition)
	}
	justBefore := engine.Step(m, snap(obj, obs, 20*time.Minute-time.Nanosecond))
	check("just before the deadline", snap(obj, obs, 20*time.Minute-time.Nanosecond), justBefore)
	if !sameRest(first, justBefore) {
		t.Errorf("just before the deadline the rest was decided in full")
	}
	// Before the step that decided it the rest is not known to hold.
	earlier := engine.Step(m, snap(obj, obs, -time.Minute))
	check("earlier", snap(obj, obs, -time.Minute), earlier)
	if sameRest(first, earlier) {
		t.Errorf("a step before the rest was decided was answered from it")
	}

	for _, c := range []struct {
		name string
		obs  map[string]engine.Observation
	}{
		{"the peer gone", map[string]engine.Observation{"peer": {Outcome: adapters.NotFound}}},
		{"the peer read again (the same content, another map)", map[string]engine.Observation{"peer": {Outcome: adapters.OK, Object: peerObj()}}},
		{"the peer forbidden", map[string]engine.Observation{"peer": {Outcome: adapters.Forbidden, Object: peer}}},
		{"the peer not observed", map[string]engine.Observation{}},
	} {
		base := engine.Step(m, snap(obj, obs, 2*time.Minute))
		d := engine.Step(m, snap(obj, c.obs, 2*time.Minute))
		check(c.name, snap(obj, c.obs, 2*time.Minute), d)
		if sameRest(base, d) {
			t.Errorf("%s: answered from the rest decided on the peer", c.name)
		}
	}

	// Another machine compiled into the same memory shares the registry,
	// not the rests.
	f, diags := rules.Parse([]byte(strings.Replace(restMachine, "duration('5m')", "duration('7m')", 1)), "other.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.CompileIn(m.Memory, f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	base := engine.Step(m, snap(obj, obs, 3*time.Minute))
	other := engine.Step(ms[0], snap(obj, obs, 3*time.Minute))
	if sameRest(base, other) || !other.Wake.Equal(t0.Add(10*time.Minute)) {
		t.Errorf("another machine: wake %v, answered again %v; want its own 7m recheck", other.Wake, sameRest(base, other))
	}

	// An observation not frozen is decided on in full every time.
	loose := map[string]engine.Observation{"peer": {Outcome: adapters.OK, Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "peer", "namespace": "default"}}}}
	l1 := engine.Step(m, snap(obj, loose, 4*time.Minute))
	l2 := engine.Step(m, snap(obj, loose, 5*time.Minute))
	check("a peer not frozen", snap(obj, loose, 5*time.Minute), l2)
	if sameRest(l1, l2) {
		t.Errorf("an observation not frozen was answered again")
	}

	// An object not frozen is decided in full every time.
	plain := widget(map[string]any{"deadline": "2026-01-01T00:20:00Z"}, map[string]any{"state": "Waiting", "calmSince": "2026-01-01T00:00:00Z"})
	p1 := engine.Step(m, snap(plain, obs, 0))
	p2 := engine.Step(m, snap(plain, obs, time.Minute))
	check("not frozen", snap(plain, obs, time.Minute), p2)
	if sameRest(p1, p2) {
		t.Errorf("an object not frozen was answered again")
	}
}

// TestRestWakeUnderASecond: a recheck under a second is kept as Step keeps
// it, by the certificate and by a rest answered again; only a recheck not
// after now becomes a second.
func TestRestWakeUnderASecond(t *testing.T) {
	for _, every := range []string{"duration('500ms')", "duration('0s')", "duration('3s')"} {
		m := compile(t, header+`
  state "A" {
    initial = true
    recheck = "`+every+`"
  }
  transition "go" {
    from = [A]
    when = "self.spec.go"
    to   = A
  }
}`)
		obj := m.Memory.Frozen().Freeze(widget(map[string]any{"go": false}, map[string]any{"state": "A"}))
		s := engine.Snapshot{Object: obj, Now: t0}
		d := engine.Step(m, s)
		c, ok := engine.Certify(m, s, d)
		if !ok {
			t.Fatalf("%s: not certified", every)
		}
		if got := c.Next(t0); !got.Equal(d.Wake) {
			t.Errorf("%s: the certificate's next recheck %v, Step's %v", every, got, d.Wake)
		}
		s.Now = t0.Add(time.Minute)
		again := engine.Step(m, s)
		if !sameRest(d, again) {
			t.Errorf("%s: not answered again", every)
		}
		if full := engine.StepInFull(m, s); !again.Wake.Equal(full.Wake) {
			t.Errorf("%s: answered again wakes at %v, in full at %v", every, again.Wake, full.Wake)
		}
	}
}
