package verify_test

import (
	"context"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/scenario"
	"github.com/statecraft/statecraft/verify"
)

func machine(t *testing.T, ref string) *fsm.Machine {
	t.Helper()
	f, diags := rules.LoadRef(ref)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return ms[0]
}

// objects are the seed example's: its namespace, Deployment and
// ObjectPatch with spec.drift.
func objects(t *testing.T) []map[string]any {
	t.Helper()
	s, diags := scenario.Load("../examples/objectpatch/drift-streak.scenario.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s.Objects
}

var quick = verify.Options{MaxDepth: 12, FaultDepth: -1}

func find(rep *verify.Report, kind string) *verify.Finding {
	for _, f := range rep.Findings {
		if f.Kind == kind {
			return f
		}
	}
	return nil
}

// The broken copy's drift repair has no bound: verify finds the livelock,
// and the scenario it writes plays the same transitions in the simulator.
func TestBrokenCopyLivelockReproduces(t *testing.T) {
	const ref = "../examples/verify/objectpatch-unbounded-repair.hcl"
	rep, err := verify.Explore(machine(t, ref), objects(t), quick)
	if err != nil {
		t.Fatal(err)
	}
	f := find(rep, "livelock")
	if f == nil {
		t.Fatalf("no livelock found: %+v", rep.Findings)
	}
	if len(f.Cycle) == 0 || !strings.Contains(f.Summary, "Deployment/patches-demo/application") {
		t.Fatalf("livelock without a readable cycle: %+v", f)
	}
	dir := t.TempDir()
	path, err := verify.WriteScenario(dir, "livelock", ref, rep, f)
	if err != nil {
		t.Fatal(err)
	}
	s, diags := scenario.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	res, err := scenario.Run(context.Background(), s, ms, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Failures) > 0 {
		t.Fatalf("the written scenario's expectation fails: %v", res.Failures)
	}
	var got []string
	for _, l := range res.Trace {
		if l.Kind == "transition" {
			got = append(got, l.String())
		}
	}
	want := verify.TransitionLines(f.ScenarioSteps())
	if len(got) < len(want) {
		t.Fatalf("the simulation made %d transitions, the counterexample %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("transition %d differs:\nverify: %s\nsim:    %s", i, want[i], got[i])
		}
	}
	if filepath.Ext(path) != ".hcl" {
		t.Fatal(path)
	}
}

// The shipped policy bounds its drift repair: no livelock, no trap.
func TestShippedObjectPatchHasNoLivelock(t *testing.T) {
	rep, err := verify.Explore(machine(t, "objectpatch"), objects(t), quick)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"livelock", "stuck", "unbounded retries"} {
		if f := find(rep, k); f != nil {
			t.Errorf("%s: %s", k, f.Summary)
		}
	}
	if len(rep.Reached) != 4 {
		t.Errorf("reached %v", rep.Reached)
	}
}

const propertyMachine = `
machine "poller" {
  resource "example.com/v1" "Widget" { scope = Namespaced }
  observe "config" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'name': self.metadata.name}"
  }
  state "Waiting" { initial = true }
  state "Ready" {
    recheck = "duration('30s')"
  }
  transition "ready" {
    from = [Waiting]
    when = "config.exists"
    do "touch" {
      verb   = patch
      target = "ref(config.object)"
      body   = "{'metadata': {'labels': {'seen': 'yes'}}}"
    }
    to = Ready
    on "touch" "*" {
      to    = Waiting
      after = "duration('10s')"
    }
  }
  transition "wait" {
    from  = [Waiting]
    to    = Waiting
    after = "duration('1m')"
  }
  transition "again" {
    from  = [Ready]
    when  = "config.exists"
    do "touch" {
      verb   = patch
      target = "ref(config.object)"
      body   = "{'metadata': {'labels': {'seen': 'again'}}}"
    }
    to    = Ready
    after = "duration('20s')"
    on "touch" "*" {
      to = Waiting
    }
  }
  property "settles" {
    eventually = [Ready]
  }
  property "calm" {
    never_within = { writes = 2, window = "1m" }
  }
}
`

func TestProperties(t *testing.T) {
	f, diags := rules.Parse([]byte(propertyMachine), "poller.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	objs := []map[string]any{
		{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns"}},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "w", "namespace": "ns"}},
	}
	var summaries []string
	// Without its ConfigMap the widget waits for ever; with it, Ready
	// writes every 20s.
	for _, objs := range [][]map[string]any{objs[:1], objs} {
		rep, err := verify.Explore(ms[0], objs, verify.Options{MaxDepth: 6})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range rep.Findings {
			summaries = append(summaries, f.Summary)
		}
	}
	all := strings.Join(summaries, "\n")
	if !strings.Contains(all, `property "settles" fails`) {
		t.Errorf("eventually not violated:\n%s", all)
	}
	if !strings.Contains(all, `property "calm" fails: 2 writes`) {
		t.Errorf("never_within not violated:\n%s", all)
	}
}

func TestPropertyBlockErrors(t *testing.T) {
	src := strings.Replace(propertyMachine, `never_within = { writes = 2, window = "1m" }`, `never_within = { writes = 0, window = "soon" }`, 1)
	_, diags := rules.Parse([]byte(src), "poller.hcl")
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Invalid never_within") {
		t.Fatalf("want Invalid never_within, got %v", diags)
	}
}

// An accept block declares a finding meant: verify marks the findings it
// covers (kind, states, property) with its name and reason, leaves the
// others open, and names the accepts that matched nothing.
func TestAcceptBlocks(t *testing.T) {
	src := strings.Replace(propertyMachine, `  property "calm" {`, `  accept "no config" {
    finding  = property
    property = "settles"
    because  = "a widget without its ConfigMap waits for it"
  }
  accept "never ready" {
    finding = unreached
    states  = [Ready]
    because = "only the world makes the ConfigMap"
  }
  accept "stuck ready" {
    finding = stuck
    states  = [Ready]
    because = "matches nothing here"
  }
  property "calm" {`, 1)
	f, diags := rules.Parse([]byte(src), "poller.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	objs := []map[string]any{
		{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns"}},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "w", "namespace": "ns"}},
	}
	// Without the ConfigMap: settles fails and Ready is unreached, both
	// accepted; the widget is stuck in Waiting, which "stuck ready" (its
	// states: Ready) does not cover.
	rep, err := verify.Explore(ms[0], objs[:1], verify.Options{MaxDepth: 6})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range rep.Findings {
		got[f.Kind+" "+strings.Join(f.States, ",")+" "+f.Property] = f.Accepted
	}
	want := map[string]string{"property Waiting settles": "no config", "unreached Ready ": "never ready", "stuck Waiting ": ""}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings and their accepts:\n got %v\nwant %v", got, want)
	}
	if strings.Join(rep.Unused, ",") != "stuck ready" {
		t.Errorf("unused accepts %v, want [stuck ready]", rep.Unused)
	}
	// With it, Ready is reached ("never ready" is unused), a widget whose
	// ConfigMap is deleted stays in Ready ("stuck ready" covers it), and
	// the open findings are calm's and the livelock's.
	rep, err = verify.Explore(ms[0], objs, verify.Options{MaxDepth: 6})
	if err != nil {
		t.Fatal(err)
	}
	var open []string
	for _, f := range rep.Findings {
		if f.Accepted == "" {
			open = append(open, f.Kind+" "+f.Property)
		}
	}
	sort.Strings(open)
	if strings.Join(open, ",") != "livelock ,property calm" {
		t.Errorf("open findings %q, want the livelock and calm", open)
	}
	if strings.Join(rep.Unused, ",") != "no config,never ready" {
		t.Errorf("unused accepts %v", rep.Unused)
	}
}

// An accept must name a state the machine has, a finding kind verify
// reports, a reason, and for a property finding a declared property.
func TestAcceptBlockErrors(t *testing.T) {
	for _, c := range []struct{ block, want string }{
		{`accept "a" {
    finding = unreached
    states  = [Redy]
    because = "x"
  }`, `Unknown state`},
		{`accept "a" {
    finding = stalled
    because = "x"
  }`, `Unknown finding`},
		{`accept "a" {
    finding = unreached
    because = " "
  }`, `Empty reason`},
		{`accept "a" {
    finding  = property
    property = "sttles"
    because  = "x"
  }`, `Unknown property`},
		{`accept "a" {
    finding = unreached
  }`, `because`},
	} {
		src := strings.Replace(propertyMachine, `  property "calm" {`, "  "+c.block+"\n  property \"calm\" {", 1)
		f, diags := rules.Parse([]byte(src), "poller.hcl")
		if !diags.HasErrors() {
			_, diags = fsm.Compile(f)
		}
		if !diags.HasErrors() || !strings.Contains(diags.Error(), c.want) {
			t.Errorf("%s: want an error %q, got %v", c.block, c.want, diags)
		}
	}
}

// Groups explores a ClusterObjectDeployment with the ClusterObjectSet
// machine that drives the revisions it creates, and a ClusterExtension
// with both; the ClusterObjectSet, which creates nothing, is not explored
// alone; ObjectPatch, unrelated, alone.
func TestGroups(t *testing.T) {
	var ms []*fsm.Machine
	for _, p := range []string{"objectpatch", "clusterextension", "clusterobjectdeployment", "clusterobjectset"} {
		ms = append(ms, machine(t, p))
	}
	var got []string
	for _, g := range verify.Groups(ms) {
		var names []string
		for _, m := range g {
			names = append(names, m.Name)
		}
		got = append(got, strings.Join(names, "+"))
	}
	want := "objectpatch clusterextension+clusterobjectdeployment+clusterobjectset clusterobjectdeployment+clusterobjectset"
	if strings.Join(got, " ") != want {
		t.Errorf("groups %q, want %q", strings.Join(got, " "), want)
	}
}

// Explored alone, a ClusterObjectDeployment's revision never becomes
// Ready, so the COD never reaches Progressed; with the ClusterObjectSet
// machine driving the revision it creates, both do.
func TestExploreGroupDrivesRevisions(t *testing.T) {
	s, diags := scenario.Load("../examples/cod/my-app.scenario.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	cod, cos := machine(t, "clusterobjectdeployment"), machine(t, "clusterobjectset")
	has := func(xs []string, x string) bool {
		for _, y := range xs {
			if y == x {
				return true
			}
		}
		return false
	}
	alone, err := verify.Explore(cod, s.Objects, quick)
	if err != nil {
		t.Fatal(err)
	}
	if has(alone.Reached, "Progressed") {
		t.Errorf("alone, the COD reached Progressed: %v", alone.Reached)
	}
	both, err := verify.ExploreGroup([]*fsm.Machine{cod, cos}, s.Objects, quick)
	if err != nil {
		t.Fatal(err)
	}
	if !has(both.Reached, "Progressed") {
		t.Errorf("with the COS machine, the COD did not reach Progressed: %v", both.Reached)
	}
	if len(both.Others) != 1 || both.Others[0].Machine != "clusterobjectset" || !has(both.Others[0].Reached, "Ready") {
		t.Errorf("the COS machine's states: %+v", both.Others)
	}
}
