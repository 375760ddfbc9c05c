package controller_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/statecraft/statecraft/controller"
)

// TestSoak is the load test of issue 10, run by `make soak` (not in every
// CI run): STATECRAFT_SOAK_OBJECTS ObjectPatches (default 10,000) on the
// local API server, each with its own ConfigMap target and drift repair
// on, while another actor drifts random targets for STATECRAFT_SOAK_FOR
// (default 10m). It samples the queue depth every second and the live
// heap (after a GC) every 10 seconds, and demands: the queue stays bounded
// (never more than the objects), the live heap stays flat (the last
// quarter's peak within 1.5× of the second quarter's, after the initial
// convergence), and once the actor stops every patch is Applied with its
// target patched. It prints the queue depth and live heap over time (ten
// lines), the time to repair every target after the actor stopped, and the
// engine's writes per object by verb beside the drifts per object.
func TestSoak(t *testing.T) {
	if os.Getenv("STATECRAFT_SOAK") != "1" {
		t.Skip("set STATECRAFT_SOAK=1 (make soak) to run the load test")
	}
	n := envInt(t, "STATECRAFT_SOAK_OBJECTS", 10000)
	dur := envDuration(t, "STATECRAFT_SOAK_FOR", 10*time.Minute)
	const perNS = 200
	var namespaces []string
	for i := 0; i < (n+perNS-1)/perNS; i++ {
		namespaces = append(namespaces, fmt.Sprintf("soak-%03d", i))
	}
	e := newEnv(t, namespaces...)
	ns := func(i int) string { return namespaces[i/perNS] }
	name := func(i int) string { return fmt.Sprintf("t-%05d", i) }

	// Create the targets and the patches, 16 at a time.
	var firstErr atomic.Value
	parallel(n, 16, func(i int) {
		_, err := e.kc.CoreV1().ConfigMaps(ns(i)).Create(e.ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name(i)}, Data: map[string]string{"i": strconv.Itoa(i)},
		}, metav1.CreateOptions{})
		if err == nil {
			err = e.createOP(ns(i), name(i), name(i), map[string]any{
				"requeueInterval": "30s",
				"drift":           map[string]any{"retryInterval": "5s", "retryAmount": int64(0), "stabilizationWindow": "30s"},
			})
		}
		if err != nil {
			firstErr.CompareAndSwap(nil, err)
		}
	})
	if err, _ := firstErr.Load().(error); err != nil {
		t.Fatal(err)
	}
	t.Logf("created %d ConfigMaps and ObjectPatches", n)

	run := start(t, e.cp.Config, controller.Options{Workers: 8})
	ctrl := run.ctrl

	// Sample the queue every second and the live heap (after a GC) every
	// 10 seconds.
	type sample struct {
		at    time.Duration
		queue int
		heap  uint64 // 0: not sampled this second
	}
	var mu sync.Mutex
	var samples []sample
	began := time.Now()
	stopSampling := make(chan struct{})
	go func() {
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for i := 1; ; i++ {
			select {
			case <-stopSampling:
				return
			case <-tick.C:
				sm := sample{at: time.Since(began), queue: ctrl.QueueLen()}
				if i%10 == 0 {
					runtime.GC()
					var ms runtime.MemStats
					runtime.ReadMemStats(&ms)
					sm.heap = ms.HeapAlloc
				}
				mu.Lock()
				samples = append(samples, sm)
				mu.Unlock()
			}
		}
	}()

	// The other actor: drift random targets until dur is over.
	ctx, cancel := context.WithTimeout(e.ctx, dur)
	defer cancel()
	var drifts atomic.Int64
	rng := rand.New(rand.NewPCG(1, 2))
	for ctx.Err() == nil {
		i := rng.IntN(n)
		_, err := e.kc.CoreV1().ConfigMaps(ns(i)).Patch(ctx, name(i), types.MergePatchType,
			[]byte(`{"metadata":{"labels":{"managed-by":"someone-else"}}}`), metav1.PatchOptions{})
		if err == nil {
			drifts.Add(1)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the actor drifted %d targets in %s", drifts.Load(), dur)

	// Every patch converges once the actor stops: its target repaired, or
	// its repair put off by its drift streak's backoff (seed 000: the
	// delay doubles within a streak, to 24 hours), due later: a patch
	// whose repair is overdue by more than a minute is stuck.
	stopped := time.Now()
	deadline := time.Now().Add(10 * time.Minute)
	var putOff int
	var latestDue time.Time
	for {
		pending := 0
		putOff, latestDue = 0, time.Time{}
		for i := 0; i < n; i++ {
			cm := e.cm(ns(i), name(i))
			if cm.Labels["managed-by"] == "statecraft" {
				continue
			}
			due, _ := time.Parse(time.RFC3339, fmt.Sprint(e.status(ns(i), name(i))["nextDriftRetryTime"]))
			if due.After(time.Now().Add(-time.Minute)) {
				putOff++
				if due.After(latestDue) {
					latestDue = due
				}
				continue
			}
			pending++
		}
		if pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d targets still not repaired 10 minutes after the actor stopped, with no repair due", pending)
		}
		time.Sleep(5 * time.Second)
	}
	t.Logf("every target repaired %s after the actor stopped", time.Since(stopped).Round(time.Second))
	if putOff > 0 {
		t.Logf("but %d whose drift streak puts the repair off (the latest due %s after the actor stopped)", putOff, latestDue.Sub(stopped).Round(time.Second))
	}
	for i := 0; i < n; i += max(1, n/500) { // a sample of the statuses
		st := e.status(ns(i), name(i))
		due, _ := time.Parse(time.RFC3339, fmt.Sprint(st["nextDriftRetryTime"]))
		if st["outcome"] != "Success" && !(st["state"] == "NeedsUpdate" && due.After(time.Now())) {
			t.Errorf("%s/%s: %v", ns(i), name(i), st)
		}
	}
	close(stopSampling)

	mu.Lock()
	defer mu.Unlock()
	// Queue depth and live heap over time, one line per tenth of the run.
	maxQueue := 0
	var heaps []sample
	lastHeap := uint64(0)
	step := max(1, len(samples)/10)
	for i, s := range samples {
		maxQueue = max(maxQueue, s.queue)
		if s.heap != 0 {
			heaps = append(heaps, s)
			lastHeap = s.heap
		}
		if i%step == step-1 || i == len(samples)-1 {
			qmax := 0
			for _, x := range samples[max(0, i-step+1) : i+1] {
				qmax = max(qmax, x.queue)
			}
			t.Logf("at %6s: queue depth %5d (at most %5d since the last line), live heap %4d MiB (last sampled)", s.at.Round(time.Second), s.queue, qmax, lastHeap>>20)
		}
	}
	if maxQueue > n {
		t.Errorf("queue depth reached %d, more than the %d objects", maxQueue, n)
	}
	q := len(heaps) / 4
	if q > 2 {
		first, last := uint64(0), uint64(0)
		for _, s := range heaps[q : 2*q] { // after the initial convergence
			first = max(first, s.heap)
		}
		for _, s := range heaps[3*q:] {
			last = max(last, s.heap)
		}
		t.Logf("queue depth at most %d; live heap peak %d MiB in the second quarter, %d MiB in the last", maxQueue, first>>20, last>>20)
		if float64(last) > 1.5*float64(first) {
			t.Errorf("the live heap grew: %d MiB in the second quarter, %d MiB in the last", first>>20, last>>20)
		}
	}
	// Writes per object, by verb (reads are served by the informers).
	writes := map[string]float64{}
	total := 0.0
	mfs, err := ctrl.Metrics().Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "statecraft_api_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			verb := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "verb" {
					verb = l.GetValue()
				}
			}
			if verb == "get" || verb == "list" || strings.Contains(verb, "dry-run") {
				continue
			}
			writes[verb] += m.GetCounter().GetValue()
			total += m.GetCounter().GetValue()
		}
	}
	verbs := make([]string, 0, len(writes))
	for v, c := range writes {
		verbs = append(verbs, fmt.Sprintf("%s %.2f", v, c/float64(n)))
	}
	sort.Strings(verbs)
	t.Logf("writes per object: %.2f (%s) for %.2f drifts per object", total/float64(n), strings.Join(verbs, ", "), float64(drifts.Load())/float64(n))
	reconciles, failures := ctrl.Stats()
	t.Logf("%d reconciles, %d failed and retried", reconciles, failures)
}

func parallel(n, width int, fn func(i int)) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for w := 0; w < width; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		}()
	}
	wg.Wait()
}

func envInt(t *testing.T, key string, def int) int {
	if v := os.Getenv(key); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return n
	}
	return def
}

func envDuration(t *testing.T, key string, def time.Duration) time.Duration {
	if v := os.Getenv(key); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		return d
	}
	return def
}
