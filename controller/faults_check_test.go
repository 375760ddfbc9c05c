package controller_test

import (
	"net/http"
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
