package fsm_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/fsm"
)

func restOf(t *testing.T, body, state string) *fsm.RestProfile {
	t.Helper()
	return compileBody(t, body, "r.hcl").Rest(state)
}

func gateTexts(p *fsm.RestProfile) []string {
	var out []string
	for _, g := range p.Gates {
		out = append(out, g.Text)
	}
	sort.Strings(out)
	return out
}

// The expressions evaluated at rest are the guards of the state's
// candidates (not other states'), observations, params' checks, the
// recheck and the lets they read; comparisons with now in them are gates.
func TestRestProfileGates(t *testing.T) {
	body := `
observe "peer" {
  when = "now < timestamp(status.?quietUntil.orValue('2000-01-01T00:00:00Z'))"
  get  = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'default', 'name': 'x'}"
}
let "since" { value = "timestamp(status.?since.orValue('2000-01-01T00:00:00Z'))" }
let "old"   { value = "now - since >= duration('1h')" }
let "unused_elsewhere" { value = "now + duration('1m')" }
state "A" {
  initial = true
  recheck = "duration('5m')"
}
state "B" {}
transition "age" {
  from = ["A"]
  when = "old || timestamp('2030-01-01T00:00:00Z') <= now"
  to   = B
}
transition "elsewhere" {
  from = ["B"]
  when = "unused_elsewhere > now"
  to   = A
}`
	a := restOf(t, body, "A")
	if !a.Certifiable {
		t.Fatalf("A: not certifiable: %s", a.Why)
	}
	want := []string{
		"now - since >= duration(\"1h\")",
		"now < timestamp(status.?quietUntil.orValue(\"2000-01-01T00:00:00Z\"))",
		"timestamp(\"2030-01-01T00:00:00Z\") <= now",
	}
	if got := gateTexts(a); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("A gates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// From B the guard compares now with a let that reads now.
	b := restOf(t, body, "B")
	if b.Certifiable || !strings.Contains(b.Why, "now + duration('1m') reads now other than") {
		t.Errorf("B: certifiable=%v why=%q, want refused for now + duration", b.Certifiable, b.Why)
	}
}

func TestRestProfileRefusals(t *testing.T) {
	for name, c := range map[string]struct{ when, recheck, why string }{
		"now in arithmetic":         {"now + duration('1m') > timestamp('2030-01-01T00:00:00Z')", "duration('1m')", "reads now other than in a comparison"},
		"bound reads now":           {"now > now - duration('1m')", "duration('1m')", "compares now with a value that depends on now"},
		"bound per element":         {"[timestamp('2030-01-01T00:00:00Z')].exists(t, now > t)", "duration('1m')", "computed per list element"},
		"recheck reads now":         {"true == false", "now + duration('1m')", "reads now other than in a comparison"},
		"now as a value":            {"string(now) == 'x'", "duration('1m')", "reads now other than in a comparison"},
		"gated now in a comparison": {"(now > timestamp('2030-01-01T00:00:00Z')) == true", "duration('1m')", ""},
	} {
		t.Run(name, func(t *testing.T) {
			body := `state "A" {
  initial = true
  recheck = "` + c.recheck + `"
}
state "B" {}
transition "t" {
  from = ["A"]
  when = "` + c.when + `"
  to   = B
}`
			p := restOf(t, body, "A")
			if c.why == "" {
				if !p.Certifiable {
					t.Errorf("refused: %s", p.Why)
				}
				return
			}
			if p.Certifiable || !strings.Contains(p.Why, c.why) {
				t.Errorf("certifiable=%v why=%q, want refused with %q", p.Certifiable, p.Why, c.why)
			}
			if p.Why != "" && !strings.HasPrefix(p.Why, "r.hcl:") {
				t.Errorf("why %q does not name the expression's place", p.Why)
			}
		})
	}
}

// A list observation is status-blind only when nothing but outcome-like
// fields and status-blind library functions read it.
func TestRestProfileStatusBlind(t *testing.T) {
	obs := `
observe "peers" {
  list = "{'apiVersion': self.apiVersion, 'kind': self.kind, 'namespace': self.metadata.namespace}"
}
state "A" {
  initial = true
}
state "B" {}
`
	for when, blind := range map[string]bool{
		"peers.outcome == 'ok' && !objpatch.arbitrate(peers.items, self, ['metadata.name']).accepted": true,
		"size(peers.items) > 3":                         false,
		"peers.items.exists(p, p.status.ready == true)": false,
		"peers.outcome == 'ok' && objpatch.arbitrate(peers.items.map(p, p), self, ['metadata.name']).accepted": false,
	} {
		p := restOf(t, obs+"transition \"t\" {\n  from = [\"A\"]\n  when = \""+when+"\"\n  to = B\n}", "A")
		if got := p.StatusBlind["peers"]; got != blind {
			t.Errorf("%s: status-blind %v, want %v", when, got, blind)
		}
	}
}

// The shipped ObjectPatch policy rests certifiably where it rechecks
// periodically, and its claims list is status-blind.
func TestRestProfileObjectPatch(t *testing.T) {
	ms := compileRef(t, "objectpatch")
	m := ms[0]
	for _, s := range []string{"Pending", "Applied"} {
		p := m.Rest(s)
		if !p.Certifiable {
			t.Errorf("%s: not certifiable: %s", s, p.Why)
		}
		if !p.StatusBlind["patches"] {
			t.Errorf("%s: the claims list is not status-blind", s)
		}
	}
	if p := m.Rest("NeedsUpdate"); p.Certifiable {
		t.Errorf("NeedsUpdate certifiable, but its recheck adds to now")
	}
}
