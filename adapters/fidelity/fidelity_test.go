package fidelity

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/jsonvalue"
)

// The default run is the one `make test` makes: every kind is the primary
// kind of one sequence. `make fidelity` passes a larger one.
var (
	flagSeed      = flag.Uint64("fidelity.seed", 1, "seed of the generated sequences")
	flagSequences = flag.Int("fidelity.sequences", len(Kinds), "number of sequences")
	flagLength    = flag.Int("fidelity.length", 20, "requests per sequence")
	flagShrink    = flag.Int("fidelity.shrink", 0, "shrink and print the reproduction of this many disagreements per class, the most frequent first (-1: all); a failing run shrinks three of each class below its threshold")
	flagEnforce   = flag.Bool("fidelity.enforce", true, "fail when a class is below its threshold in testdata/thresholds.txt")
	flagReport    = flag.String("fidelity.report", "", "also write the report to this file (\"-\": standard output)")
	flagTrace     = flag.Int("fidelity.trace", -1, "TestFidelityTrace: print every step of this sequence of -fidelity.seed")
)

// TestFidelityTrace prints one sequence step by step (-fidelity.trace=I).
func TestFidelityTrace(t *testing.T) {
	if *flagTrace < 0 {
		t.Skip("no -fidelity.trace")
	}
	api := server(t)
	al, _ := load(t)
	seq := Generate(*flagSeed, *flagTrace, *flagLength)
	run, err := (&Harness{Server: api, Allow: al}).Run(context.Background(), seq.Steps)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("%s, %d requests:\n%s\n", seq.Name(), len(seq.Steps), strings.Join(run.Trace(), "\n"))
}

var (
	testPlane  *controlplane.ControlPlane
	testClient *kube.Client
	startErr   error
)

func TestMain(m *testing.M) {
	flag.Parse()
	code := func() int {
		if controlplane.Unavailable() != "" || testing.Short() {
			return m.Run()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		testPlane, startErr = controlplane.Start(ctx, controlplane.Options{
			CRDDirs: []string{filepath.Join("..", "..", "spec", "crds")},
		})
		if startErr == nil {
			cfg := rest.CopyConfig(testPlane.Config)
			cfg.WarningHandler = rest.NoWarnings{} // unknown fields are what some requests send
			testClient, startErr = kube.New(cfg, kube.Options{FieldManager: "fidelity"})
		}
		defer func() {
			if err := testPlane.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "stop control plane:", err)
			}
		}()
		return m.Run()
	}()
	os.Exit(code)
}

func server(t *testing.T) *kube.Client {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no control plane")
	}
	controlplane.SkipOrFail(t)
	if startErr != nil {
		t.Fatalf("control plane: %v", startErr)
	}
	return testClient
}

func load(t *testing.T) (*Allowlist, Thresholds) {
	t.Helper()
	al, err := LoadAllowlist(filepath.Join("testdata", "allowlist.txt"))
	if err != nil {
		t.Fatal(err)
	}
	th, err := LoadThresholds(filepath.Join("testdata", "thresholds.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return al, th
}

// TestFidelity sends the generated sequences to the local kube-apiserver
// and to the simulator and holds every class at its threshold.
func TestFidelity(t *testing.T) {
	api := server(t)
	al, th := load(t)
	ctx := context.Background()
	h := &Harness{Server: api, Allow: al}
	start := time.Now()
	rep, err := Measure(ctx, h, *flagSeed, *flagSequences, *flagLength)
	if err != nil {
		t.Fatal(err)
	}
	measured := time.Since(start)
	var below []Class
	for _, c := range Classes {
		if rep.Tally[c].Agreement() < th[c] {
			below = append(below, c)
		}
	}
	failing := map[Class]bool{}
	if *flagEnforce {
		for _, c := range below {
			failing[c] = true
		}
	}
	if *flagShrink != 0 {
		if err := rep.ShrinkGroups(ctx, h, *flagShrink, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(failing) > 0 {
		if err := rep.ShrinkGroups(ctx, h, 3, func(g *Group) bool { return failing[g.Class] }); err != nil {
			t.Fatal(err)
		}
	}
	var out bytes.Buffer
	rep.WriteTable(&out)
	fmt.Fprintln(&out)
	rep.WriteKinds(&out)
	fmt.Fprintln(&out)
	rep.WriteGroups(&out)
	switch *flagReport {
	case "":
		t.Logf("measured in %s\n%s", measured.Round(time.Second), out.String())
	case "-":
		fmt.Printf("measured in %s\n%s", measured.Round(time.Second), out.String())
	default:
		t.Logf("measured in %s\n%s", measured.Round(time.Second), out.String())
		if err := os.WriteFile(*flagReport, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range below {
		msg := fmt.Sprintf("class %s: agreement %.1f%% is below its threshold %.1f%% (testdata/thresholds.txt)", c, rep.Tally[c].Agreement(), th[c])
		if *flagEnforce {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
	for _, c := range Classes {
		if rep.Tally[c].Checked == 0 && *flagSequences >= len(Kinds) {
			t.Errorf("class %s: nothing was checked", c)
		}
	}
}

// TestSimAgainstItself runs the harness with the simulator on both sides:
// everything must agree, which shows that the normalisation leaves
// nothing that differs between two runs of the same API.
func TestSimAgainstItself(t *testing.T) {
	api, err := NewSim()
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{Server: api}
	rep, err := Measure(context.Background(), h, 7, 2*len(Kinds), 30)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range rep.Groups {
		t.Errorf("%d× %s", g.Count, g.Signature)
	}
	for _, c := range []Class{ClassOutcome, ClassContent, ClassRV, ClassList} {
		if rep.Tally[c].Checked == 0 {
			t.Errorf("class %s: nothing checked", c)
		}
	}
}

// TestGenerateIsDeterministic: the same seed and index give the same
// steps; another seed gives others.
func TestGenerateIsDeterministic(t *testing.T) {
	a, b := Generate(3, 5, 40), Generate(3, 5, 40)
	if len(a.Steps) != 40 {
		t.Fatalf("%d steps, want 40", len(a.Steps))
	}
	for i := range a.Steps {
		if a.Steps[i].Describe() != b.Steps[i].Describe() {
			t.Fatalf("step %d: %s, then %s", i, a.Steps[i].Describe(), b.Steps[i].Describe())
		}
	}
	c := Generate(4, 5, 40)
	same := 0
	for i := range a.Steps {
		if a.Steps[i].Describe() == c.Steps[i].Describe() {
			same++
		}
	}
	if same == len(a.Steps) {
		t.Error("seeds 3 and 4 gave the same sequence")
	}
}

// TestGeneratorCoverage: a run as large as make test's sends every verb,
// patch type, subresource and propagation policy the issue names.
func TestGeneratorCoverage(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < len(Kinds); i++ {
		for _, st := range Generate(1, i, 20).Steps {
			seen[string(st.Verb)] = true
			seen["kind "+st.Kind] = true
			if st.Verb == adapters.Patch {
				seen["patch "+string(st.PatchType)] = true
				if st.Force {
					seen["force"] = true
				}
			}
			if st.Subresource == "status" && st.Verb != adapters.Get {
				seen["status write"] = true
			}
			if st.DryRun {
				seen["dry-run"] = true
			}
			if st.Verb == adapters.List && st.Selector != "" {
				seen["selector"] = true
			}
			if st.Verb == adapters.Delete {
				seen["propagation "+st.Propagation] = true
			}
			if st.Verb == adapters.Update {
				seen["update "+st.Mode] = true
			}
		}
	}
	want := []string{"get", "list", "create", "update", "patch", "delete", "patch merge", "patch json", "patch apply",
		"force", "status write", "dry-run", "selector", "update rmw", "update stale", "update fresh"}
	for _, k := range Kinds {
		want = append(want, "kind "+k.Kind)
	}
	for _, w := range want {
		if !seen[w] {
			t.Errorf("make test's run sends no %s", w)
		}
	}
}

// TestCompareClassifies feeds known differences through the comparison.
func TestCompareClassifies(t *testing.T) {
	sd := newSide(nil, "fid1x")
	dep := kindByName("Deployment")
	st := Step{ID: 0, Verb: adapters.Create, Kind: dep.Kind, Slot: "a", Body: map[string]any{
		"metadata": map[string]any{"labels": map[string]any{"app": "web"}}, "spec": map[string]any{"paused": true}}}
	server := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{
		"name": "dep-a", "namespace": "fid1x", "uid": "u-1", "resourceVersion": "10", "generation": int64(1),
		"creationTimestamp": "2026-12-01T10:00:00Z", "labels": map[string]any{"app": "web", "example.com/added": "x"}},
		"spec": map[string]any{"paused": true, "replicas": int64(1)}}
	simObj := map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{
		"name": "dep-a", "namespace": "fid1x", "uid": "sim-1", "resourceVersion": "3", "generation": int64(1),
		"creationTimestamp": "2026-01-01T00:00:00Z"},
		"spec": map[string]any{"paused": false}}
	sm := newSide(nil, "fid1x")
	var o Obs
	o.Step = st
	o.Res = [2]adapters.Result{{Outcome: adapters.OK, Object: server}, {Outcome: adapters.OK, Object: simObj}}
	o.Obj[Server], _ = sd.record(st, o.Res[Server])
	o.Obj[Sim], _ = sm.record(st, o.Res[Sim])
	w := written{}
	w.add(st)
	got := map[Class]string{}
	for _, c := range compare(o, w) {
		if !c.Agree {
			got[c.Class] = c.Signature
		}
	}
	want := map[Class]string{
		// the label the request wrote is lost (content), the one the
		// server added is defaulting
		ClassContent:    "content Deployment: +/metadata/labels/app, ~/spec/paused",
		ClassDefaulting: "defaulting Deployment: server adds /metadata/labels/example.com~1added, /spec/replicas",
	}
	for c, s := range want {
		if got[c] != s {
			t.Errorf("%s: got %q, want %q", c, got[c], s)
		}
	}
	for c, s := range got {
		if want[c] == "" {
			t.Errorf("unexpected disagreement %s: %s", c, s)
		}
	}
}

func TestAllowlistAndThresholdFiles(t *testing.T) {
	al, th := load(t)
	for _, e := range al.Entries {
		if e.Reason == "" {
			t.Errorf("line %d: no reason", e.Line)
		}
	}
	for _, e := range al.Entries {
		if al.Match(e.Pattern) == nil && !strings.Contains(e.Pattern, "*") {
			t.Errorf("line %d: pattern %q does not match itself", e.Line, e.Pattern)
		}
	}
	if _, ok := th[ClassOutcome]; !ok {
		t.Error("no outcome threshold")
	}
	if _, err := ParseAllowlist([]byte("outcome *\n")); err == nil {
		t.Error("an entry without a reason is accepted")
	}
	if !glob("outcome * Job: server *, sim ok", "outcome create Job: server invalid, sim ok") {
		t.Error("glob does not match")
	}
	if glob("outcome create Job: *", "outcome create Lease: server invalid, sim ok") {
		t.Error("glob matches too much")
	}
}

// dropsKey is an API that answers as the simulator does, except that the
// ConfigMaps it returns lose data key k3: a known difference for the
// harness to find and shrink.
type dropsKey struct{ adapters.API }

func (d dropsKey) Do(ctx context.Context, req adapters.Request) adapters.Result {
	res := d.API.Do(ctx, req)
	if res.Object != nil && req.Ref.Kind == "ConfigMap" {
		obj := jsonvalue.DeepCopy(res.Object).(map[string]any)
		if data, ok := obj["data"].(map[string]any); ok {
			delete(data, "k3")
		}
		res.Object = obj
	}
	return res
}

func TestShrinkFindsTheFewestSteps(t *testing.T) {
	api, err := NewSim()
	if err != nil {
		t.Fatal(err)
	}
	h := &Harness{Server: dropsKey{api}}
	cm, lease := "ConfigMap", "Lease"
	steps := []Step{
		{Verb: adapters.Create, Kind: lease, Slot: "a", Body: map[string]any{"spec": map[string]any{}}},
		{Verb: adapters.Create, Kind: cm, Slot: "a", Body: map[string]any{"data": map[string]any{"k1": "v1"}}},
		{Verb: adapters.Get, Kind: cm, Slot: "a"},
		{Verb: adapters.Patch, Kind: cm, Slot: "b", PatchType: adapters.MergePatch, Body: map[string]any{"data": map[string]any{"k3": "x"}}},
		{Verb: adapters.List, Kind: lease},
		{Verb: adapters.Patch, Kind: cm, Slot: "a", PatchType: adapters.MergePatch, Body: map[string]any{"data": map[string]any{"k2": "y"}}},
		{Verb: adapters.Patch, Kind: cm, Slot: "a", PatchType: adapters.MergePatch, Body: map[string]any{"data": map[string]any{"k3": "z"}}},
		{Verb: adapters.Get, Kind: lease, Slot: "a"},
	}
	for i := range steps {
		steps[i].ID = i
	}
	run, err := h.Run(context.Background(), steps)
	if err != nil {
		t.Fatal(err)
	}
	const want = "content ConfigMap: -/data/k3"
	if !run.has(want) {
		t.Fatalf("the run does not show %q:\n%s", want, strings.Join(run.Trace(), "\n"))
	}
	got, err := Shrink(context.Background(), h, steps, want)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int
	for _, st := range got {
		ids = append(ids, st.ID)
	}
	if fmt.Sprint(ids) != "[1 6]" {
		t.Errorf("shrunk to steps %v, want [1 6] (the create and the patch that writes k3)", ids)
	}
}

// TestCatalogueCoversEveryCRD: every CRD of spec/crds is in Kinds, with
// its scope and status subresource as the CRD declares them, so that a new
// CRD cannot go unmeasured.
func TestCatalogueCoversEveryCRD(t *testing.T) {
	docs, err := CRDs()
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no CRDs in spec/crds")
	}
	for _, crd := range docs {
		spec, _ := crd["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		k := kindByName(kind)
		if k == nil {
			t.Errorf("CRD %s: kind %s is not in the catalogue (kinds.go)", metaString(crd, "name"), kind)
			continue
		}
		versions, _ := spec["versions"].([]any)
		served := false
		for _, v := range versions {
			m, _ := v.(map[string]any)
			if name, _ := m["name"].(string); group+"/"+name == k.APIVersion {
				served = true
				_, hasStatus := m["subresources"].(map[string]any)["status"]
				if hasStatus != k.Status {
					t.Errorf("%s: the CRD's status subresource is %v, the catalogue says %v", kind, hasStatus, k.Status)
				}
			}
		}
		if !served {
			t.Errorf("%s: the CRD serves no version %s", kind, k.APIVersion)
		}
		if (spec["scope"] == "Cluster") != k.Cluster {
			t.Errorf("%s: the CRD's scope is %v, the catalogue says cluster-scoped %v", kind, spec["scope"], k.Cluster)
		}
	}
}
