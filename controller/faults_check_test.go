package controller_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
)

// The checker of the kube-apiserver fault schedules finds each violation
// it is meant to find, and nothing in a clean run: a run without faults
// cannot pass by a checker that looks at nothing.
func TestFaultCheckerFindsViolations(t *testing.T) {
	const ns = "faults-x"
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	cm := func(name string) string { return "/api/v1/namespaces/" + ns + "/configmaps/" + name }
	op := adapters.Ref{APIVersion: "rightsizing.kubex.ai/v1alpha1", Kind: "ObjectPatch", Namespace: ns, Name: "p0"}
	deleted, quietFrom, quietTo := at(5), at(20), at(24)
	clean := []reqRecord{
		{At: at(1), Proc: "engine", Method: http.MethodPatch, Path: cm("t2"), Status: 200}, // before the delete
		{At: at(2), Proc: "engine", Method: http.MethodPatch, Path: cm("t0"), Status: 200, Body: []byte(`{"metadata":{"labels":{"x":"one"}}}`)},
		{At: at(3), Proc: "engine", Method: http.MethodPatch, Path: cm("t1"), Status: 500}, // a failed target write
		{At: at(6), Proc: "engine", Method: http.MethodPatch, Path: cm("t2"), Status: 200, DryRun: true},
		{At: at(7), Proc: "engine", Method: http.MethodGet, Path: cm("t2"), Status: 200},
		{At: at(21), Proc: "engine", Method: http.MethodPost, Path: "/apis/events.k8s.io/v1/namespaces/" + ns + "/events", Status: 201},
	}
	cleanReconciles := []reconcileRecord{
		{proc: "a", ref: op, at: at(18), wake: at(22)},
		{proc: "a", ref: op, at: at(22.01), wake: at(26)},
		{proc: "b", ref: op, at: at(23)}, // b's start: a failover
	}
	retries := map[string]int64{"p1": 1}
	checkFaultRun := func(ns string, recs []reqRecord, reconciles []reconcileRecord, deletedAt, quietFrom, quietTo time.Time, retries map[string]int64) []string {
		return append(checkOPRecords(ns, recs, deletedAt, retries), checkQuiet(ns, recs, reconciles, quietFrom, quietTo)...)
	}
	if v := checkFaultRun(ns, clean, cleanReconciles, deleted, quietFrom, quietTo, retries); len(v) != 0 {
		t.Fatalf("a clean run has violations: %q", v)
	}
	for _, c := range []struct {
		name       string
		recs       []reqRecord
		reconciles []reconcileRecord
		retries    map[string]int64
		want       string
	}{
		{"target written after the delete", append(clean, reqRecord{At: at(6), Proc: "engine", Method: http.MethodPatch, Path: cm("t2"), Status: 200}), cleanReconciles, retries, "after its patch p2 was deleted"},
		{"losing claim written", append(clean, reqRecord{At: at(8), Proc: "engine", Method: http.MethodPatch, Path: cm("t0"), Status: 200, Body: []byte(`{"metadata":{"labels":{"x":"loser"}}}`)}), cleanReconciles, retries, "losing claim"},
		{"budget spent on a read error", clean, cleanReconciles, map[string]int64{"p1": 2}, "budget spent"},
		{"budget spent without a failed write", clean, cleanReconciles, map[string]int64{"p1": 1, "p0": 1}, "p0: retryCount 1"},
		{"a write in the quiet window", append(clean, reqRecord{At: at(21), Proc: "engine", Method: http.MethodPatch, Path: "/apis/rightsizing.kubex.ai/v1alpha1/namespaces/" + ns + "/objectpatches/p0/status", Status: 200}), cleanReconciles, retries, "in the quiet window"},
		{"a reconcile no wake-up asked for", clean, append(cleanReconciles, reconcileRecord{proc: "b", ref: op, at: at(23.5)}), retries, "reconciled 2 times"},
	} {
		v := checkFaultRun(ns, c.recs, c.reconciles, deleted, quietFrom, quietTo, c.retries)
		if len(v) != 1 || !strings.Contains(v[0], c.want) {
			t.Errorf("%s: violations %q, want one containing %q", c.name, v, c.want)
		}
	}
}

// The automatic patcher world's checker finds two operations of one
// cluster, a failed operation retried, a start while halted, and a version
// written that no recorded start decided.
func TestFaultCheckerFindsAutoPatchViolations(t *testing.T) {
	const ns = "faults-ap"
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	base := "/apis/ichor.maesh.dev/v1alpha1/namespaces/" + ns
	decide := func(s float64, cluster string) reqRecord {
		return reqRecord{At: at(s), Proc: "engine", Method: http.MethodPatch, Path: base + "/ichorinstallations/ichor/status", Status: 200,
			Body: []byte(`{"status":{"autoPatch":{"starting":{"cluster":"` + ns + `/` + cluster + `","to":"v1.10.5"}}}}`)}
	}
	version := func(s float64, cluster, to string) reqRecord {
		return reqRecord{At: at(s), Proc: "engine", Method: http.MethodPut, Path: base + "/talosclusters/" + cluster, Status: 200,
			Body: []byte(`{"spec":{"talosVersion":"` + to + `"}}`)}
	}
	create := func(s float64, cluster string, status int) reqRecord {
		return reqRecord{At: at(s), Proc: "engine", Method: http.MethodPost, Path: base + "/talosoperations", Status: status,
			Body: []byte(`{"spec":{"cluster":"` + cluster + `"}}`)}
	}
	acknowledged := at(10)
	clean := []reqRecord{
		decide(1, "c1"), version(2, "c1", "v1.10.5"), create(2.1, "c1", 201),
		decide(3, "c2"), version(4, "c2", "v1.10.5"), create(4.1, "c2", 409), create(4.2, "c2", 201), // a conflict, then created
		version(5, "c3", "v1.10.9"), // refused: not counted
		{At: at(5), Proc: "engine", Method: http.MethodPost, Path: base + "/talosoperations", Status: 201, DryRun: true, Body: []byte(`{"spec":{"cluster":"c3"}}`)},
		decide(11, "c3"), version(12, "c3", "v1.10.5"), create(12.1, "c3", 201),
	}
	// A merge patch carries only what changed: c3's start after c1's
	// names only the cluster.
	clean[9].Body = []byte(`{"status":{"autoPatch":{"starting":{"cluster":"` + ns + `/c3"}}}}`)
	clean[7].Status = 409
	if v := checkAPRecords(ns, clean, acknowledged); len(v) != 0 {
		t.Fatalf("a clean run has violations: %q", v)
	}
	for _, c := range []struct {
		name string
		recs []reqRecord
		want string
	}{
		{"two operations on one cluster", append(slices.Clone(clean), create(6, "c1", 201)), "cluster c1: 2 operations"},
		{"a failed operation retried", append(slices.Clone(clean), create(20, "c2", 201)), "cluster c2: 2 operations"},
		{"a start while halted", append(slices.Clone(clean[:9]), decide(8, "c3"), version(9, "c3", "v1.10.5"), create(9.1, "c3", 201)), "while the halt"},
		{"a version not decided", append(slices.Clone(clean), version(13, "c1", "v1.10.3")), `talosVersion "v1.10.3" to c1`},
		{"a version written before its start was recorded", append(append(slices.Clone(clean[:9]), version(10.5, "c3", "v1.10.5"), decide(11, "c3")), create(12.1, "c3", 201)), `talosVersion "v1.10.5" to c3`},
	} {
		v := checkAPRecords(ns, c.recs, acknowledged)
		if len(v) != 1 || !strings.Contains(v[0], c.want) {
			t.Errorf("%s: violations %q, want one containing %q", c.name, v, c.want)
		}
	}
}

// The schedules are generated from the fault-free run's write count: every
// write index of each write-indexed fault with -faults.all, a sample
// without, and each stale depth and watch fault.
func TestFaultSchedulesGenerated(t *testing.T) {
	all := faultSchedules(12, true, 18)
	if len(all) != 4*12+3+3 {
		t.Errorf("all: %d schedules, want %d", len(all), 4*12+3+3)
	}
	seen := map[string]bool{}
	for _, s := range all {
		seen[s.String()] = true
	}
	for _, want := range []string{"crash@1", "crash@12", "apiserver-restart@7", "failover@12", "shard-reassignment@1", "stale-1", "stale-3", "stale-10", "delay", "drop", "duplicate"} {
		if !seen[want] {
			t.Errorf("all: no schedule %s", want)
		}
	}
	sample := faultSchedules(12, false, 18)
	if len(sample) != 3+1+1+1+1+3 {
		t.Errorf("sample: %d schedules %v, want 10", len(sample), sample)
	}
	if other := faultSchedules(12, false, 19); slicesEqualString(sample, other) {
		t.Errorf("seeds 18 and 19 draw the same sample %v", sample)
	}
}

func slicesEqualString(a, b []faultSchedule) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
