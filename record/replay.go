package record

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/scenario"
)

// ReplayOptions tune a replay.
type ReplayOptions struct {
	// Replace, when set, swaps recorded rule files for new versions (as
	// statecraft diff does); Rules says what they are, for the report.
	Replace scenario.Replacer
	Rules   []string
	// Params are MACHINE.NAME=VALUE defaults for the new run, over the
	// recorded ones.
	Params []string
	// Tolerance is how far apart in time a recorded decision and the
	// replay's may be and still be the same (default 2s): the cluster's
	// reconciles come a little after the events and wake-ups that cause
	// them, the simulator's exactly then.
	Tolerance time.Duration
}

// DefaultTolerance is ReplayOptions.Tolerance's default.
const DefaultTolerance = 2 * time.Second

// Report is what a replay found.
type Report struct {
	Dir      string    `json:"recording"`
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Dropped  int       `json:"segmentsDropped,omitempty"`
	Objects  int       `json:"objects"`
	Warnings []string  `json:"warnings,omitempty"`
	// Recorded are the engine's decisions on the cluster since the start
	// of the kept recording; Replayed the simulator's with the recorded
	// rules, reconciling at the times the controller did; Divergences the
	// objects where the two differ.
	Recorded    []Decision   `json:"recorded"`
	Replayed    []Decision   `json:"replayed"`
	Tolerance   Duration     `json:"tolerance"`
	Divergences []ObjectDiff `json:"divergences"`
	// With new rules or params: what they were, the decisions under them,
	// and the objects whose decisions changed.
	// Baseline is the recorded rules' run and New the new rules', each
	// reconciling where the simulator schedules it.
	NewRules  []string     `json:"newRules,omitempty"`
	NewParams []string     `json:"newParams,omitempty"`
	Baseline  []Decision   `json:"baseline,omitempty"`
	New       []Decision   `json:"new,omitempty"`
	Changed   []ObjectDiff `json:"changed,omitempty"`
	// From is the scenario's start as an offset since the recording's:
	// every time in the report is since the scenario's start.
	From Offset `json:"-"`
}

// Duration is a time.Duration that JSON renders as Go writes it ("2s").
type Duration time.Duration

func (d Duration) MarshalJSON() ([]byte, error) {
	return []byte(strconv.Quote(time.Duration(d).String())), nil
}

// Faithful reports whether the replay with the recorded rules reproduced
// the recorded decisions.
func (r *Report) Faithful() bool { return len(r.Divergences) == 0 }

// BehaviourChanged reports whether the new rules or params decide
// differently.
func (r *Report) BehaviourChanged() bool { return len(r.Changed) > 0 }

// Replay runs a recording on the simulator's virtual clock with the rules
// it was recorded under and compares its decisions with the recorded ones;
// with new rules or params it runs it again under them and compares their
// decisions with the recorded rules'.
func Replay(ctx context.Context, dir string, opts ReplayOptions) (*Report, error) {
	if opts.Tolerance <= 0 {
		opts.Tolerance = DefaultTolerance
	}
	rec, err := Load(dir)
	if err != nil {
		return nil, err
	}
	rendered, err := Render(rec)
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "statecraft-replay-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, rf := range rec.Manifest.Rules {
		src, err := os.ReadFile(filepath.Join(dir, rf.File))
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(filepath.Join(tmp, rf.File), src); err != nil {
			return nil, err
		}
	}
	if err := rendered.Write(tmp); err != nil {
		return nil, err
	}
	rep := &Report{Dir: dir, Start: rendered.Start, End: rec.Manifest.End, Dropped: rec.Manifest.Dropped,
		Warnings: rec.Warnings, Tolerance: Duration(opts.Tolerance), From: rendered.From,
		NewRules: opts.Rules, NewParams: opts.Params}
	var reconciles []Decision
	for _, d := range rec.Decisions {
		if d.At < rendered.From {
			continue
		}
		d.At -= rendered.From
		if d.Wake != nil {
			w := *d.Wake - rendered.From
			d.Wake = &w
		}
		if d.Type == "reconcile" {
			reconciles = append(reconciles, d)
			continue
		}
		rep.Recorded = append(rep.Recorded, d)
	}
	rep.Objects = len(groupByObject(rep.Recorded))
	path := filepath.Join(tmp, ScenarioFile)
	redact := !rec.Manifest.SecretData
	s, diags := scenario.Load(path)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the recording's scenario: %s", diags.Error())
	}
	// Fidelity: the recorded rules, reconciling where the controller did.
	s.Pinned = true
	for _, d := range reconciles {
		t, err := target(d.Object)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", filepath.Join(dir, segmentsDir), err)
		}
		s.Events = append(s.Events, &scenario.Event{At: d.At, Reconcile: []scenario.Target{t}})
	}
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the recorded rules: %s", diags.Error())
	}
	if rep.Replayed, err = runCollecting(ctx, s, ms, redact); err != nil {
		return nil, err
	}
	rep.Divergences = compare(rep.Recorded, rep.Replayed, comparison{tolerance: opts.Tolerance, loose: true})
	explainDivergences(rep.Divergences, reconciles, rep.Recorded)
	if opts.Replace == nil && len(opts.Params) == 0 {
		return rep, nil
	}
	// Behaviour: the recorded rules and the new ones, each reconciling
	// where the simulator schedules it (the new rules' wake-ups are their
	// own).
	s1, _ := scenario.Load(path)
	ms1, diags := scenario.Compile(s1)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the recorded rules: %s", diags.Error())
	}
	if rep.Baseline, err = runCollecting(ctx, s1, ms1, redact); err != nil {
		return nil, err
	}
	s2, _ := scenario.Load(path)
	if err := overrideParams(rec, s2, opts.Params); err != nil {
		return nil, err
	}
	ms2, diags := scenario.CompileWith(s2, opts.Replace)
	if diags.HasErrors() {
		return nil, fmt.Errorf("the new rules: %s", diags.Error())
	}
	if rep.New, err = runCollecting(ctx, s2, ms2, redact); err != nil {
		return nil, err
	}
	rep.Changed = compare(rep.Baseline, rep.New, comparison{})
	return rep, nil
}

// target parses an object as a decision names it (Kind/ns/name, Kind/name).
func target(s string) (scenario.Target, error) {
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 2:
		return scenario.Target{Kind: parts[0], Name: parts[1]}, nil
	case 3:
		return scenario.Target{Kind: parts[0], Namespace: parts[1], Name: parts[2]}, nil
	}
	return scenario.Target{}, fmt.Errorf("a decision about %q, which names no object", s)
}

// overrideParams sets --param values (MACHINE.NAME=VALUE) as the
// scenario's params of the rule file that holds the machine, typed as the
// param is declared.
func overrideParams(rec *Recording, s *scenario.Scenario, flags []string) error {
	for _, flag := range flags {
		key, value, ok := strings.Cut(flag, "=")
		machine, name, dotted := strings.Cut(key, ".")
		if !ok || !dotted || machine == "" || name == "" {
			return fmt.Errorf("--param %q: want MACHINE.NAME=VALUE, e.g. objectpatch.requeue_interval=1m", flag)
		}
		var label, typ string
		for _, rf := range rec.Manifest.Rules {
			for _, mm := range rf.Machines {
				if mm != machine {
					continue
				}
				label = rf.File
				f, diags := rules.LoadRef(filepath.Join(rec.Dir, rf.File))
				if diags.HasErrors() {
					return fmt.Errorf("%s: %s", rf.File, diags.Error())
				}
				for _, m := range f.Machines {
					for _, p := range m.Params {
						if m.Name == machine && p.Name == name {
							typ = p.Type
						}
					}
				}
			}
		}
		if label == "" {
			return fmt.Errorf("--param %s: the recording ran no machine %q", flag, machine)
		}
		if typ == "" {
			return fmt.Errorf("--param %s: machine %s has no param %q", flag, machine, name)
		}
		var v any = value
		switch typ {
		case "bool":
			b, err := strconv.ParseBool(value)
			if err != nil {
				return fmt.Errorf("--param %s: want true or false", flag)
			}
			v = b
		case "int":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return fmt.Errorf("--param %s: want an integer", flag)
			}
			v = n
		default:
			if _, err := fsm.ParamValue(typ, value); err != nil {
				return fmt.Errorf("--param %s: %v", flag, err)
			}
		}
		if s.Params == nil {
			s.Params = map[string]map[string]any{}
		}
		if s.Params[label] == nil {
			s.Params[label] = map[string]any{}
		}
		s.Params[label][name] = v
	}
	return nil
}

// worldIdentity is who a recording's scenario acts as for other actors.
const worldIdentity = "scenario"

// runCollecting runs a scenario on a fresh simulated cluster and returns
// the engine's decisions, as a recording logs them.
func runCollecting(ctx context.Context, s *scenario.Scenario, ms []*fsm.Machine, redact bool) ([]Decision, error) {
	col := &simCollector{start: s.Start, redact: redact}
	_, err := scenario.Run(ctx, s, ms, scenario.Options{
		Steps: col,
		Cluster: func(clock *sim.Clock) (scenario.Cluster, error) {
			return &replayCluster{Cluster: sim.New(clock, sim.WithSeed(s.Seed)), col: col}, nil
		},
	})
	if err != nil {
		return nil, err
	}
	col.flush()
	return col.lines, nil
}

// replayCluster is the simulated cluster that hands the engine's requests
// to the collector.
type replayCluster struct {
	*sim.Cluster
	col *simCollector
}

var _ scenario.Stager = (*replayCluster)(nil)

func (c *replayCluster) Do(ctx context.Context, req adapters.Request) adapters.Result {
	res := c.Cluster.Do(ctx, req)
	if req.Identity != worldIdentity {
		c.col.request(req, res)
	}
	return res
}

// simCollector logs the scenario runner's reconciles as the recorder logs
// the controller's: a reconcile begins with its first step (its reads come
// before it and are not logged; its writes after it).
type simCollector struct {
	start  time.Time
	redact bool
	cur    *reconcileLog
	ref    adapters.Ref
	lines  []Decision
}

func (c *simCollector) flush() {
	if c.cur != nil {
		c.lines = append(c.lines, c.cur.lines...)
		c.cur = nil
	}
}

func (c *simCollector) Step(now time.Time, ref adapters.Ref, m *fsm.Machine, snap engine.Snapshot, d *engine.Decision) {
	if c.cur == nil || c.ref != ref || !c.cur.now.Equal(now) {
		c.flush()
		c.cur, c.ref = newReconcileLog(c.start, now, ref, m, c.redact), ref
		c.cur.decisionsOnly = true
	}
	c.cur.Step(now, ref, m, snap, d)
}

func (c *simCollector) Transition(now time.Time, ref adapters.Ref, r *engine.Result) {
	if c.cur != nil {
		c.cur.Transition(now, ref, r)
	}
}

func (c *simCollector) Problem(now time.Time, ref adapters.Ref, p *engine.Problem) {
	if c.cur != nil {
		c.cur.Problem(now, ref, p)
	}
}

func (c *simCollector) request(req adapters.Request, res adapters.Result) {
	if c.cur != nil {
		c.cur.Request(req, res)
	}
}

// explainDivergences notes, on each divergence, when the recorded
// reconcile where it begins overlapped in time with another object's
// reconcile that wrote: the cluster interleaved their reads and writes in
// an order the recording does not hold, and the simulator runs reconciles
// one after the other (record with one worker to avoid it).
func explainDivergences(divs []ObjectDiff, reconciles, decisions []Decision) {
	type span struct {
		object     string
		start, end Offset
	}
	var spans []span
	for _, r := range reconciles {
		if r.End != nil {
			spans = append(spans, span{r.Object, r.At, *r.End})
		}
	}
	wrote := map[string]map[Offset][]string{}
	for _, d := range decisions {
		if d.Type == "write" && d.Write.Outcome == "ok" && !d.Write.DryRun {
			if wrote[d.Object] == nil {
				wrote[d.Object] = map[Offset][]string{}
			}
			wrote[d.Object][d.At] = append(wrote[d.Object][d.At], strings.TrimSpace(d.Key()))
		}
	}
	for i := range divs {
		var first *Decision
		for _, row := range divs[i].Rows {
			if !row.Same && row.Old != nil {
				first = row.Old
				break
			}
		}
		if first == nil {
			continue
		}
		var mine *span
		for j := range spans {
			if spans[j].object == first.Object && spans[j].start == first.At {
				mine = &spans[j]
			}
		}
		if mine == nil {
			continue
		}
		for _, o := range spans {
			if o.object == mine.object || o.start >= mine.end || o.end <= mine.start || len(wrote[o.object][o.start]) == 0 {
				continue
			}
			divs[i].Note = fmt.Sprintf("the reconcile at %s ran concurrently with %s's (%s to %s), which wrote: %s; the cluster interleaved their reads and writes in an order the recording does not hold, and the simulator runs reconciles one after the other (record with --workers 1 to avoid this)",
				Stamp(mine.start), o.object, Stamp(o.start), Stamp(o.end), strings.Join(wrote[o.object][o.start], "; "))
			break
		}
	}
}
