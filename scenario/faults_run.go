package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// FaultRun is one run of a scenario under a FaultSchedule.
type FaultRun struct {
	Schedule FaultSchedule
	Result   *Result
	Cluster  *FaultCluster
}

// RunWithFaults runs s under sched, for settle past its run_for: the
// faults stop at run_for (stale reads heal then; a crash has happened by
// then or never), and settle is the bound within which the run must have
// converged. The baseline is the same call with an empty schedule.
func RunWithFaults(ctx context.Context, s *Scenario, ms []*fsm.Machine, sched FaultSchedule, settle time.Duration) (*FaultRun, error) {
	ext := *s
	ext.RunFor = s.RunFor + settle
	// An event at run_for that does nothing but let the runner take the
	// records (and a FaultCluster heal): the end of the faults.
	ext.Events = append(append([]*Event(nil), s.Events...), &Event{At: s.RunFor})
	if sched.StaleWrites > 0 && sched.HealAt.IsZero() {
		sched.HealAt = s.Start.Add(s.RunFor)
	}
	run := &FaultRun{Schedule: sched}
	res, err := Run(ctx, &ext, ms, Options{EveryStep: true, Cluster: func(clock *sim.Clock) (Cluster, error) {
		run.Cluster = NewFaultCluster(sim.New(clock, sim.WithSeed(s.Seed)), sched)
		return run.Cluster, nil
	}})
	if err != nil {
		return nil, err
	}
	run.Result = res
	return run, nil
}

// FinalState is what "the same final state" compares after a faulted run
// and its baseline: every driven object (metadata, spec, status: its
// memory when the machine keeps it there or in an annotation), and every
// object the engine wrote in either run (touched: the objects they own,
// their targets, companion memories), each normalised. Normalised means:
// the server's own bookkeeping dropped (resourceVersion, uid,
// creationTimestamp, managedFields), every uid that appears in a value
// replaced by the name of the object it identifies, and every RFC 3339
// timestamp (in a value of its own or in a message) replaced by <time> (a restarted engine reconciles every object
// at once, so what it does later happens at other times: when, not what).
// Events are left out (their names are generated). One line per object,
// sorted.
func FinalState(c Cluster, ms []*fsm.Machine, touched map[adapters.Ref]bool) string {
	objs := map[adapters.Ref]map[string]any{}
	driven := map[adapters.Ref]bool{}
	for _, m := range ms {
		for _, r := range m.Resources {
			for _, obj := range c.Objects(r.APIVersion, r.Kind) {
				ref := sim.RefOf(obj)
				objs[ref], driven[ref] = obj, true
				if m.Source.MemoryIn == "companion" {
					touched[engine.CompanionRef(m, ref)] = true
				}
			}
		}
	}
	for ref := range touched {
		if ref.Kind == "Event" || driven[ref] {
			continue
		}
		if obj, ok := c.Object(ref); ok {
			objs[ref] = obj
		} else {
			objs[ref] = nil
		}
	}
	uids := map[string]string{}
	for ref, obj := range objs {
		md, _ := obj["metadata"].(map[string]any)
		if uid, _ := md["uid"].(string); uid != "" {
			uids[uid] = ref.String()
		}
	}
	lines := make([]string, 0, len(objs))
	for ref, obj := range objs {
		what := "object"
		if driven[ref] {
			what = "driven"
		}
		if obj == nil {
			lines = append(lines, fmt.Sprintf("%s %s: absent", what, ref))
			continue
		}
		b, _ := json.Marshal(normalizeState(obj, uids, 0))
		lines = append(lines, fmt.Sprintf("%s %s: %s", what, ref, b))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n") + "\n"
}

var timestampRE = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})`)

var serverMetadata = []string{"resourceVersion", "uid", "creationTimestamp", "managedFields", "selfLink"}

func normalizeState(v any, uids map[string]string, depth int) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeState(e, uids, depth+1)
		}
		if depth == 0 {
			if md, ok := out["metadata"].(map[string]any); ok {
				for _, f := range serverMetadata {
					delete(md, f)
				}
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeState(e, uids, depth+1)
		}
		return out
	case string:
		if ref, ok := uids[x]; ok {
			return "uid(" + ref + ")"
		}
		if strings.HasPrefix(x, "uid-") { // the simulator's uid of an object gone
			return "uid(?)"
		}
		return timestampRE.ReplaceAllString(x, "<time>")
	}
	return v
}

// StagesCallFaults reports whether the scenario stages API faults (which
// the simulator counts by call, or draws by rate).
func (s *Scenario) StagesCallFaults() bool { return s.stagesFaults() }

// Stages tells a scenario that stages denials, faults, admission or
// recorded objects, at the start or in an event: only the simulated
// cluster can run it.
func (s *Scenario) Stages() bool { return s.stages() }
