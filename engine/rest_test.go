package engine_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
)

const restMachine = header + `
  observe "peer" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'default', 'name': 'peer'}"
  }
  let "calm_since" { value = "timestamp(status.?calmSince.orValue('2100-01-01T00:00:00Z'))" }
  state "Waiting" {
    initial = true
    recheck = "duration('5m')"
  }
  state "Done" {
    final = true
  }
  transition "calm" {
    from = ["Waiting"]
    when = "peer.exists && now - calm_since >= duration('1h')"
    to   = Done
  }
  transition "deadline" {
    from = ["Waiting"]
    when = "now >= timestamp(self.spec.deadline)"
    to   = Done
  }
}
`

// Certify places a rest in time: it holds until the first gate of the
// state's guards can change, and asks for rechecks every recheck.
func TestCertifyUntilFirstGate(t *testing.T) {
	m := compile(t, restMachine)
	for _, c := range []struct {
		name      string
		calmSince string
		deadline  string
		until     time.Time
	}{
		{"calm first", "2026-01-01T00:00:00Z", "2026-01-01T03:00:00Z", t0.Add(time.Hour)},
		{"deadline first", "2026-01-01T00:00:00Z", "2026-01-01T00:20:00Z", t0.Add(20 * time.Minute)},
		{"no calm yet", "", "2026-01-01T02:00:00Z", t0.Add(2 * time.Hour)},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := map[string]any{"state": "Waiting"}
			if c.calmSince != "" {
				st["calmSince"] = c.calmSince
			}
			obj := widget(map[string]any{"deadline": c.deadline}, st)
			peer := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "peer", "namespace": "default"}}
			cl := newCluster(t, obj, peer)
			ref := adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: "w1"}
			rep, err := engine.Reconcile(context.Background(), m, cl, ref, t0, nil)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rest == nil || len(rep.Transitions) != 0 {
				t.Fatalf("want a rest, got %d transitions, rest %v", len(rep.Transitions), rep.Rest)
			}
			r, ok := engine.Certify(m, rep.RestSnapshot, rep.Rest)
			if !ok {
				t.Fatal("not certified")
			}
			if !r.Until.Equal(c.until) || r.Every != 5*time.Minute {
				t.Errorf("until %v every %v, want until %v every 5m", r.Until, r.Every, c.until)
			}
			if len(r.Reads) != 1 || r.Reads[0].Ref.Name != "peer" {
				t.Errorf("reads %+v, want the peer", r.Reads)
			}
			// Stepping again just before Until rests again; at Until, it fires.
			for at, fires := range map[time.Time]bool{c.until.Add(-time.Second): false, c.until: true} {
				rep, err := engine.Reconcile(context.Background(), m, newCluster(t, obj, peer), ref, at, nil)
				if err != nil {
					t.Fatal(err)
				}
				if got := len(rep.Transitions) > 0; got != fires {
					t.Errorf("at %v: fired %v, want %v", at.Sub(t0), got, fires)
				}
			}
		})
	}
}

// A decision that fires is not a rest.
func TestCertifyRefusesAFiring(t *testing.T) {
	m := compile(t, restMachine)
	obj := widget(map[string]any{"deadline": "2025-01-01T00:00:00Z"}, map[string]any{"state": "Waiting"})
	d := engine.Step(m, engine.Snapshot{Object: obj, Now: t0})
	if d.Transition == nil {
		t.Fatal("the deadline did not fire")
	}
	if _, ok := engine.Certify(m, engine.Snapshot{Object: obj, Now: t0}, d); ok {
		t.Error("certified a firing")
	}
	if _, ok := engine.Certify(m, engine.Snapshot{}, nil); ok {
		t.Error("certified a nil decision")
	}
}

// Each comparison changes where now reaches its point, or a nanosecond
// later: a rest lasts exactly until then.
func TestCertifyGatePoints(t *testing.T) {
	at := t0.Format(time.RFC3339)
	for _, c := range []struct {
		guard string
		until time.Time
	}{
		{"now >= T", time.Time{}}, // already true: never changes again
		{"now > T", t0.Add(time.Nanosecond)},
		{"now < T", time.Time{}},
		{"now <= T", t0.Add(time.Nanosecond)},
		{"now == T", t0.Add(time.Nanosecond)},
		{"T > now", time.Time{}},
		{"T >= now", t0.Add(time.Nanosecond)},
		{"now - T >= duration('10m')", t0.Add(10 * time.Minute)},
		{"duration('10m') < now - T", t0.Add(10*time.Minute + time.Nanosecond)},
		{"now - duration('10m') >= T", t0.Add(10 * time.Minute)},
	} {
		guard := strings.ReplaceAll(c.guard, "T", "timestamp(self.spec.at)")
		m := compile(t, header+`
  state "A" {
    initial = true
    recheck = "duration('1m')"
  }
  state "B" {}
  transition "t" {
    from = ["A"]
    when = "self.spec.never && (`+guard+`)"
    to   = B
  }
}`)
		snap := engine.Snapshot{Object: widget(map[string]any{"at": at, "never": false}, map[string]any{"state": "A"}), Now: t0}
		r, ok := engine.Certify(m, snap, engine.Step(m, snap))
		if !ok {
			t.Errorf("%s: not certified", c.guard)
			continue
		}
		if !r.Until.Equal(c.until) {
			t.Errorf("%s: until %v, want %v", c.guard, r.Until, c.until)
		}
	}
}

// Expressions whose cost cannot be bounded statically are still stopped at
// run time by the cost limit (bounded ones are not tracked: they cannot
// reach it).
func TestRuntimeCostLimit(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
  }
  state "B" {}
  transition "t" {
    from = ["A"]
    when = "self.spec.items.all(i, self.spec.items.all(j, self.spec.items.all(k, i + j + k >= 0)))"
    to   = B
  }
}`)
	items := make([]any, 200)
	for i := range items {
		items[i] = int64(i)
	}
	d := engine.Step(m, engine.Snapshot{Object: widget(map[string]any{"items": items}, nil), Now: t0})
	if d.Problem == nil || !strings.Contains(d.Problem.Message, "cost limit exceeded") {
		t.Fatalf("problem %+v, want the cost limit exceeded", d.Problem)
	}
}

// A state's jitter delays each recheck by an offset fixed by the object
// and the tick: below the jitter, whole seconds, different across objects,
// the same on every run; a certified rest predicts the same wake-ups.
func TestJitter(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
    recheck = "duration('1m')"
    jitter  = "duration('10s')"
  }
}`)
	offsets := map[time.Duration]bool{}
	for i := range 20 {
		obj := widget(map[string]any{}, map[string]any{"state": "A"})
		obj["metadata"].(map[string]any)["uid"] = "uid-" + strings.Repeat("x", i)
		snap := engine.Snapshot{Object: obj, Now: t0}
		d := engine.Step(m, snap)
		if d.Problem != nil || d.Transition != nil {
			t.Fatalf("step: %+v", d)
		}
		off := d.Wake.Sub(t0.Add(time.Minute))
		if off < 0 || off >= 10*time.Second || off%time.Second != 0 {
			t.Fatalf("offset %v, want whole seconds in [0, 10s)", off)
		}
		if again := engine.Step(m, snap); !again.Wake.Equal(d.Wake) {
			t.Fatalf("two steps woke at %v and %v", d.Wake, again.Wake)
		}
		r, ok := engine.Certify(m, snap, d)
		if !ok || r.Jitter != 10*time.Second {
			t.Fatalf("certify: %+v %v", r, ok)
		}
		if next := r.Next(t0); !next.Equal(d.Wake) {
			t.Fatalf("certified next %v, stepping woke at %v", next, d.Wake)
		}
		offsets[off] = true
	}
	if len(offsets) < 4 {
		t.Errorf("20 objects got only %d different offsets", len(offsets))
	}
}
