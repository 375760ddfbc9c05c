package fsm_test

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// compileBody compiles one machine "m" of a namespaced kind W whose body
// is body, as the file name; line 1 of body is line 5 of the file.
func compileBody(t *testing.T, body, name string) *fsm.Machine {
	t.Helper()
	src := "machine \"m\" {\nresource \"example.com/v1\" \"W\" {\nscope = Namespaced\n}\n" + body + "\n}\n"
	f, diags := rules.Parse([]byte(src), name)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return ms[0]
}

// analyze compiles one machine whose body is body and returns its warnings
// as "LINE: summary", sorted. Line 1 is the first line of body.
func analyze(t *testing.T, body string) []string {
	t.Helper()
	var out []string
	for _, d := range fsm.Analyze(compileBody(t, body, "a.hcl")) {
		if d.Severity != hcl.DiagWarning || d.Subject == nil || d.Detail == "" {
			t.Errorf("not a warning with subject and detail: %+v", d)
			continue
		}
		out = append(out, fmt.Sprintf("%d: %s", d.Subject.Start.Line-4, d.Summary))
	}
	sort.Strings(out)
	return out
}

func expect(t *testing.T, body string, want ...string) {
	t.Helper()
	got := analyze(t, body)
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestAnalyzeUnreachable(t *testing.T) {
	expect(t, `state "A" { initial = true }
state "B" {}
state "C" { final = true }
state "D" { final = true }
transition "t" {
  from = [A]
  to = C
}
transition "u" {
  from = [B]
  to = D
}`, "2: Unreachable state", "4: Unreachable state")
	// Reachable through a wildcard and through an on route.
	expect(t, `state "A" { initial = true }
state "B" {}
state "C" { final = true }
transition "t" {
  from = ["*"]
  when = "self.metadata.generation != status.?observedGeneration.orValue(0)"
  do "p" {
    verb = delete
    target = "ref(self)"
  }
  to = B
  on "*" "*" { to = C }
}`)
}

func TestAnalyzeDeadEnd(t *testing.T) {
	expect(t, `state "A" { initial = true }
state "B" {}
transition "t" {
  from = [A]
  to = B
}
transition "loop" {
  from = [B]
  to = B
  after = "duration('1m')"
}`, "2: State with no way out")
	// A wildcard way out counts; a final state is never a dead end.
	expect(t, `state "A" { initial = true }
state "B" {}
state "F" { final = true }
transition "t" {
  from = [A]
  when = "self.spec.go"
  to = F
}
transition "u" {
  from = [A]
  when = "self.spec.b"
  to = B
}
transition "restart" {
  from = ["*"]
  when = "self.metadata.generation != status.?observedGeneration.orValue(0)"
  to = A
}`)
}

func TestAnalyzeShadowed(t *testing.T) {
	expect(t, `state "A" { initial = true }
state "B" { final = true }
transition "first" {
  from = [A]
  to = B
}
transition "second" {
  from = [A]
  when = "self.spec.x"
  to = B
}`, "7: Shadowed transition")
	expect(t, `state "A" { initial = true }
state "B" {}
state "C" { final = true }
transition "a" {
  from = [A]
  when = " true "
  to = B
}
transition "b" {
  from = [B]
  to = C
}
transition "late" {
  from = [A, B]
  to = C
}`, "13: Shadowed transition")
	// Partly covered: "late" can still fire from B.
	expect(t, `state "A" { initial = true }
state "B" {}
state "C" { final = true }
transition "a" {
  from = [A]
  to = B
}
transition "b" {
  from = [B]
  when = "self.spec.b"
  to = C
}
transition "late" {
  from = [A, B]
  when = "self.spec.c"
  to = C
}`)
	// A guard that is true but not the literal: not reported.
	expect(t, `state "A" { initial = true }
state "B" { final = true }
transition "first" {
  from = [A]
  when = "1 == 1"
  to = B
}
transition "second" {
  from = [A]
  when = "self.spec.x"
  to = B
}`)
}

func TestAnalyzeDuplicateGuard(t *testing.T) {
	expect(t, `state "A" { initial = true }
state "B" {}
state "C" { final = true }
transition "first" {
  from = [A, B]
  when = "self.spec.x == 'a' && (self.spec.y)"
  to = C
}
transition "second" {
  from = [B]
  when = "self.spec.x=='a' && self.spec.y"
  to = A
}
transition "third" {
  from = [A]
  when = "self.spec.x == 'b'"
  to = B
}`, "11: Duplicate guard")
	// Same guard from states the first does not cover: not reported.
	expect(t, `state "A" { initial = true }
state "B" {}
state "C" { final = true }
transition "first" {
  from = [A]
  when = "self.spec.x"
  to = B
}
transition "second" {
  from = [A, B]
  when = "self.spec.x"
  to = C
}`)
}

func TestAnalyzeUnused(t *testing.T) {
	expect(t, `param "used" {
  type = duration
  default = "1m"
}
param "via_optional" {
  type = int
  default = 1
}
param "unused" {
  type = int
  default = 1
}
observe "cm" {
  get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'x', 'name': 'y'}"
}
observe "other" {
  get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'x', 'name': 'z'}"
}
let "a" {
  value = "cm.exists"
}
let "b" {
  value = "a && true"
}
let "shadow" {
  value = "1"
}
state "A" { initial = true }
state "B" { final = true }
transition "t" {
  from = [A]
  when = "b && [1].all(shadow, shadow > 0) && param.via_optional > 0"
  to = B
}
transition "w" {
  from = [A]
  to = A
  after = "param.used"
  set = { other_name = "'other'" }
}`, "9: Unused param", "16: Unused observation", "25: Unused let")
}

func TestAnalyzeCycles(t *testing.T) {
	// Unbounded: A → B → A with no wait and independent guards.
	expect(t, `state "A" { initial = true }
state "B" {}
transition "go" {
  from = [A]
  when = "self.spec.go"
  to = B
}
transition "back" {
  from = [B]
  when = "self.spec.back"
  to = A
}`, "3: Unbounded cycle")
	// A self-loop that changes nothing the second time round is a rest.
	expect(t, `state "A" { initial = true }
transition "spin" {
  from = [A]
  to = A
  reason = "self.spec.?x.orValue('') == '' ? 'Quiet' : 'Loud'"
  reasons = [Quiet, Loud]
}`, "1: State with no way out")
	// One that counts in status changes every time: a cycle.
	expect(t, `state "A" { initial = true }
transition "spin" {
  from = [A]
  to = A
  set = { n = "status.?n.orValue(0) + 1" }
}`, "1: State with no way out", "2: Unbounded cycle")
	// Bounded by a counter, read through a let.
	expect(t, `let "retries" {
  value = "status.?retry.count.orValue(0)"
}
state "A" { initial = true }
state "F" { final = true }
transition "retry" {
  from = [A]
  when = "retries < 3"
  to = A
  set = { "retry.count" = "retries + 1" }
}
transition "give up" {
  from = [A]
  to = F
}`)
	// Bounded by a wait on an on route and the success route.
	expect(t, `state "A" { initial = true }
state "B" {}
transition "go" {
  from = [A]
  do "p" {
    verb = get
    target = "ref(self)"
  }
  to = B
  after = "duration('1s')"
  on "*" "*" {
    to = A
    at = "now + duration('1m')"
  }
}
transition "back" {
  from = [B]
  to = A
}`)
	// Bounded by the reason the engine writes: the guard reads status.reason.
	expect(t, `state "A" { initial = true }
state "B" {}
transition "go" {
  from = [A]
  when = "status.?reason.orValue('') != 'Back'"
  to = B
  reason = Go
}
transition "back" {
  from = [B]
  to = A
  reason = Back
}`)
	// Bounded by contradictory guards.
	for _, g := range [][2]string{
		{"self.spec.x", "!self.spec.x"},
		{"self.spec.mode == 'a'", "self.spec.mode == 'b'"},
		{"self.spec.mode == 'a'", "self.spec.mode != 'a'"},
		{"cm.exists && self.spec.y", "cm.outcome == 'not_found'"},
		{"!cm.exists", "cm.outcome == 'ok'"},
		{"ready", "!ready"},
		{"ready", "cm.outcome == 'forbidden'"},
	} {
		expect(t, fmt.Sprintf(`observe "cm" {
  get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'x', 'name': 'y'}"
}
let "ready" {
  value = "cm.exists && self.spec.ready"
}
state "A" { initial = true }
state "B" { recheck = "ready ? duration('1m') : duration('2m')" }
transition "go" {
  from = [A]
  when = %q
  to = B
}
transition "back" {
  from = [B]
  when = %q
  to = A
}`, g[0], g[1]))
	}
	// Not contradictory: exists and outcome 'ok'.
	expect(t, `observe "cm" {
  get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'x', 'name': 'y'}"
}
state "A" { initial = true }
state "B" {}
transition "go" {
  from = [A]
  when = "cm.exists"
  to = B
}
transition "back" {
  from = [B]
  when = "cm.outcome == 'ok'"
  to = A
}`, "6: Unbounded cycle")
}

// TestAnalyzeShippedPolicies: the shipped objectpatch policy draws no
// warning, and Analyze runs on every shipped policy.
func TestAnalyzeShippedPolicies(t *testing.T) {
	for _, m := range compileRef(t, "objectpatch") {
		for _, d := range fsm.Analyze(m) {
			t.Errorf("objectpatch: %s: %s; %s", d.Subject, d.Summary, d.Detail)
		}
	}
	if fsm.Analyze(nil) != nil {
		t.Error("Analyze(nil) is not nil")
	}
}

// TestAnalyzeStateFieldIsNoBound: a guard reading the state field or the
// outcome does not bound a cycle, since the cycle rewrites them with its own
// states.
func TestAnalyzeStateFieldIsNoBound(t *testing.T) {
	expect(t, `state "A" { initial = true }
state "B" { outcome = Success }
transition "go" {
  from = [A]
  when = "status.?state.orValue('A') == 'A'"
  to = B
}
transition "back" {
  from = [B]
  when = "status.?outcome.orValue('') == 'Success'"
  to = A
}`, "3: Unbounded cycle")
}

// TestAnalyzeRestReadingObservations: a self-loop whose message reads an
// observation is still a rest: without actions the reconcile's observations
// stay as they were, so taken again it writes the same message.
func TestAnalyzeRestReadingObservations(t *testing.T) {
	expect(t, `observe "cm" {
  get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'x', 'name': 'y'}"
}
state "A" { initial = true }
transition "wait" {
  from = [A]
  to = A
  message = "cm.exists ? 'found' : 'missing'"
}`, "4: State with no way out")
	// One whose message reads status changes it each time round.
	expect(t, `state "A" { initial = true }
transition "wait" {
  from = [A]
  to = A
  message = "'seen ' + status.?message.orValue('')"
}`, "1: State with no way out", "2: Unbounded cycle")
}

// TestAnalyzeOrderBound: two transitions without actions that each leave
// both states of their cycle, with guards reading nothing the cycle writes,
// cannot go round: in both states the earlier of them that holds is taken.
func TestAnalyzeOrderBound(t *testing.T) {
	const cycle = `state "A" { initial = true }
state "B" {}
transition "go" {
  from = [%s]
  when = %q
  to = B
}
transition "back" {
  from = [A, B]
  when = "self.spec.back"
  to = A
}`
	expect(t, fmt.Sprintf(cycle, "A, B", "self.spec.go"))
	// "go" fires from A only: in B "go" is not a candidate, so both can hold
	// and the cycle goes round.
	expect(t, fmt.Sprintf(cycle, "A", "self.spec.go"), "3: Unbounded cycle")
	// A guard reading the state field has another value in each state of
	// the cycle: no bound by order.
	expect(t, fmt.Sprintf(cycle, "A, B", "status.?state.orValue('A') == 'A'"), "3: Unbounded cycle")
}
