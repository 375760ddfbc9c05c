package mutate

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/rules/policies"
)

var update = flag.Bool("update", false, "rewrite testdata/report.txt")

// TestCELMutations pins the mutations of small expressions: each replaces
// exactly the operator, literal or operand it names.
func TestCELMutations(t *testing.T) {
	for _, tc := range []struct {
		src  string
		opt  celOptions
		want []string // the mutated expressions, in order
	}{
		{"a >= b", celOptions{}, []string{"a > b", "a < b"}},
		{"a == 'x' && !b", celOptions{}, []string{
			"a == 'x' || !b", "!b", "a == 'x'", "a != 'x' && !b", "a == 'x' && b"}},
		{"(a || b) && f(c)", celOptions{}, []string{
			"(a || b) || f(c)", "f(c)", "(a || b)", "(a && b) && f(c)", "(b) && f(c)", "(a) && f(c)"}},
		{"c ? x + 1 : 0", celOptions{}, []string{"x + 1", "0", "c ? x + 0 : 0", "c ? x + 2 : 0", "c ? x + 1 : -1", "c ? x + 1 : 1"}},
		{"now - t >= duration('48h')", celOptions{}, []string{
			"now - t > duration('48h')", "now - t < duration('48h')", "now - t >= duration('47h')", "now - t >= duration('49h')"}},
		{"['a', 'b'].exists(k, k == x)", celOptions{}, []string{"['b'].exists(k, k == x)", "['a'].exists(k, k == x)", "['a', 'b'].exists(k, k != x)"}},
		{"{'a': 1, 'b': {'c': 2}}", celOptions{entries: true}, []string{
			"{'b': {'c': 2}}", "{'a': 1}", "{'a': 0, 'b': {'c': 2}}", "{'a': 2, 'b': {'c': 2}}", "{'a': 1, 'b': {'c': 1}}", "{'a': 1, 'b': {'c': 3}}"}},
		{"{'a': 1, 'b': 2}", celOptions{}, []string{"{'a': 0, 'b': 2}", "{'a': 2, 'b': 2}", "{'a': 1, 'b': 1}", "{'a': 1, 'b': 3}"}},
		{"size(x) > 0u", celOptions{}, []string{"size(x) >= 0u", "size(x) <= 0u", "size(x) > 1u"}},
		{"'héllo' != s && n < -2", celOptions{}, []string{
			"'héllo' != s || n < -2", "n < -2", "'héllo' != s", "'héllo' == s && n < -2",
			"'héllo' != s && n <= -2", "'héllo' != s && n >= -2", "'héllo' != s && n < -3", "'héllo' != s && n < -1"}},
	} {
		var got []string
		for _, e := range celMutations(tc.src, tc.opt) {
			got = append(got, tc.src[:e.start]+e.repl+tc.src[e.end:])
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\ngot  %q\nwant %q", tc.src, got, tc.want)
		}
	}
}

func TestDurationNeighbours(t *testing.T) {
	for in, want := range map[string]string{
		"48h":   "47h 49h",
		"5m":    "4m 6m",
		"1h30m": "1h29m 1h31m",
		"0s":    "1s",
		"90s":   "89s 91s",
		"10s":   "9s 11s",
		"2d":    "1d 3d",
		"":      "",
		"5x":    "",
	} {
		if got := strings.Join(durationNeighbours(in), " "); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// TestShippedPoliciesMutateWellFormed generates the mutants of every
// shipped policy: each is a different file with a diff, the IDs are unique,
// and the file still loads: every mutant of the HCL structure, and every
// tenth of the CEL ones (whose expressions the generator parses again
// itself; loading the whole file is what costs here).
func TestShippedPoliciesMutateWellFormed(t *testing.T) {
	for _, name := range policies.Names() {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			shippedWellFormed(t, name)
		})
	}
}

func shippedWellFormed(t *testing.T, name string) {
	{
		src, fname, _ := policies.Source(name)
		f, diags := rules.Parse(src, fname)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		ms, diags := fsm.Compile(f)
		if diags.HasErrors() {
			t.Fatal(diags)
		}
		muts, diags := Generate(src, fname, ms)
		if len(diags) > 0 {
			t.Fatal(diags)
		}
		if len(muts) < 100 {
			t.Errorf("%s: only %d mutants", name, len(muts))
		}
		ids := map[string]bool{}
		kinds := map[string]int{}
		celKinds := map[string]bool{"comparison": true, "logical": true, "clause": true, "negation": true, "ternary": true,
			"constant": true, "duration": true, "element": true, "entry": true}
		for i, m := range muts {
			kinds[m.Kind]++
			if ids[m.ID] {
				t.Errorf("%s: ID %q twice", name, m.ID)
			}
			ids[m.ID] = true
			out := m.Source()
			if bytes.Equal(out, src) {
				t.Errorf("%s: %s changes nothing", m.Where(), m.ID)
			}
			if celKinds[m.Kind] && i%10 != 0 {
				continue
			}
			if _, d := rules.Parse(out, fname); d.HasErrors() {
				t.Errorf("%s: %s does not load: %s", m.Where(), m.ID, d.Error())
			}
			if !strings.Contains(m.Diff(), "\n-") && !strings.Contains(m.Diff(), "\n+") {
				t.Errorf("%s: empty diff", m.ID)
			}
		}
		for _, k := range []string{"comparison", "clause", "set", "transition", "default"} {
			if kinds[k] == 0 {
				t.Errorf("%s: no %s mutant", name, k)
			}
		}
	}
}

// TestMutantEdits pins what structural mutants do to the file.
func TestMutantEdits(t *testing.T) {
	src, err := os.ReadFile("testdata/suite/widget.hcl")
	if err != nil {
		t.Fatal(err)
	}
	muts, diags := Generate(src, "widget.hcl", nil)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	find := func(id string) *Mutant {
		for _, m := range muts {
			if m.ID == id {
				return m
			}
		}
		t.Fatalf("no mutant %q", id)
		return nil
	}
	for id, want := range map[string]string{
		// An inline map item goes with its separator.
		`widget transition "become ready" set.seen: seen = true → dropped`:    `    set    = { items = "items" }`,
		`widget transition "become ready" set.items: items = items → dropped`: `    set    = { seen = "true" }`,
		// An attribute goes with its line.
		`widget transition "not ready" after: wait: param.poll → dropped`: "    reason = TooFew\n  }",
		// A block goes with the comment above it.
		`widget transition "become ready" on "label" "*": route: on "label" "*" → dropped`: "    }\n  }\n  transition \"not ready\"",
		`widget param "poll" default: "1m" → "2m"`:                                         `default = "2m"`,
	} {
		m := find(id)
		if out := string(m.Source()); !strings.Contains(out, want) {
			t.Errorf("%s: mutated file lacks %q:\n%s", id, want, m.Diff())
		}
	}
	m := find(`widget transition "become ready" on "label" "*": route: on "label" "*" → dropped`)
	if strings.Contains(string(m.Source()), "# Label the map") == false {
		t.Errorf("the comment above the do block was dropped with the route")
	}
	if m.Where() != "widget.hcl:44:5" { // the route's line
		t.Errorf("position %s", m.Where())
	}
}

// TestRunClassifies runs the test suite against the widget's mutants and
// compares the report with testdata/report.txt: killed, trace-only,
// survived, equivalent (declared in the suite's file), rejected (the
// compiler refuses a dropped route), and the stale entry of the
// equivalent-mutants file. The report is the same bytes with one job and
// with four.
func TestRunClassifies(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("testdata", "suite")
	equiv, err := ReadEquivalent(filepath.Join(dir, "equivalent-mutants.md"))
	if err != nil {
		t.Fatal(err)
	}
	var outs []string
	for _, jobs := range []int{1, 4} {
		su, err := LoadSuite(ctx, []string{dir}, nil)
		if err != nil {
			t.Fatal(err)
		}
		ms, err := su.Mutants(nil)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := su.Run(ctx, ms, Options{Jobs: jobs, Equivalent: equiv})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		rep.WriteText(&b)
		outs = append(outs, b.String())
		if !rep.Failed() {
			t.Errorf("a report with survivors must fail")
		}
		status := map[string]Status{}
		for _, r := range rep.Results {
			status[r.Mutant.ID] = r.Status
		}
		for id, want := range map[string]Status{
			`widget param "min_items" default: 2 → 1`:                                                                                              Killed,
			`widget param "min_items" valid: constant: 1 → 0`:                                                                                      Killed,
			`widget param "min_items" valid: constant: 1 → 2`:                                                                                      Survived,
			`widget transition "not ready" after: wait: param.poll → (param.poll) + (param.poll)`:                                                  TraceOnly,
			`widget transition "become ready" set.seen: seen = true → dropped`:                                                                     Survived,
			`widget transition "become ready" on "label" "*": route: on "label" "*" → dropped`:                                                     Rejected,
			`widget let "items" value: ternary: config.exists ? size(config.object.?data.orValue({})) : 0 → size(config.object.?data.orValue({}))`: Equivalent,
		} {
			if status[id] != want {
				t.Errorf("jobs %d: %s: %s, want %s", jobs, id, status[id], want)
			}
		}
		for _, r := range rep.Results {
			// Killed by the scenario that expects the refusal, which
			// finds the mutant's rule file accepted.
			if r.Mutant.ID == `widget param "min_items" valid: constant: 1 → 0` && (!strings.HasSuffix(r.By, "refused.scenario.hcl") || !strings.Contains(r.Why, "load and compile without an error")) {
				t.Errorf("jobs %d: %s killed by %s (%s), want refused.scenario.hcl", jobs, r.Mutant.ID, r.By, r.Why)
			}
		}
		if len(rep.Stale) != 1 || !strings.Contains(rep.Stale[0], `"3m": no such mutant`) {
			t.Errorf("stale: %q", rep.Stale)
		}
	}
	if outs[0] != outs[1] {
		t.Errorf("the report depends on the number of jobs")
	}
	golden := filepath.Join("testdata", "report.txt")
	if *update {
		os.WriteFile(golden, []byte(outs[0]), 0o644)
	}
	want, _ := os.ReadFile(golden)
	if string(want) != outs[0] {
		t.Errorf("report differs from %s (go test ./mutate -update):\n%s", golden, outs[0])
	}
}

func TestReadEquivalent(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) string {
		p := filepath.Join(dir, "e.md")
		os.WriteFile(p, []byte(s), 0o644)
		return p
	}
	got, err := ReadEquivalent(write("# x\n\n- `a b: c → d`: because\n  it is so.\n\ntext\n- `e`: f\n"))
	if err != nil || got["a b: c → d"] != "because it is so." || got["e"] != "f" || len(got) != 2 {
		t.Errorf("got %q, %v", got, err)
	}
	for _, bad := range []string{"- `a: no reason\n", "- `a`\n", "- `a`: x\n- `a`: y\n"} {
		if _, err := ReadEquivalent(write(bad)); err == nil || !strings.Contains(err.Error(), "e.md:") {
			t.Errorf("%q: want an error with FILE:LINE, got %v", bad, err)
		}
	}
}

// Known survivors do not fail a run; a survivor not on record does, and a
// known one that is killed is reported Fixed (and fails the run, so that
// the record is kept current).
func TestKnownSurvivors(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join("testdata", "suite")
	equiv, err := ReadEquivalent(filepath.Join(dir, "equivalent-mutants.md"))
	if err != nil {
		t.Fatal(err)
	}
	su, err := LoadSuite(ctx, []string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := su.Mutants(nil)
	if err != nil {
		t.Fatal(err)
	}
	// Without the stale equivalent entry, so that only survivors count.
	delete(equiv, `widget transition "not ready" after: duration: duration('3m') → duration('4m')`)
	for id := range equiv {
		if strings.Contains(id, `"3m"`) {
			delete(equiv, id)
		}
	}
	first, err := su.Run(ctx, ms, Options{Jobs: 2, Equivalent: equiv})
	if err != nil {
		t.Fatal(err)
	}
	var rec bytes.Buffer
	first.WriteKnown(&rec)
	path := filepath.Join(t.TempDir(), "known-survivors.txt")
	if err := os.WriteFile(path, rec.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	known, err := ReadKnown(path)
	if err != nil {
		t.Fatal(err)
	}
	if first.New() == 0 || len(known) != first.New() {
		t.Fatalf("%d survivors, %d recorded", first.New(), len(known))
	}
	// Every survivor on record: the run passes.
	rep, err := su.Run(ctx, ms, Options{Jobs: 2, Equivalent: equiv, Known: known})
	if err != nil {
		t.Fatal(err)
	}
	if rep.New() != 0 || len(rep.Fixed) != 0 || rep.Failed() {
		t.Errorf("with every survivor known: new %d, fixed %v, failed %v", rep.New(), rep.Fixed, rep.Failed())
	}
	// One survivor off the record: it is new, the run fails.
	var dropped string
	for id := range known {
		dropped = id
		break
	}
	fewer := map[string]bool{}
	for id := range known {
		if id != dropped {
			fewer[id] = true
		}
	}
	rep, err = su.Run(ctx, ms, Options{Jobs: 2, Equivalent: equiv, Known: fewer})
	if err != nil {
		t.Fatal(err)
	}
	if rep.New() != 1 || !rep.Failed() {
		t.Errorf("one survivor off the record: new %d, failed %v", rep.New(), rep.Failed())
	}
	// A killed mutant on record: Fixed, the run fails.
	killed := ""
	for _, r := range rep.Results {
		if r.Status == Killed {
			killed = r.Mutant.ID
			break
		}
	}
	more := map[string]bool{killed: true}
	for id := range known {
		more[id] = true
	}
	rep, err = su.Run(ctx, ms, Options{Jobs: 2, Equivalent: equiv, Known: more})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Fixed) != 1 || !strings.HasPrefix(rep.Fixed[0], killed+": killed by ") || !rep.Failed() {
		t.Errorf("a killed mutant on record: fixed %v, failed %v", rep.Fixed, rep.Failed())
	}
}
