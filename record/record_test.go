package record

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/rules/policies"
	"github.com/statecraft/statecraft/scenario"
)

var t0 = time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)

// startObjects are a checkpoint: a patch Applied at generation 3, its
// target, their namespace, as a real cluster held them.
func startObjects() []map[string]any {
	return []map[string]any{
		{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": "rec", "uid": "6f1d3c52-0000-4000-8000-00000000000a"}},
		{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "target", "namespace": "rec",
			"uid": "6f1d3c52-0000-4000-8000-000000000001", "labels": map[string]any{"managed-by": "statecraft"}}},
		{"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch", "metadata": map[string]any{"name": "p", "namespace": "rec",
			"uid": "6f1d3c52-0000-4000-8000-000000000002", "generation": int64(3), "creationTimestamp": "2026-03-01T09:00:00Z"},
			"spec": map[string]any{"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": "target"},
				"patch": map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "statecraft"}}}},
			"status": map[string]any{"state": "Applied", "reason": "Applied", "outcome": "Success", "observedGeneration": int64(3), "proposal": "APPLIED", "retryCount": int64(0)}},
	}
}

// writeRecording writes a recording folder by hand: one segment, the
// shipped objectpatch policy with requeue_interval=5m, the world's
// changes and the decision log given.
func writeRecording(t *testing.T, world []Change, decisions []Decision, segments ...Segment) string {
	t.Helper()
	return writeRecordingOf(t, startObjects(), world, decisions, segments...)
}

// writeRecordingOf is writeRecording with the checkpoint's objects given.
func writeRecordingOf(t *testing.T, objs []map[string]any, world []Change, decisions []Decision, segments ...Segment) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "rec")
	src, _, _ := policies.Source("objectpatch")
	if err := writeFileAtomic(filepath.Join(dir, "rules", "objectpatch.hcl"), src); err != nil {
		t.Fatal(err)
	}
	if len(segments) == 0 {
		segments = []Segment{{N: 1}}
	}
	m := Manifest{Format: Format, Server: "https://example:6443", Start: t0, End: t0.Add(15 * time.Minute),
		Rules:  []RuleFile{{Name: "objectpatch", File: "rules/objectpatch.hcl", SHA256: "x", Machines: []string{"objectpatch"}}},
		Params: []string{"objectpatch.requeue_interval=5m"}, Segments: segments, Processes: []Process{{}}}
	data, _ := json.Marshal(m)
	if err := writeFileAtomic(filepath.Join(dir, ManifestFile), data); err != nil {
		t.Fatal(err)
	}
	for _, s := range segments {
		if err := WriteObjects(filepath.Join(dir, ObjectsFile(s.N)), objs); err != nil {
			t.Fatal(err)
		}
	}
	last := segments[len(segments)-1].N
	writeLines(t, filepath.Join(dir, WorldFile(last)), world)
	writeLines(t, filepath.Join(dir, DecisionsFile(last)), decisions)
	return dir
}

func writeLines[T any](t *testing.T, path string, vs []T) {
	t.Helper()
	var b bytes.Buffer
	for _, v := range vs {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ref(kind, ns, name string) *Ref {
	av := "v1"
	if kind == "ObjectPatch" {
		av = "rightsizing.kubex.ai/v1alpha1"
	}
	return &Ref{APIVersion: av, Kind: kind, Namespace: ns, Name: name}
}

// drift is another actor removing the label the patch sets, at 7m.
var drift = Change{At: 7 * time.Minute, Op: "update", By: "other", Ref: ref("ConfigMap", "rec", "target"),
	Patch: map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": nil}}}}

func reconcileAt(at time.Duration) Decision {
	return Decision{At: at, Object: "ObjectPatch/rec/p", Machine: "objectpatch", Type: "reconcile"}
}

// A recording replays: with its recorded decisions it is faithful; a
// decision the replay does not make is a divergence, said to be a fidelity
// bug; another param shows the decision diff.
func TestReplayOfARecording(t *testing.T) {
	ctx := context.Background()
	// First the decisions as the replay makes them, reconciling at 0, 5m
	// and 10m: the drift is found at 10m.
	dir := writeRecording(t, []Change{drift}, []Decision{reconcileAt(0), reconcileAt(5 * time.Minute), reconcileAt(10 * time.Minute)})
	first, err := Replay(ctx, dir, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range first.Replayed {
		keys = append(keys, d.Text(0))
	}
	if want := "+0d00:10:00  ObjectPatch/rec/p: Applied → NeedsUpdate by \"drifted\" reason Drifted\n" +
		"+0d00:10:00    patch status ObjectPatch/rec/p (merge): ok"; strings.Join(keys, "\n") != want {
		t.Fatalf("replayed:\n%s\nwant:\n%s", strings.Join(keys, "\n"), want)
	}
	if first.Faithful() {
		t.Error("a recording without those decisions is faithful")
	}
	// Recorded as the replay decides: faithful.
	recorded := append([]Decision{reconcileAt(0), reconcileAt(5 * time.Minute), reconcileAt(10 * time.Minute)}, first.Replayed...)
	dir = writeRecording(t, []Change{drift}, recorded)
	rep, err := Replay(ctx, dir, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	rep.WriteText(&text)
	if !rep.Faithful() || !strings.Contains(text.String(), "the simulator reproduces the 2 recorded decisions") {
		t.Fatalf("faithful replay:\n%s", text.String())
	}
	// A recorded decision the replay does not make.
	tampered := append([]Decision(nil), recorded...)
	tampered[3].Reason = "SomethingElse"
	dir = writeRecording(t, []Change{drift}, tampered)
	rep, err = Replay(ctx, dir, ReplayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	rep.WriteText(&text)
	if rep.Faithful() || len(rep.Divergences) != 1 || !strings.Contains(text.String(), "FIDELITY BUG") ||
		!strings.Contains(text.String(), `≠ +0d00:10:00  ObjectPatch/rec/p: Applied → NeedsUpdate by "drifted" reason SomethingElse`) {
		t.Fatalf("tampered replay:\n%s", text.String())
	}
	// A time beyond the tolerance is a divergence too, said so.
	late := append([]Decision(nil), recorded...)
	late[3].At += 3 * time.Second
	late[4].At += 3 * time.Second
	dir = writeRecording(t, []Change{drift}, late)
	if rep, err = Replay(ctx, dir, ReplayOptions{}); err != nil || rep.Faithful() || !strings.Contains(rep.Divergences[0].Rows[0].Note, "at +0d00:10:00, not +0d00:10:03") {
		t.Fatalf("late decisions: %v %+v", err, rep.Divergences)
	}
	if rep, err = Replay(ctx, dir, ReplayOptions{Tolerance: 5 * time.Second}); err != nil || !rep.Faithful() {
		t.Fatalf("late decisions within a 5s tolerance: %v %+v", err, rep.Divergences)
	}

	// The shipped CRD defaults the patch's own spec.requeueInterval to 5m,
	// which wins over the param: a shorter default changes nothing.
	dir = writeRecording(t, []Change{drift}, recorded)
	rep, err = Replay(ctx, dir, ReplayOptions{Params: []string{"objectpatch.requeue_interval=2m"}})
	if err != nil || rep.BehaviourChanged() || !rep.Faithful() {
		t.Fatalf("requeue_interval=2m under the shipped CRD: %v %+v %+v", err, rep.Changed, rep.Divergences)
	}
	// On a cluster whose CRD defaults nothing (recorded with its objects),
	// a shorter recheck finds the drift at 8m, scheduled by the simulator.
	relaxed, err := ReadObjects(filepath.Join("..", "spec", "conformance", "objectpatch", "relaxed-crd.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir = writeRecordingOf(t, append(relaxed, startObjects()...), []Change{drift}, recorded)
	if rep, err = Replay(ctx, dir, ReplayOptions{}); err != nil || !rep.Faithful() {
		t.Fatalf("the recording with its CRD: %v %+v", err, rep.Divergences)
	}
	rep, err = Replay(ctx, dir, ReplayOptions{Params: []string{"objectpatch.requeue_interval=2m"}})
	if err != nil {
		t.Fatal(err)
	}
	text.Reset()
	rep.WriteText(&text)
	if !rep.BehaviourChanged() || len(rep.Changed) != 1 || !strings.Contains(text.String(), "behaviour: with --param objectpatch.requeue_interval=2m, 1 object decides differently") {
		t.Fatalf("requeue_interval=2m:\n%s", text.String())
	}
	row := rep.Changed[0].Rows[0]
	if row.Old == nil || row.New == nil || row.Old.At != 10*time.Minute || row.New.At != 8*time.Minute || row.Note != "at +0d00:08:00, not +0d00:10:00" {
		t.Errorf("the drift's row: %+v %+v %q", row.Old, row.New, row.Note)
	}
	var md bytes.Buffer
	rep.WriteMarkdown(&md)
	if !strings.Contains(md.String(), "<details><summary><code>ObjectPatch/rec/p</code></summary>") || !strings.Contains(md.String(), "| **`+0d00:10:00  ObjectPatch/rec/p: Applied → NeedsUpdate by \"drifted\" reason Drifted`** | **`+0d00:08:00") {
		t.Errorf("markdown:\n%s", md.String())
	}
	// The same param value changes nothing.
	if rep, err = Replay(ctx, dir, ReplayOptions{Params: []string{"objectpatch.requeue_interval=5m"}}); err != nil || rep.BehaviourChanged() {
		t.Errorf("requeue_interval=5m: %v %+v", err, rep.Changed)
	}
	// Bad params are clear errors.
	for flag, want := range map[string]string{
		"nomachine.x=1":                     `the recording ran no machine "nomachine"`,
		"objectpatch.nothing=1":             `machine objectpatch has no param "nothing"`,
		"objectpatch.requeue_interval=soon": `--param objectpatch.requeue_interval=soon`,
		"objectpatch":                       "want MACHINE.NAME=VALUE",
	} {
		if _, err := Replay(ctx, dir, ReplayOptions{Params: []string{flag}}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--param %s: %v, want %q", flag, err, want)
		}
	}
}

// A damaged recording is a clear error naming the file and line; a last
// line cut short (a recorder killed while writing it) is dropped with a
// warning.
func TestDamagedRecordings(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "is not a recording: it has no recording.json") {
		t.Errorf("no manifest: %v", err)
	}
	dir := writeRecording(t, []Change{drift}, []Decision{reconcileAt(0)})
	world := filepath.Join(dir, WorldFile(1))
	data, _ := os.ReadFile(world)
	if err := os.WriteFile(world, append(data, []byte(`{"at":1,"op":"upd`)...), 0o644); err != nil {
		t.Fatal(err)
	}
	rec, err := Load(dir)
	if err != nil || len(rec.Warnings) != 1 || !strings.Contains(rec.Warnings[0], "000001.world.jsonl:2: the last line is cut short") || len(rec.World) != 1 {
		t.Fatalf("cut short: %v %v", err, rec)
	}
	if err := os.WriteFile(world, append([]byte(`{"at":1,"op":"explode"}`+"\n"), data...), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "000001.world.jsonl:1: damaged: unknown op \"explode\"") {
		t.Errorf("bad op: %v", err)
	}
	if err := os.WriteFile(world, []byte(`{"at":1,"op":"update","by":"other","ref":{"kind":"ConfigMap","name":"x"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "update of ConfigMap/x without its patch") {
		t.Errorf("update without a patch: %v", err)
	}
	os.WriteFile(world, data, 0o644)
	if err := os.WriteFile(filepath.Join(dir, DecisionsFile(1)), []byte("{\"at\":0,\"type\":\"transition\",\"object\":\"X/y\"}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "000001.decisions.jsonl:1: damaged: a transition without its name or state") {
		t.Errorf("bad decision: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"format":"statecraft-recording/v0"}`), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), `format "statecraft-recording/v0", want "statecraft-recording/v1"`) {
		t.Errorf("old format: %v", err)
	}
	os.WriteFile(filepath.Join(dir, ManifestFile), []byte(`{"format":`), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "recording.json: damaged") {
		t.Errorf("damaged manifest: %v", err)
	}
	dir = writeRecording(t, nil, nil)
	os.WriteFile(filepath.Join(dir, ObjectsFile(1)), []byte("apiVersion: v1\nkind: [\n"), 0o644)
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "000001.objects.yaml: document 1: damaged") {
		t.Errorf("damaged checkpoint: %v", err)
	}
}

// The scenario a recording renders: its start is the first kept
// segment's, its objects restored as recorded, its rule files with the
// recorded params; denials as RBAC staging (from the start, lifted with the
// rest kept); other actors' changes as at blocks (the engine's own and the
// server's are not replayed); a restart after what changed while no engine
// ran; the pending wake-ups of a checkpoint as resume blocks. It loads as a
// scenario.
func TestRenderedScenario(t *testing.T) {
	secret := Denial{Verb: "get", APIVersion: "v1", Kind: "Secret"}
	status := Denial{Verb: "patch", APIVersion: "v1", Kind: "ConfigMap/status", Identity: "alice"}
	created := map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "new", "namespace": "rec",
		"uid": "6f1d3c52-0000-4000-8000-00000000000f", "resourceVersion": "77", "generation": int64(1)}, "data": map[string]any{"k": "${not a template}"}}
	wake := 4*time.Minute + 30*time.Second
	world := []Change{
		{At: 0, Op: "deny", Denial: &secret},
		{At: 90 * time.Second, Op: "deny", Denial: &status},
		drift,
		{At: 7*time.Minute + time.Second, Op: "update", By: "engine", Ref: ref("ConfigMap", "rec", "target"), Patch: map[string]any{"metadata": map[string]any{"labels": map[string]any{"x": "y"}}}},
		{At: 8 * time.Minute, Op: "allow", Denial: &secret},
		{At: 9 * time.Minute, Op: "create", By: "other", Ref: ref("ConfigMap", "rec", "new"), Object: created},
		{At: 10 * time.Minute, Op: "update", By: "other", Ref: ref("ObjectPatch", "rec", "p"), Patch: map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "b"}}, "status": map[string]any{"note": "x"}}},
		{At: 11 * time.Minute, Op: "delete", By: "other", Ref: ref("ConfigMap", "rec", "new")},
		{At: 11*time.Minute + time.Second, Op: "delete", By: "server", Ref: ref("ConfigMap", "rec", "gone")},
		{At: 12 * time.Minute, Op: "update", By: "other", Ref: ref("ConfigMap", "rec", "target"), Patch: map[string]any{"data": map[string]any{"while": "down"}}},
	}
	dir := writeRecording(t, world, nil, Segment{N: 4, At: time.Minute, Denials: []Denial{secret}}, Segment{N: 5, At: 12 * time.Minute, Restart: true})
	os.Remove(filepath.Join(dir, WorldFile(4)))
	data, _ := json.Marshal(Resume{Objects: []ResumeObject{{Ref: *ref("ObjectPatch", "rec", "p"), Wake: &wake}}})
	os.WriteFile(filepath.Join(dir, ResumeFile(4)), data, 0o644)
	if err := WriteScenario(dir); err != nil {
		t.Fatal(err)
	}
	src, _ := os.ReadFile(filepath.Join(dir, ScenarioFile))
	got := string(src)
	for _, want := range []string{
		`start    = "2026-03-01T10:01:00Z"`,
		`run_for  = "14m0.001s"`,
		`recorded = true`,
		`objects  = ["objects/start.yaml"]`,
		"rule \"rules/objectpatch.hcl\" {\n    params = {\n      requeue_interval = \"5m\"\n    }\n  }",
		`resume "ObjectPatch/rec/p" { wake = "3m30s" }`,
		"  # Requests the API server refused the engine, from the start.\n  deny {\n    identity    = \"\"\n    verb        = \"get\"\n    api_version = \"v1\"\n    kind        = \"Secret\"\n  }\n",
		"at \"30s\" {\n    deny {\n      identity    = \"alice\"\n      verb        = \"patch\"\n      api_version = \"v1\"\n      kind        = \"ConfigMap/status\"\n    }\n  }",
		"at \"6m0s\" {\n    patch \"ConfigMap/rec/target\" {\n      merge = {\n        metadata = {\n          labels = {\n            managed-by = null\n          }\n        }\n      }\n    }\n  }",
		"at \"7m0s\" {\n    allow_all = true\n    deny {\n      identity    = \"alice\"",
		"at \"8m0s\" {\n    create = [\"objects/000001.yaml\"]\n  }",
		"      merge = {\n        metadata = {\n          labels = {\n            a = \"b\"\n          }\n        }\n      }\n      status = {\n        note = \"x\"\n      }",
		"at \"10m0s\" {\n    delete = [\"ConfigMap/rec/new\"]\n  }",
		"at \"11m0s\" {\n    patch \"ConfigMap/rec/target\" {\n      merge = {\n        data = {\n          while = \"down\"\n        }\n      }\n    }\n  }\n\n  at \"11m0s\" {\n    restart = true\n  }",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no\n%s\nin\n%s", want, got)
		}
	}
	for _, absent := range []string{`x = "y"`, "ConfigMap/rec/gone"} {
		if strings.Contains(got, absent) {
			t.Errorf("the engine's or the server's change %q is replayed:\n%s", absent, got)
		}
	}
	objs, err := ReadObjects(filepath.Join(dir, "objects", "000001.yaml"))
	if err != nil || len(objs) != 1 || objs[0]["metadata"].(map[string]any)["uid"] != nil || objs[0]["data"].(map[string]any)["k"] != "${not a template}" {
		t.Errorf("the created object as another actor created it: %v %v", objs, err)
	}
	s, diags := scenario.Load(filepath.Join(dir, ScenarioFile))
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if !s.Recorded || len(s.Resume) != 1 || len(s.Events) != 8 || s.Params["rules/objectpatch.hcl"]["requeue_interval"] != "5m" {
		t.Errorf("loaded: recorded %v, %d resume, %d events, params %v", s.Recorded, len(s.Resume), len(s.Events), s.Params)
	}
	if _, diags := scenario.Compile(s); diags.HasErrors() {
		t.Error(diags)
	}
}

// What a recording keeps of an object: no resourceVersion, managedFields
// or decision records; a Secret's data redacted unless asked.
func TestRecordedObjects(t *testing.T) {
	secret := map[string]any{"apiVersion": "v1", "kind": "Secret", "metadata": map[string]any{"name": "s", "namespace": "n", "uid": "u",
		"resourceVersion": "9", "managedFields": []any{}, "annotations": map[string]any{lastApplied: `{"data":{"k":"c2VjcmV0"}}`,
			"statecraft.dev/decisions": "[]"}}, "data": map[string]any{"k": "c2VjcmV0"}, "stringData": map[string]any{"p": "secret"}}
	got := recorded(secret, false)
	md := got["metadata"].(map[string]any)
	if md["resourceVersion"] != nil || md["managedFields"] != nil || md["annotations"] != nil || md["uid"] != "u" {
		t.Errorf("metadata %v", md)
	}
	if got["data"].(map[string]any)["k"] != Redacted || got["stringData"] != nil {
		t.Errorf("secret %v", got)
	}
	if secret["data"].(map[string]any)["k"] != "c2VjcmV0" {
		t.Error("recording changed the object it was given")
	}
	if kept := recorded(secret, true); kept["data"].(map[string]any)["k"] != "c2VjcmV0" {
		t.Errorf("with its data: %v", kept)
	}
	body := redactBody(map[string]any{"data": map[string]any{"k": "c2VjcmV0"}})
	if body.(map[string]any)["data"].(map[string]any)["k"] != Redacted {
		t.Errorf("a write's body: %v", body)
	}
}

// A real server's answer and the simulator's compare loosely: times
// within the tolerance (and a second, for the engine's whole-second
// stamps), uids, resourceVersions and the user a Forbidden message names
// aside; anything else is a difference.
func TestLooseComparison(t *testing.T) {
	c := comparison{tolerance: time.Second, loose: true}
	a := map[string]any{"status": map[string]any{"lastAppliedTime": "2026-03-01T10:00:00Z", "uid": "6f1d3c52-0000-4000-8000-000000000001",
		"message": `secrets "g" is forbidden: User "statecraft-recorded" cannot get resource "secrets"`}, "metadata": map[string]any{"resourceVersion": "12"}}
	b := map[string]any{"status": map[string]any{"lastAppliedTime": "2026-03-01T10:00:01.5Z", "uid": "uid-000007",
		"message": `secrets "g" is forbidden: User "system:serviceaccount:statecraft-system:statecraft" cannot get resource "secrets"`}, "metadata": map[string]any{}}
	if !c.sameValue(a, b) {
		t.Error("a real server's body and the simulator's differ")
	}
	b["status"].(map[string]any)["lastAppliedTime"] = "2026-03-01T10:00:03Z"
	if c.sameValue(a, b) {
		t.Error("times 3s apart are the same")
	}
	if (comparison{}).sameValue(map[string]any{"x": "1"}, map[string]any{"x": "1", "resourceVersion": "2"}) {
		t.Error("an exact comparison ignores a key")
	}
	if s := Stamp(26*time.Hour + 3*time.Minute + 4*time.Second + 5*time.Millisecond); s != "+1d02:03:04.005" {
		t.Errorf("Stamp = %s", s)
	}
	if s := durLabel(26*time.Hour + 90*time.Second); s != "1d2h1m30s" {
		t.Errorf("durLabel = %s", s)
	}
}
