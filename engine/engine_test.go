package engine_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func compile(t *testing.T, src string) *fsm.Machine {
	t.Helper()
	f, diags := rules.Parse([]byte(src), "test.hcl")
	if diags.HasErrors() {
		t.Fatalf("load: %v", diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatalf("compile: %v", diags)
	}
	return ms[0]
}

const header = `
machine "w" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
`

func widget(spec map[string]any, status map[string]any) map[string]any {
	obj := map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": "default", "generation": int64(1)},
		"spec":     spec,
	}
	if status != nil {
		obj["status"] = status
	}
	return obj
}

func newCluster(t *testing.T, objs ...map[string]any) *sim.Cluster {
	t.Helper()
	c := sim.New(sim.NewClock(t0))
	c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, sim.KindOptions{HasStatus: true})
	for _, o := range objs {
		if err := c.Apply(o); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

var w1 = adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: "w1"}

type recorder struct{ lines []string }

func (r *recorder) Transition(_ time.Time, _ adapters.Ref, res *engine.Result) {
	r.lines = append(r.lines, res.From+">"+res.To+":"+res.Transition)
}
func (r *recorder) Problem(_ time.Time, _ adapters.Ref, p *engine.Problem) {
	r.lines = append(r.lines, "problem:"+p.Reason)
}

func status(t *testing.T, c *sim.Cluster) map[string]any {
	t.Helper()
	obj, ok := c.Object(w1)
	if !ok {
		t.Fatal("widget gone")
	}
	st, _ := obj["status"].(map[string]any)
	return st
}

// The first transition whose guard is true fires, in declaration order,
// and "*" covers every state.
func TestDeclarationOrderAndWildcard(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
  }
  state "B" {}
  state "C" {}
  transition "first" {
    from   = [A]
    when   = "self.spec.n > 1"
    to     = B
    reason = First
  }
  transition "second" {
    from   = [A]
    when   = "self.spec.n > 0"
    to     = C
    reason = Second
  }
  transition "reset" {
    from = ["*"]
    when = "self.spec.n == 0 && status.?state.orValue('A') != 'A'"
    to   = A
    reason = Reset
  }
}`)
	for _, c := range []struct {
		n    int64
		from string
		want string
	}{{2, "A", "first"}, {1, "A", "second"}, {0, "B", "reset"}, {0, "C", "reset"}, {0, "A", ""}} {
		var st map[string]any
		if c.from != "A" {
			st = map[string]any{"state": c.from}
		}
		d := engine.Step(m, engine.Snapshot{Object: widget(map[string]any{"n": c.n}, st), Now: t0})
		got := ""
		if d.Transition != nil {
			got = d.Transition.Name
		}
		if got != c.want {
			t.Errorf("n=%d from %s: fired %q, want %q", c.n, c.from, got, c.want)
		}
		if d.From != c.from {
			t.Errorf("from = %s, want %s", d.From, c.from)
		}
	}
}

const actionMachine = `
  param "retries" {
    type    = int
    default = 2
    override = "spec.retries"
    valid   = "value >= 0"
    reason  = InvalidSpec
  }
  state "Idle" {
    initial = true
  }
  state "Done" {
    outcome    = Success
    conditions = { Ready = True }
  }
  state "Failed" {
    outcome = Failure
    final   = true
    conditions = { Ready = False }
  }
  transition "label" {
    from = [Idle]
    do "check" {
      verb    = patch
      target  = "ref(self)"
      body    = "{'metadata': {'labels': {'checked': 'yes'}}}"
      dry_run = true
    }
    do "label" {
      verb   = patch
      target = "ref(self)"
      body   = "{'metadata': {'labels': {'done': 'yes'}}}"
      expect = "result.metadata.labels.?done.orValue('') == 'yes'"
    }
    to     = Done
    reason = Labelled
    set    = { attempts = "status.?attempts.orValue(0) + 1", since = "now" }
    on "label" "transient" {
      when   = "status.?attempts.orValue(0) < param.retries"
      to     = Idle
      reason = Retrying
      set    = { attempts = "status.?attempts.orValue(0) + 1" }
      after  = "duration('1m')"
    }
    on "label" "transient" {
      to     = Failed
      reason = RetryLimitExceeded
      set    = {}
    }
    on "check" "invalid" {
      to     = Failed
      reason = PreflightRejected
    }
    on "label" "not_retained" {
      to     = Failed
      reason = PatchNotApplied
    }
    on "*" "*" {
      to     = Failed
      reason = Other
    }
  }
}`

// Actions run in order, each ends in one outcome, and routes send it to a
// state with a reason; ok continues to the next action.
func TestActionsAndRoutes(t *testing.T) {
	m := compile(t, header+actionMachine)
	t.Run("all ok", func(t *testing.T) {
		c := newCluster(t, widget(map[string]any{}, nil))
		rec := &recorder{}
		rep, err := engine.Reconcile(context.Background(), m, c, w1, t0, rec)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(rec.lines, ",") != "Idle>Done:label" {
			t.Fatalf("transitions %v", rec.lines)
		}
		st := status(t, c)
		if st["state"] != "Done" || st["reason"] != "Labelled" || st["outcome"] != "Success" || st["attempts"] != int64(1) || st["since"] != "2026-01-01T00:00:00Z" {
			t.Errorf("status %v", st)
		}
		writes := c.Writes()
		if len(writes) != 3 || !writes[0].DryRun || writes[1].DryRun || writes[2].Subresource != "status" {
			t.Errorf("writes %v", writes)
		}
		if !rep.Wake.IsZero() {
			t.Errorf("resting in Done without recheck should not wake, got %v", rep.Wake)
		}
	})
	t.Run("guarded routes in order then fallback", func(t *testing.T) {
		c := newCluster(t, widget(map[string]any{}, nil))
		// Patch calls: dry-run, label, status write per round; fail each label.
		c.InjectFault(sim.Fault{Verb: adapters.Patch, Kind: "Widget", AtCalls: []int{2, 5, 8}, Outcome: adapters.Transient})
		rec := &recorder{}
		now := t0
		for i := 0; i < 3; i++ {
			rep, err := engine.Reconcile(context.Background(), m, c, w1, now, rec)
			if err != nil {
				t.Fatal(err)
			}
			if i < 2 && !rep.Wake.Equal(now.Add(time.Minute)) {
				t.Fatalf("round %d: wake %v, want after 1m", i, rep.Wake)
			}
			now = now.Add(time.Minute)
		}
		want := "Idle>Idle:label,Idle>Idle:label,Idle>Failed:label"
		if got := strings.Join(rec.lines, ","); got != want {
			t.Fatalf("got %s want %s", got, want)
		}
		if st := status(t, c); st["reason"] != "RetryLimitExceeded" || st["attempts"] != int64(2) {
			t.Errorf("status %v", st)
		}
	})
	t.Run("dry-run rejection", func(t *testing.T) {
		c := newCluster(t, widget(map[string]any{}, nil))
		c.AddAdmission(sim.Admission{Name: "no", Mode: sim.AdmitDryRunOnly,
			Reject: func(adapters.Request, map[string]any) string { return "denied by policy" }})
		engine.Reconcile(context.Background(), m, c, w1, t0, nil)
		st := status(t, c)
		if st["reason"] != "PreflightRejected" || !strings.Contains(st["message"].(string), "denied by policy") {
			t.Errorf("status %v", st)
		}
		if len(c.Writes()) != 2 { // dry-run patch + status
			t.Errorf("writes %v", c.Writes())
		}
	})
	t.Run("accepted but not retained", func(t *testing.T) {
		c := newCluster(t, widget(map[string]any{}, nil))
		c.AddAdmission(sim.Admission{Name: "strip", Mode: sim.AdmitLiveOnly,
			Mutate: func(_ adapters.Request, obj map[string]any) {
				if md, ok := obj["metadata"].(map[string]any); ok {
					if l, ok := md["labels"].(map[string]any); ok {
						delete(l, "done")
					}
				}
			}})
		engine.Reconcile(context.Background(), m, c, w1, t0, nil)
		if st := status(t, c); st["reason"] != "PatchNotApplied" {
			t.Errorf("status %v", st)
		}
	})
}

// An invalid param override gives a status reason, not a crash, and the
// object does not step.
func TestInvalidOverride(t *testing.T) {
	m := compile(t, header+actionMachine)
	for _, bad := range []any{int64(-1), "many"} {
		c := newCluster(t, widget(map[string]any{"retries": bad}, nil))
		rec := &recorder{}
		if _, err := engine.Reconcile(context.Background(), m, c, w1, t0, rec); err != nil {
			t.Fatal(err)
		}
		st := status(t, c)
		if st["reason"] != "InvalidSpec" || !strings.Contains(st["message"].(string), "spec.retries") {
			t.Errorf("retries=%v: status %v", bad, st)
		}
		if len(rec.lines) != 1 || rec.lines[0] != "problem:InvalidSpec" {
			t.Errorf("retries=%v: %v", bad, rec.lines)
		}
		if _, ok := st["state"]; ok {
			t.Errorf("retries=%v: stepped to %v", bad, st["state"])
		}
	}
}

// A machine that never comes to rest stops at the micro-step bound with a
// reason, instead of hanging.
func TestMicroStepBound(t *testing.T) {
	m := compile(t, header+`
  max_steps = 5
  state "A" {
    initial = true
  }
  state "B" {}
  transition "ab" {
    from = [A]
    to   = B
  }
  transition "ba" {
    from = [B]
    to   = A
  }
}`)
	c := newCluster(t, widget(map[string]any{}, nil))
	rec := &recorder{}
	rep, err := engine.Reconcile(context.Background(), m, c, w1, t0, rec)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Transitions) != 5 || rep.Problem == nil || rep.Problem.Reason != engine.MicroStepLimitReason {
		t.Fatalf("report %+v", rep)
	}
	if st := status(t, c); st["reason"] != engine.MicroStepLimitReason {
		t.Errorf("status %v", st)
	}
}

// Wake-ups are computed, never slept: a resting state's recheck (duration or
// timestamp) and a route's after are returned.
func TestWakeUps(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
    recheck = "duration('5m')"
  }
  state "B" {
    recheck = "timestamp(status.deadline)"
  }
  transition "go" {
    from = [A]
    when = "self.spec.go"
    to   = B
    set  = { deadline = "now + duration('2h')" }
  }
}`)
	d := engine.Step(m, engine.Snapshot{Object: widget(map[string]any{"go": false}, nil), Now: t0})
	if d.Transition != nil || !d.Wake.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("wake %v", d.Wake)
	}
	c := newCluster(t, widget(map[string]any{"go": true}, nil))
	rep, err := engine.Reconcile(context.Background(), m, c, w1, t0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Wake.Equal(t0.Add(2 * time.Hour)) {
		t.Fatalf("wake %v, want deadline", rep.Wake)
	}
}

// State lives in status: a new engine (a restart) continues where the
// previous one stopped, with identical results to an uninterrupted run.
func TestRestartContinues(t *testing.T) {
	src := header + actionMachine
	run := func(restart bool) map[string]any {
		m := compile(t, src)
		c := newCluster(t, widget(map[string]any{}, nil))
		c.InjectFault(sim.Fault{Verb: adapters.Patch, Kind: "Widget", AtCalls: []int{2}, Outcome: adapters.Transient})
		now := t0
		for i := 0; i < 3; i++ {
			if restart {
				m = compile(t, src) // a fresh process: nothing kept in memory
			}
			if _, err := engine.Reconcile(context.Background(), m, c, w1, now, nil); err != nil {
				t.Fatal(err)
			}
			now = now.Add(time.Minute)
		}
		return status(t, c)
	}
	a, b := run(false), run(true)
	if a["state"] != "Done" || a["state"] != b["state"] || a["attempts"] != b["attempts"] || a["reason"] != b["reason"] {
		t.Fatalf("uninterrupted %v, restarted %v", a, b)
	}
}

// A guard that fails to evaluate is reported, never a crash, and retried
// at the state's recheck, as a rest would be (none without one).
func TestGuardErrorIsReported(t *testing.T) {
	for _, recheck := range []string{"", `recheck = "duration('2m')"`} {
		m := compile(t, header+`
  state "A" {
    initial = true
    `+recheck+`
  }
  transition "go" {
    from = [A]
    when = "self.spec.missing.deeper == 1"
    to   = A
  }
}`)
		d := engine.Step(m, engine.Snapshot{Object: widget(map[string]any{}, nil), Now: t0})
		if d.Problem == nil || d.Problem.Reason != "EvaluationError" || !strings.Contains(d.Problem.Message, "go") {
			t.Fatalf("%q: decision %+v", recheck, d)
		}
		want := time.Time{}
		if recheck != "" {
			want = t0.Add(2 * time.Minute)
		}
		if !d.Wake.Equal(want) {
			t.Errorf("%q: wake %v, want %v", recheck, d.Wake, want)
		}
	}
}

// Step is pure: the same snapshot gives the same decision.
func TestStepIsPure(t *testing.T) {
	m := compile(t, header+actionMachine)
	snap := engine.Snapshot{Object: widget(map[string]any{}, nil), Now: t0}
	a, b := engine.Step(m, snap), engine.Step(m, snap)
	if a.Transition != b.Transition || len(a.Actions) != len(b.Actions) {
		t.Fatal("two steps on one snapshot differ")
	}
	if ab, _ := a.Actions[1].Requests[0].Payload(); ab == nil {
		t.Fatal("the second action's request has no content")
	} else if bb, _ := b.Actions[1].Requests[0].Payload(); string(ab) != string(bb) {
		t.Fatal("two steps on one snapshot differ")
	}
}

// for_each makes one request per element, in order, with item and index
// bound; the first failure ends the action with that outcome.
func TestForEach(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
  }
  state "B" {}
  state "Failed" {}
  transition "create all" {
    from = [A]
    do "create" {
      verb     = create
      for_each = "self.spec.names"
      target   = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'default', 'name': item}"
      body     = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': {'name': item, 'namespace': 'default'}, 'data': {'index': string(index)}}"
      expect   = "result.data.index == string(index)"
    }
    to = B
    on "*" "*" {
      to     = Failed
      reason = CreateFailed
    }
  }
}`)
	c := newCluster(t, widget(map[string]any{"names": []any{"one", "two", "three"}}, nil))
	c.InjectFault(sim.Fault{Verb: adapters.Create, Kind: "ConfigMap", AtCalls: []int{3}, Outcome: adapters.Forbidden})
	if _, err := engine.Reconcile(context.Background(), m, c, w1, t0, nil); err != nil {
		t.Fatal(err)
	}
	st := status(t, c)
	if st["state"] != "Failed" || !strings.Contains(st["message"].(string), "ConfigMap/default/three") {
		t.Fatalf("status %v", st)
	}
	for i, n := range []string{"one", "two"} {
		cm, ok := c.Object(adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: n})
		if !ok || cm["data"].(map[string]any)["index"] != string(rune('0'+i)) {
			t.Errorf("configmap %s: %v", n, cm)
		}
	}
}

// self typed from a CRD schema: fields are checked at compile time and the
// guard evaluates against the unstructured object at run time.
func TestTypedSelf(t *testing.T) {
	m := compile(t, `
machine "op" {
  resource "rightsizing.kubex.ai/v1alpha1" "ObjectPatch" {
    scope  = Namespaced
    schema = "crd:rightsizing.kubex.ai_objectpatches.yaml"
  }
  state "A" {
    initial = true
  }
  state "B" {}
  transition "go" {
    from = [A]
    when = "self.spec.targetRef.kind == 'Deployment' && !has(self.spec.drift) && self.spec.?retryAmount.orValue(3) == 3 && self.metadata.namespace == 'default' && self.metadata.generation == 1 && self.metadata.labels['team'] == 'a' && now - timestamp(self.metadata.creationTimestamp) == duration('1h')"
    to   = B
  }
}`)
	obj := map[string]any{
		"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
		"metadata": map[string]any{"name": "p", "namespace": "default", "generation": int64(1),
			"labels": map[string]any{"team": "a"}, "creationTimestamp": t0.Add(-time.Hour).Format(time.RFC3339)},
		"spec": map[string]any{
			"targetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "app"},
			"patch":     map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}}},
		},
	}
	d := engine.Step(m, engine.Snapshot{Object: obj, Now: t0})
	if d.Problem != nil || d.Transition == nil || d.Transition.Name != "go" {
		t.Fatalf("decision %+v problem %+v", d, d.Problem)
	}
}

// staleReads serves reads of ConfigMaps from a snapshot taken before any
// write, as an informer cache that has not caught up would.
type staleReads struct {
	*sim.Cluster
	frozen map[adapters.Ref]map[string]any
}

func (s staleReads) Do(ctx context.Context, req adapters.Request) adapters.Result {
	if req.Verb == adapters.Get && req.Ref.Kind == "ConfigMap" {
		if o, ok := s.frozen[req.Ref]; ok {
			return adapters.Result{Outcome: adapters.OK, Object: o}
		}
	}
	return s.Cluster.Do(ctx, req)
}

// Later micro-steps see the objects this reconcile wrote, not a stale read.
func TestObservesOwnWrites(t *testing.T) {
	m := compile(t, header+`
  observe "cm" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': 'default', 'name': 'cm'}"
  }
  state "A" {
    initial = true
  }
  state "B" {}
  state "Drifted" {}
  transition "label" {
    from = [A]
    do "label" {
      verb   = patch
      target = "ref(cm.object)"
      body   = "{'metadata': {'labels': {'done': 'yes'}}}"
    }
    to = B
    on "*" "*" {
      to = A
    }
  }
  transition "drift" {
    from = [B]
    when = "cm.object.metadata.?labels.?done.orValue('') != 'yes'"
    to   = Drifted
  }
}`)
	cm := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "cm", "namespace": "default"}}
	c := newCluster(t, widget(map[string]any{}, nil), cm)
	ref := adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "cm"}
	before, _ := c.Object(ref)
	api := staleReads{Cluster: c, frozen: map[adapters.Ref]map[string]any{ref: before}}
	if _, err := engine.Reconcile(context.Background(), m, api, w1, t0, nil); err != nil {
		t.Fatal(err)
	}
	if st := status(t, c); st["state"] != "B" {
		t.Fatalf("a stale read undid the reconcile's own write: %v", st)
	}
}

// An action whose when is false is skipped and counts as ok; a route's
// conditions are set on top of the destination state's.
func TestActionWhenAndRouteConditions(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
  }
  state "B" {
    conditions = { Ready = True, Degraded = False }
  }
  transition "go" {
    from = [A]
    do "optional" {
      verb   = patch
      when   = "has(self.spec.label)"
      target = "ref(self)"
      body   = "{'metadata': {'labels': {'x': self.spec.label}}}"
    }
    to         = B
    reason     = Done
    conditions = { Degraded = True }
    on "*" "*" {
      to = A
    }
  }
}`)
	for _, spec := range []map[string]any{{}, {"label": "y"}} {
		c := newCluster(t, widget(spec, nil))
		if _, err := engine.Reconcile(context.Background(), m, c, w1, t0, nil); err != nil {
			t.Fatal(err)
		}
		patches := c.CountWrites(adapters.Patch, "") // the status write is one
		want := 1
		if spec["label"] != nil {
			want = 2
		}
		if patches != want {
			t.Errorf("spec %v: %d patches, want %d", spec, patches, want)
		}
		st := status(t, c)
		conds := map[string]string{}
		for _, x := range st["conditions"].([]any) {
			cm := x.(map[string]any)
			conds[cm["type"].(string)] = cm["status"].(string)
		}
		if st["state"] != "B" || conds["Ready"] != "True" || conds["Degraded"] != "True" {
			t.Errorf("spec %v: status %v", spec, st)
		}
	}
}

// A route without to stays in the current state; a route without a reason
// keeps the status's reason and message, and the conditions keep them too.
func TestStayAndKeepReason(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial    = true
    conditions = { Ready = False }
  }
  transition "fail" {
    from    = [A]
    when    = "!has(status.reason)"
    reason  = Broken
    message = "'it broke'"
  }
  transition "count" {
    from = [A]
    when = "status.?n.orValue(0) < 2"
    set  = { n = "status.?n.orValue(0) + 1" }
  }
}`)
	c := newCluster(t, widget(map[string]any{}, nil))
	rec := &recorder{}
	if _, err := engine.Reconcile(context.Background(), m, c, w1, t0, rec); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rec.lines, ","); got != "A>A:fail,A>A:count,A>A:count" {
		t.Fatalf("transitions %s", got)
	}
	st := status(t, c)
	cond := st["conditions"].([]any)[0].(map[string]any)
	if st["state"] != "A" || st["reason"] != "Broken" || st["message"] != "it broke" || st["n"] != int64(2) ||
		cond["reason"] != "Broken" || cond["message"] != "it broke" {
		t.Fatalf("status %v", st)
	}
}

// A state's set is assigned on every entry, before the route's set, which
// wins.
func TestStateSet(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
  }
  state "B" {
    set = { phase = "'in B'", entered = "now" }
  }
  transition "go" {
    from = [A]
    to   = B
    set  = { phase = "'routed'" }
  }
}`)
	c := newCluster(t, widget(map[string]any{}, nil))
	if _, err := engine.Reconcile(context.Background(), m, c, w1, t0, nil); err != nil {
		t.Fatal(err)
	}
	st := status(t, c)
	if st["state"] != "B" || st["phase"] != "routed" || st["entered"] != "2026-01-01T00:00:00Z" {
		t.Fatalf("status %v", st)
	}
}

// A fired transition builds a new status that shares what it does not
// change with the status the step read: a set on a nested path copies the maps on its way
// and leaves the read status (a shared, frozen read) as it was.
func TestResolveLeavesReadStatusAlone(t *testing.T) {
	m := compile(t, header+`
  state "A" {
    initial = true
  }
  state "B" {}
  transition "go" {
    from = [A]
    to   = B
    set  = { "deep.inner.x" = "2", "deep.gone" = "null" }
  }
}`)
	read := map[string]any{"state": "A", "deep": map[string]any{"inner": map[string]any{"x": int64(1), "y": "kept"}, "gone": true}, "other": map[string]any{"z": int64(3)}}
	before, _ := json.Marshal(read)
	rec := engine.Start(m, w1, t0, engine.Options{Steps: true})
	rec.Deliver(engine.Delivery{Result: adapters.Result{Outcome: adapters.OK, Object: widget(map[string]any{}, read)}})
	rd := rec.Ready()
	if len(rd.Trace) != 3 || rd.Trace[1].Fired == nil {
		t.Fatalf("want a step, a fired transition and a step at rest, got %+v", rd.Trace)
	}
	r := rd.Trace[1].Fired
	if rd.Request == nil || rd.Request.Subresource != "status" {
		t.Fatalf("want the status write next, got %+v", rd)
	}
	if after, _ := json.Marshal(read); string(after) != string(before) {
		t.Errorf("the transition changed the status it read:\n%s\n%s", before, after)
	}
	got, _ := json.Marshal(r.Status)
	want := `{"deep":{"inner":{"x":2,"y":"kept"}},"observedGeneration":1,"other":{"z":3},"state":"B"}`
	if string(got) != want {
		t.Errorf("new status %s, want %s", got, want)
	}
}
