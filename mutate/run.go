package mutate

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/hcl/v2"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/scenario"
)

// Status is what became of a mutant.
type Status string

const (
	// Killed: an expect block of a scenario that loads the machine failed,
	// or the scenario stopped with an error.
	Killed Status = "killed"
	// TraceOnly: no expectation failed, but some golden trace differs: only
	// the golden text would catch it.
	TraceOnly Status = "trace-only"
	// Survived: every scenario that loads the machine passes, trace and
	// expectations unchanged.
	Survived Status = "survived"
	// Equivalent: it survived (or changed only traces), and the suite's
	// equivalent-mutants file says why it cannot change behaviour.
	Equivalent Status = "equivalent"
	// Rejected: the loader or the compiler refuses it; no run needed.
	Rejected Status = "rejected"
	// NotRun: the run's time budget ran out first.
	NotRun Status = "not-run"
)

// Result is one mutant's verdict.
type Result struct {
	Mutant *Mutant
	Status Status
	// By is the scenario that killed it.
	By string
	// Why is the failed expectation, the run's error, or the loader's or
	// compiler's diagnostic.
	Why string
	// Traces are, for a mutant no expectation kills, the golden traces
	// that differ, each with its first differing line.
	Traces []string
	// Runs is how many scenario runs it took; Loading how many scenarios
	// load its machine. A scenario that cannot be changed by the mutant (it
	// never tried the transition, or never was in the state, the mutant
	// changes) is not run.
	Runs, Loading int
	// Reason is the equivalent-mutants file's reason.
	Reason string
	// Known is set on a survivor (or trace-only mutant) the known
	// survivors file records: not yet killed, on record, not failing the
	// run.
	Known bool
}

// Options tune a mutation run.
type Options struct {
	// Jobs is how many mutants run at once (0: GOMAXPROCS).
	Jobs int
	// Machines, when not empty, limits the run to these machines.
	Machines []string
	// Budget, when positive, is the run's wall-time budget: mutants not
	// started when it is spent are reported NotRun (the report then
	// depends on the machine's speed).
	Budget time.Duration
	// Progress, when set, receives a line about the run's progress every
	// few seconds.
	Progress io.Writer
	// Equivalent holds the mutants declared equivalent, by ID, with their
	// reasons.
	Equivalent map[string]string
	// SkipEquivalent does not run the mutants declared equivalent (they
	// are reported Equivalent without checking that they still survive).
	SkipEquivalent bool
	// Known holds the survivors on record (the known survivors file, by
	// ID): they do not fail the run, a new survivor does, and a known one
	// that is killed is reported Fixed (the record is then stale).
	Known map[string]bool
}

// Report is a mutation run's outcome, deterministic for a given suite and
// rule files (unless the time budget ran out).
type Report struct {
	Files     int
	Scenarios int
	Results   []*Result
	// Stale lists the IDs the equivalent-mutants file declares that are
	// no mutant, or whose mutant was killed.
	Stale []string
	// Fixed lists the known survivors this run killed, each with the
	// scenario that did: the known survivors file should lose them.
	Fixed []string
}

// Mutants generates the mutants of the suite's rule files (of opts.Machines
// only, when given), file by file in the order the suite loads them, each
// file in source order.
func (su *Suite) Mutants(machines []string) ([]*Mutant, error) {
	want := map[string]bool{}
	for _, m := range machines {
		want[m] = true
	}
	var out []*Mutant
	for _, f := range su.files {
		var ms []*fsm.Machine
		for _, name := range f.machines {
			if m, _ := su.original(f, name, nil); m != nil {
				ms = append(ms, m)
			}
		}
		muts, diags := generate(f, ms)
		if diags.HasErrors() {
			return nil, diagError(diags)
		}
		for _, m := range muts {
			if len(want) == 0 || want[m.Machine] {
				out = append(out, m)
			}
		}
	}
	return out, nil
}

// Run runs the suite against every mutant and returns the report. It runs
// Baseline first when it has not been.
func (su *Suite) Run(ctx context.Context, mutants []*Mutant, opts Options) (*Report, error) {
	if !su.ready {
		if err := su.Baseline(ctx); err != nil {
			return nil, err
		}
	}
	rep := &Report{Files: len(su.files), Scenarios: len(su.scenarios), Results: make([]*Result, len(mutants))}
	var deadline time.Time
	if opts.Budget > 0 {
		deadline = time.Now().Add(opts.Budget)
	}
	var done, killed, survived atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	if opts.Progress != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			tick := time.NewTicker(5 * time.Second)
			defer tick.Stop()
			for {
				select {
				case <-stop:
					return
				case <-tick.C:
					fmt.Fprintf(opts.Progress, "mutate: %d of %d mutants, %d killed, %d not killed (%s)\n",
						done.Load(), len(mutants), killed.Load(), survived.Load(), time.Since(start).Round(time.Second))
				}
			}
		}()
	}
	parallel(len(mutants), opts.Jobs, func(i int) {
		m := mutants[i]
		var r *Result
		reason, listed := opts.Equivalent[m.ID]
		switch {
		case ctx.Err() != nil || (!deadline.IsZero() && time.Now().After(deadline)):
			r = &Result{Mutant: m, Status: NotRun}
		case listed && opts.SkipEquivalent:
			r = &Result{Mutant: m, Status: Equivalent}
		default:
			r = su.runMutant(ctx, m)
		}
		if listed && (r.Status == Survived || r.Status == TraceOnly || r.Status == Equivalent) {
			r.Status, r.Reason = Equivalent, reason
		}
		if opts.Known[m.ID] && (r.Status == Survived || r.Status == TraceOnly) {
			r.Known = true
		}
		switch r.Status {
		case Killed:
			killed.Add(1)
		case Survived, TraceOnly:
			survived.Add(1)
		}
		done.Add(1)
		rep.Results[i] = r
	})
	close(stop)
	wg.Wait()
	ids := map[string]*Result{}
	for _, r := range rep.Results {
		ids[r.Mutant.ID] = r
	}
	covered := map[string]bool{}
	for _, m := range opts.Machines {
		covered[m] = true
	}
	for id := range opts.Equivalent {
		r := ids[id]
		switch {
		case r == nil:
			// A mutant of a machine this run did not mutate is not stale.
			if machine, _, _ := strings.Cut(id, " "); len(covered) == 0 || covered[machine] {
				rep.Stale = append(rep.Stale, id+": no such mutant")
			}
		case r.Status == Killed:
			rep.Stale = append(rep.Stale, id+": killed by "+r.By)
		}
	}
	sort.Strings(rep.Stale)
	for _, r := range rep.Results {
		if opts.Known[r.Mutant.ID] && r.Status == Killed {
			rep.Fixed = append(rep.Fixed, r.Mutant.ID+": killed by "+r.By)
		}
	}
	return rep, nil
}

// runMutant runs, in order of likely killers, the scenarios that load the
// mutant's file, and stops at the first that fails.
func (su *Suite) runMutant(ctx context.Context, m *Mutant) *Result {
	r := &Result{Mutant: m}
	src := m.Source()
	mutated := map[string]*fsm.Machine{}
	// The mutant's machine remembers in a memory of its own, and knows
	// the frozen values of the suite's registry, which the unmutated
	// machines it runs beside share: what is derived from a frozen value
	// depends on the value alone.
	mem := fsm.NewMemory(su.mem.Frozen())
	compileFor := func(params map[string]any) (*fsm.Machine, hcl.Diagnostics) {
		pk, _ := paramsKey(m.file.params[m.Machine], params)
		if c, ok := mutated[pk]; ok {
			return c, nil
		}
		c, diags := su.compileMachine(mem, src, m.file, m.Machine, params)
		if c != nil {
			mutated[pk] = c
		}
		return c, diags
	}
	if _, diags := compileFor(nil); diags.HasErrors() {
		r.Status = Rejected
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				r.Why = rules.DiagnosticLine(d)
				break
			}
		}
		return r
	}
	replace := func(f *ruleFile, name string, params map[string]any) (*fsm.Machine, hcl.Diagnostics) {
		if f != m.file || name != m.Machine {
			return nil, nil
		}
		return compileFor(params)
	}
	for _, sc := range su.order(m) {
		r.Loading++
		if !sc.exercises(m) {
			continue
		}
		if ctx.Err() != nil {
			r.Status = NotRun
			return r
		}
		r.Runs++
		ms, diags := su.machines(sc, replace)
		if sc.s.ExpectError != "" {
			// Refused rule files: the mutant is killed when they load.
			if p := scenario.ExpectedError(sc.s, diags); p != "" {
				r.Status, r.By, r.Why = Killed, sc.path, p
				return r
			}
			continue
		}
		if diags.HasErrors() {
			r.Status, r.By, r.Why = Killed, sc.path, diagError(diags).Error()
			return r
		}
		res, err := scenario.Run(ctx, sc.s, ms, scenario.Options{MaxWakeups: 20*sc.wakeups + 1000})
		if err != nil {
			r.Status, r.By, r.Why = Killed, sc.path, err.Error()
			return r
		}
		if len(res.Failures) > 0 {
			r.Status, r.By, r.Why = Killed, sc.path, res.Failures[0]
			return r
		}
		if trace := scenario.RenderTrace(res.Trace); !bytes.Equal(trace, sc.golden) {
			r.Traces = append(r.Traces, scenario.GoldenPath(sc.path)+": "+firstDifference(sc.golden, trace))
		}
	}
	sort.Strings(r.Traces)
	r.Status = Survived
	if len(r.Traces) > 0 {
		r.Status = TraceOnly
	}
	return r
}

// order lists the scenarios that load the mutant's file: first those that
// exercised what it changes, each group with the fewest wake-ups first (a
// measure of their cost that every run finds the same, so that the
// scenario reported as the killer is too).
func (su *Suite) order(m *Mutant) []*suiteScenario {
	var out []*suiteScenario
	for _, sc := range su.scenarios {
		if sc.loads(m.file) {
			out = append(out, sc)
		}
	}
	rel := map[*suiteScenario]bool{}
	for _, sc := range out {
		rel[sc] = sc.relevance(m) > 0
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if rel[a] != rel[b] {
			return rel[a]
		}
		if a.wakeups != b.wakeups {
			return a.wakeups < b.wakeups
		}
		return a.path < b.path
	})
	return out
}

// firstDifference is the first line where two traces differ.
func firstDifference(want, got []byte) string {
	w := strings.Split(string(want), "\n")
	g := strings.Split(string(got), "\n")
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("line %d: golden %q, mutant %q", i+1, a, b)
		}
	}
	return "same lines"
}
