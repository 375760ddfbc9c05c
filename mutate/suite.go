package mutate

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/hcl/v2"

	"runtime"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/rules/policies"
	"github.com/statecraft/statecraft/scenario"
)

// ruleFile is one rule file the suite loads.
type ruleFile struct {
	key      string // identity: "policy:NAME", or the file's absolute path
	name     string // as diagnostics name it
	src      []byte
	machines []string            // in declaration order
	params   map[string][]string // the params each machine declares
}

// Suite is a scenario suite loaded for mutation: its scenarios, the rule
// files they load, and the unmutated machines compiled once.
type Suite struct {
	scenarios []*suiteScenario
	files     []*ruleFile
	byKey     map[string]*ruleFile

	// mem is the memory the unmutated machines share across the suite's
	// runs: pure tables, safe for concurrent use, and no registry of
	// frozen values (which belongs to one run). A mutant's machine gets a
	// memory of its own, which goes when the mutant is done (a memory
	// keeps the machines it served).
	mem *fsm.Memory

	mu       sync.Mutex
	compiled map[string]*compiled
	ready    bool // Baseline done
}

type compiled struct {
	once  sync.Once
	m     *fsm.Machine
	diags hcl.Diagnostics
}

type suiteScenario struct {
	path   string
	s      *scenario.Scenario
	files  []*ruleFile
	params []map[string]any // s.Params of each file
	golden []byte

	// From the unmutated run.
	took    time.Duration
	wakeups int
	cover   map[string]*machineUse // by machine name
}

// machineUse is what a scenario's unmutated run did with one machine.
type machineUse struct {
	steps       int
	states      map[string]int // stepped from or entered
	transitions map[string]int // tried as a candidate or fired
}

// LoadSuite loads the scenarios below dirs (or the files given) that load
// one of machines (any, when empty), and the rule files they load.
func LoadSuite(ctx context.Context, dirs []string, machines []string) (*Suite, error) {
	paths, err := scenario.Find(dirs...)
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("no scenario (*%s) below %v", scenario.Ext, dirs)
	}
	su := &Suite{byKey: map[string]*ruleFile{}, mem: fsm.NewMemory(jsonvalue.NewRegistry()), compiled: map[string]*compiled{}}
	for _, p := range paths {
		s, diags := scenario.Load(p)
		if diags.HasErrors() {
			return nil, diagError(diags)
		}
		sc := &suiteScenario{path: p, s: s, cover: map[string]*machineUse{}}
		for _, r := range s.Rules {
			f, err := su.ruleFile(scenario.ResolveRule(s, r))
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			sc.files = append(sc.files, f)
			sc.params = append(sc.params, s.Params[r])
		}
		if s.ExpectError != "" {
			// Refused rule files: nothing runs, no golden trace.
		} else if sc.golden, err = os.ReadFile(scenario.GoldenPath(p)); err != nil {
			return nil, fmt.Errorf("%s: no golden trace: %v", p, err)
		}
		su.scenarios = append(su.scenarios, sc)
	}
	known := map[string]bool{}
	for _, m := range su.Machines() {
		known[m] = true
	}
	want := map[string]bool{}
	for _, m := range machines {
		if !known[m] {
			return nil, fmt.Errorf("no scenario of the suite loads a machine %q (it loads %s)", m, strings.Join(su.Machines(), ", "))
		}
		want[m] = true
	}
	if len(want) > 0 {
		var kept []*suiteScenario
		for _, sc := range su.scenarios {
			for _, f := range sc.files {
				for _, m := range f.machines {
					if want[m] && (len(kept) == 0 || kept[len(kept)-1] != sc) {
						kept = append(kept, sc)
					}
				}
			}
		}
		su.scenarios = kept
	}
	return su, nil
}

// Baseline runs each scenario of the suite once unmutated (it must pass:
// expectations and golden trace) and records what it exercises. Run needs
// it done.
func (su *Suite) Baseline(ctx context.Context) error {
	var failed []string
	var mu sync.Mutex
	parallel(len(su.scenarios), 0, func(i int) {
		sc := su.scenarios[i]
		if msg := su.baseline(ctx, sc); msg != "" {
			mu.Lock()
			failed = append(failed, msg)
			mu.Unlock()
		}
	})
	if len(failed) > 0 {
		sort.Strings(failed)
		return fmt.Errorf("the suite does not pass unmutated; fix it first:\n%s", joinLines(failed))
	}
	su.ready = true
	return nil
}

func joinLines(ss []string) string {
	var b bytes.Buffer
	for _, s := range ss {
		b.WriteString("  " + s + "\n")
	}
	return b.String()
}

func diagError(diags hcl.Diagnostics) error {
	var ss []string
	for _, d := range diags {
		if d.Severity == hcl.DiagError {
			ss = append(ss, rules.DiagnosticLine(d))
		}
	}
	return fmt.Errorf("%s", bytes.TrimRight([]byte(joinLines(ss)), "\n"))
}

// ruleFile loads (once) the rule file ref names, as rules.LoadRef would.
func (su *Suite) ruleFile(ref string) (*ruleFile, error) {
	var key, name string
	var src []byte
	if _, err := os.Stat(ref); err != nil {
		b, n, ok := policies.Source(ref)
		if !ok {
			return nil, fmt.Errorf("no rule file or shipped policy %q", ref)
		}
		key, name, src = "policy:"+ref, n, b
	} else {
		abs, err := filepath.Abs(ref)
		if err != nil {
			return nil, err
		}
		key, name = abs, ref
		if src, err = os.ReadFile(ref); err != nil {
			return nil, err
		}
	}
	if f := su.byKey[key]; f != nil {
		return f, nil
	}
	model, diags := rules.Parse(src, name)
	if diags.HasErrors() {
		return nil, diagError(diags)
	}
	f := &ruleFile{key: key, name: name, src: src, params: map[string][]string{}}
	for _, m := range model.Machines {
		f.machines = append(f.machines, m.Name)
		for _, p := range m.Params {
			f.params[m.Name] = append(f.params[m.Name], p.Name)
		}
	}
	su.byKey[key] = f
	su.files = append(su.files, f)
	return f, nil
}

// paramsKey identifies the param overrides that apply to a machine that
// declares the params names.
func paramsKey(names []string, params map[string]any) (string, map[string]any) {
	mine := map[string]any{}
	for _, n := range names {
		if v, ok := params[n]; ok {
			mine[n] = v
		}
	}
	if len(mine) == 0 {
		return "", nil
	}
	b, _ := json.Marshal(mine) // sorted keys
	return string(b), mine
}

// compileMachine parses src and compiles its machine name with the
// overrides params (a scenario's rule block), remembering in mem.
func (su *Suite) compileMachine(mem *fsm.Memory, src []byte, f *ruleFile, name string, params map[string]any) (*fsm.Machine, hcl.Diagnostics) {
	model, diags := rules.Parse(src, f.name)
	if diags.HasErrors() {
		return nil, diags
	}
	var sm *rules.Machine
	for _, m := range model.Machines {
		if m.Name == name {
			sm = m
		}
	}
	if sm == nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Machine gone", Detail: "The mutant has no machine " + name + "."}}
	}
	_, mine := paramsKey(f.params[name], params)
	for _, p := range sm.Params {
		if v, ok := mine[p.Name]; ok {
			p.Default = v
		}
	}
	ms, d := fsm.CompileIn(mem, &rules.File{Filename: f.name, Machines: []*rules.Machine{sm}})
	diags = append(diags, d...)
	if diags.HasErrors() || len(ms) != 1 {
		return nil, diags
	}
	return ms[0], diags
}

// original returns the unmutated machine name of f compiled with params,
// compiled once for the suite.
func (su *Suite) original(f *ruleFile, name string, params map[string]any) (*fsm.Machine, hcl.Diagnostics) {
	pk, _ := paramsKey(f.params[name], params)
	key := f.key + "\x00" + name + "\x00" + pk
	su.mu.Lock()
	c := su.compiled[key]
	if c == nil {
		c = &compiled{}
		su.compiled[key] = c
	}
	su.mu.Unlock()
	c.once.Do(func() { c.m, c.diags = su.compileMachine(su.mem, f.src, f, name, params) })
	return c.m, c.diags
}

// machines returns the machines of a scenario in the order it loads them,
// with replace (when not nil) instead of the unmutated machine it stands
// for.
func (su *Suite) machines(sc *suiteScenario, replace func(f *ruleFile, name string, params map[string]any) (*fsm.Machine, hcl.Diagnostics)) ([]*fsm.Machine, hcl.Diagnostics) {
	var out []*fsm.Machine
	var diags hcl.Diagnostics
	overrides := scenario.ParamOverrides{}
	for i, f := range sc.files {
		for _, name := range f.machines {
			overrides.Add(name, sc.params[i])
			var m *fsm.Machine
			var d hcl.Diagnostics
			if replace != nil {
				m, d = replace(f, name, sc.params[i])
			}
			if m == nil && !d.HasErrors() {
				m, d = su.original(f, name, sc.params[i])
			}
			diags = append(diags, d...)
			if m != nil {
				out = append(out, m)
			}
		}
	}
	if !diags.HasErrors() {
		diags = append(diags, scenario.CheckParams(out, overrides, sc.s.DeclRange)...)
	}
	return out, diags
}

// baseline runs a scenario unmutated; it returns what is wrong, or "".
func (su *Suite) baseline(ctx context.Context, sc *suiteScenario) string {
	// Unknown params are reported as the scenario runner reports them.
	for i, f := range sc.files {
		pf, _ := rules.Parse(f.src, f.name)
		if d := scenario.OverrideParams(pf, sc.params[i], sc.s.DeclRange); d.HasErrors() {
			return sc.path + ": " + diagError(d).Error()
		}
	}
	ms, diags := su.machines(sc, nil)
	if sc.s.ExpectError != "" {
		if p := scenario.ExpectedError(sc.s, diags); p != "" {
			return sc.path + ": " + p
		}
		return ""
	}
	if diags.HasErrors() {
		return sc.path + ": " + diagError(diags).Error()
	}
	start := time.Now()
	res, err := scenario.Run(ctx, sc.s, ms, scenario.Options{})
	sc.took = time.Since(start)
	if err != nil {
		return sc.path + ": " + err.Error()
	}
	if len(res.Failures) > 0 {
		return fmt.Sprintf("%s: expectation failed: %s", sc.path, res.Failures[0])
	}
	if !bytes.Equal(scenario.RenderTrace(res.Trace), sc.golden) {
		return sc.path + ": the trace differs from its golden file (statecraft test --update)"
	}
	sc.wakeups = res.Reconciles + res.Rests
	// Once more, every step traced: what the scenario exercises.
	tr := &useTracer{uses: sc.cover, last: map[adapters.Ref]*fsm.Machine{}}
	if _, err := scenario.Run(ctx, sc.s, ms, scenario.Options{Steps: tr}); err != nil {
		return sc.path + ": " + err.Error()
	}
	return ""
}

// useTracer records, per machine, the states stepped from or entered and
// the transitions tried.
type useTracer struct {
	engine.NopTracer // its Problem does nothing

	uses map[string]*machineUse
	last map[adapters.Ref]*fsm.Machine
}

func (t *useTracer) use(m *fsm.Machine) *machineUse {
	u := t.uses[m.Name]
	if u == nil {
		u = &machineUse{states: map[string]int{}, transitions: map[string]int{}}
		t.uses[m.Name] = u
	}
	return u
}

func (t *useTracer) Transition(_ time.Time, obj adapters.Ref, r *engine.Result) {
	if m := t.last[obj]; m != nil && r.To != "" {
		t.use(m).states[r.To]++
	}
}

func (t *useTracer) Step(_ time.Time, obj adapters.Ref, m *fsm.Machine, _ engine.Snapshot, d *engine.Decision) {
	t.last[obj] = m
	u := t.use(m)
	u.steps++
	u.states[d.From]++
	for _, g := range d.Guards {
		u.transitions[g.Transition]++
	}
	if d.Transition != nil {
		u.transitions[d.Transition.Name]++
	}
}

// loads reports whether the scenario loads f.
func (sc *suiteScenario) loads(f *ruleFile) bool {
	for _, g := range sc.files {
		if g == f {
			return true
		}
	}
	return false
}

// exercises reports whether the scenario's unmutated run could be changed
// by the mutant. A change to a transition (its guard, actions, routes, its
// from, or dropping it) cannot change a run in which the transition was
// never tried: every step tried candidates before it and one fired, or it
// was not a candidate at all. A change to a state cannot change a run that
// never entered the state nor stepped from it. A change to a let cannot
// change a run that never tried a transition, nor was in a state, whose
// expressions read the let (directly or through other lets; an observation
// or a param check that reads it is evaluated at every step). Anything else
// (a param, an observation, the order of transitions) may change any run
// of the machine.
func (sc *suiteScenario) exercises(m *Mutant) bool {
	if m.Kind == "order" {
		return true
	}
	u := sc.cover[m.Machine]
	if u == nil {
		return true // the machine never stepped: anything might start it
	}
	switch {
	case m.focus.transition != "":
		return u.transitions[m.focus.transition] > 0
	case m.focus.state != "":
		return u.states[m.focus.state] > 0
	case m.focus.readers != nil:
		// A let is evaluated only where something reads it.
		r := m.focus.readers
		if r.always {
			return true
		}
		for _, t := range r.transitions {
			if u.transitions[t] > 0 {
				return true
			}
		}
		for _, s := range r.states {
			if u.states[s] > 0 {
				return true
			}
		}
		return false
	}
	return true
}

// relevance is how much of what a mutant changes the scenario exercised.
func (sc *suiteScenario) relevance(m *Mutant) int {
	u := sc.cover[m.Machine]
	if u == nil {
		return 0
	}
	switch {
	case m.focus.transition != "":
		return u.transitions[m.focus.transition]
	case m.focus.state != "":
		return u.states[m.focus.state]
	}
	return u.steps
}

// Machines lists the machines of the suite's rule files, by file.
func (su *Suite) Machines() []string {
	var out []string
	for _, f := range su.files {
		out = append(out, f.machines...)
	}
	return out
}

// Scenarios is how many scenarios the suite has.
func (su *Suite) Scenarios() int { return len(su.scenarios) }

// parallel runs do(0..n-1) on jobs goroutines (0: GOMAXPROCS).
func parallel(n, jobs int, do func(i int)) {
	if jobs <= 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < jobs; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				do(i)
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
}
