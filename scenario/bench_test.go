package scenario_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/statecraft/statecraft/internal/batch"
	"github.com/statecraft/statecraft/scenario"
)

// The simulation benchmark of issue 4: N ObjectPatches, each with its own
// target (ConfigMaps and Deployments alternately), run for a virtual week
// while another actor drifts a tenth of the targets every hour. Each run is
// one iteration; use -benchtime=1x:
//
//	go test ./scenario -run '^$' -bench 'Simulate' -benchmem -benchtime=1x -timeout 0
//
// A run that has not finished after -sim.budget of wall time is abandoned
// (through the context scenario.Run honours) and reported with the metric
// abandoned=1 and ns/op equal to the budget (a lower bound), so that
// `make bench` always ends; -sim.budget=0 waits for every run to finish.

var simBudget = flag.Duration("sim.budget", 5*time.Minute, "abandon a simulation run after this wall time (0: never)")

// Each run is measured as `statecraft sim` runs it, with the garbage
// collector's batch target (internal/batch.TuneGC: 400% unless GOGC is
// set); -sim.batchgc=false keeps the Go default (or GOGC) instead.
// -sim.keeptrace keeps each run's trace in scenario.Result.Trace instead
// of streaming it (as every run did before issue 19): to compare memory.
var simKeepTrace = flag.Bool("sim.keeptrace", false, "keep the trace in memory instead of streaming it")

// cpuTime is the CPU time the process has used so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// gcCycles is the number of collections the process has completed.
func gcCycles() uint64 {
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// runtimeCPU is the runtime's estimate of the CPU seconds its collector
// and its scavenger have taken so far.
func runtimeCPU() (gc, scavenge float64) {
	s := []metrics.Sample{{Name: "/cpu/classes/gc/total:cpu-seconds"}, {Name: "/cpu/classes/scavenge/total:cpu-seconds"}}
	metrics.Read(s)
	return s[0].Value.Float64(), s[1].Value.Float64()
}

// countingWriter counts the bytes written to it and keeps none.
type countingWriter int64

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

// -sim.heapprofile writes a heap profile of what is live (after a forced
// collection) at the first trace line at or after -sim.heapat of virtual
// time: to see what a run holds, rather than what is left at its end.
var (
	simHeapProfile = flag.String("sim.heapprofile", "", "write a heap profile of the live heap at -sim.heapat to this file")
	simHeapAt      = flag.Duration("sim.heapat", 12*time.Hour, "virtual time of the -sim.heapprofile snapshot")
)

var simBatchGC = flag.Bool("sim.batchgc", true, "run with the batch commands' garbage collector target (internal/batch)")

// simCase is one size: objects, and how much virtual time is simulated.
type simCase struct {
	objects int
	runFor  time.Duration
}

func (c simCase) name() string {
	d := fmt.Sprintf("%dh", c.runFor/time.Hour)
	if c.runFor%(24*time.Hour) == 0 {
		d = fmt.Sprintf("%dd", c.runFor/(24*time.Hour))
	}
	return fmt.Sprintf("objects=%d/virtual=%s", c.objects, d)
}

// BenchmarkSimulateDrift is the benchmark of issue 4 (7 virtual days).
func BenchmarkSimulateDrift(b *testing.B) {
	for _, c := range []simCase{
		{1000, 7 * 24 * time.Hour},
		{10000, 7 * 24 * time.Hour},
	} {
		b.Run(c.name(), func(b *testing.B) { benchSimulate(b, c) })
	}
}

// BenchmarkSimulateDriftDay runs the workload for one virtual day at 1,000,
// 10,000 and 100,000 objects (issue 19: growth linear in objects; the
// 100,000-object day within 8 GB).
func BenchmarkSimulateDriftDay(b *testing.B) {
	for _, c := range []simCase{
		{1000, 24 * time.Hour},
		{10000, 24 * time.Hour},
		{100000, 24 * time.Hour},
	} {
		b.Run(c.name(), func(b *testing.B) { benchSimulate(b, c) })
	}
}

// BenchmarkSimulateDriftShort runs the same workload for shorter virtual
// times and smaller sizes, to show how the cost grows with objects and with
// virtual time when the week-long runs are out of reach.
func BenchmarkSimulateDriftShort(b *testing.B) {
	for _, c := range []simCase{
		{100, 1 * time.Hour},
		{300, 1 * time.Hour},
		{1000, 1 * time.Hour},
		{100, 6 * time.Hour},
		{100, 12 * time.Hour},
		{100, 24 * time.Hour},
	} {
		b.Run(c.name(), func(b *testing.B) { benchSimulate(b, c) })
	}
}

func benchSimulate(b *testing.B, c simCase) {
	s := driftScenario(c.objects, c.runFor)
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	b.ReportAllocs()
	if *simBatchGC {
		defer batch.TuneGC()()
	}
	gcPercent := debug.SetGCPercent(-1)
	debug.SetGCPercent(gcPercent)
	var res *scenario.Result
	var peak uint64
	// The trace is streamed, rendered as `statecraft sim` prints it, into
	// a counting writer; with -sim.keeptrace it is kept in Result.Trace
	// instead, as every run did before streaming.
	kinds := map[string]int{}
	reconciled := map[string]bool{}
	profiled := *simHeapProfile == ""
	count := func(l scenario.Line) {
		if !profiled && l.At >= *simHeapAt {
			profiled = true
			writeHeapProfile(b, *simHeapProfile)
		}
		kinds[l.Kind]++
		if l.Kind == "transition" {
			reconciled[l.Object] = true
		}
	}
	var out countingWriter
	var cpu time.Duration
	var cycles uint64
	var gcCPU, scavCPU float64
	var limit int64
	b.ResetTimer()
	for range b.N {
		ctx := b.Context()
		cancel := context.CancelFunc(func() {})
		if *simBudget > 0 {
			ctx, cancel = context.WithTimeout(ctx, *simBudget)
		}
		clear(kinds)
		clear(reconciled)
		out = 0
		var opts scenario.Options
		var tw *scenario.TraceWriter
		if !*simKeepTrace {
			tw = scenario.NewTraceWriter(&out)
			opts.Trace = func(l scenario.Line) {
				count(l)
				tw.Line(l)
			}
		}
		stop := watchHeap()
		cpu0, gc0 := cpuTime(), gcCycles()
		gcCPU0, scavCPU0 := runtimeCPU()
		var err error
		res, err = scenario.Run(ctx, s, ms, opts)
		if tw != nil && err == nil {
			err = tw.Flush()
		}
		peak = max(peak, stop())
		cpu += cpuTime() - cpu0
		cycles += gcCycles() - gc0
		gcCPU1, scavCPU1 := runtimeCPU()
		gcCPU += gcCPU1 - gcCPU0
		scavCPU += scavCPU1 - scavCPU0
		// The soft memory limit (internal/batch.TuneGC renews it after
		// every collection) at the end of the run.
		limit = debug.SetMemoryLimit(-1)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			// Reported, not failed: ns/op is then the budget, a lower
			// bound of the run's wall time.
			b.ReportMetric(1, "abandoned")
			b.ReportMetric(float64(c.objects), "objects")
			b.ReportMetric(c.runFor.Hours(), "virtual-h")
			b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
			b.Logf("%s: abandoned after -sim.budget=%v of wall time", c.name(), *simBudget)
			return
		}
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Failures) > 0 {
			b.Fatalf("%d failed expectations, first: %s", len(res.Failures), res.Failures[0])
		}
	}
	b.StopTimer()
	wall := b.Elapsed() / time.Duration(b.N)
	for _, l := range res.Trace {
		count(l)
	}
	b.ReportMetric(float64(c.objects), "objects")
	b.ReportMetric(c.runFor.Hours(), "virtual-h")
	b.ReportMetric(float64(gcPercent), "gc-percent")
	// scenario.Run does not count reconciles; every converged object is
	// reconciled once per requeueInterval (5m) by its recheck, so this is
	// the number the runner must at least carry out.
	b.ReportMetric(float64(c.objects)*float64(c.runFor/(5*time.Minute)), "rechecks")
	// How many wake-ups the engine stepped, and how many it skipped as
	// certified rests (spec/scenarios.md, "Rests are skipped").
	b.ReportMetric(float64(res.Reconciles), "stepped")
	b.ReportMetric(float64(res.Rests), "skipped")
	b.ReportMetric(float64(kinds["transition"]), "transitions")
	b.ReportMetric(float64(kinds["request"]), "engine-writes")
	b.ReportMetric(float64(kinds["world"]), "drift-writes")
	b.ReportMetric(float64(res.Lines), "trace-lines")
	b.ReportMetric(float64(out), "trace-bytes")
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	// CPU time of the process (user and system, every thread: the
	// collector's too), less disturbed by other load than wall time.
	b.ReportMetric(cpu.Seconds()/float64(b.N), "cpu-s/op")
	// Collections during the run, and the memory limit at its end (none:
	// math.MaxInt64, reported as 0).
	b.ReportMetric(float64(cycles)/float64(b.N), "gc-cycles")
	// The runtime's estimates of the CPU time its collector (marking,
	// assists, pauses) and its scavenger (returning memory to the system
	// to stay under the limit) took.
	b.ReportMetric(gcCPU/float64(b.N), "gc-cpu-s/op")
	b.ReportMetric(scavCPU/float64(b.N), "scavenge-cpu-s/op")
	if limit == math.MaxInt64 {
		limit = 0
	}
	b.ReportMetric(float64(limit)/(1<<20), "mem-limit-MB")
	// Issue 19's machine-independent figure: wall time per stepped
	// reconcile divided by engine.Step's hot path (an Applied ObjectPatch
	// whose target matches), measured in the same process just after.
	if res.Reconciles > 0 {
		perStep := float64(wall) / float64(res.Reconciles)
		hot := hotPathStepNs(b)
		b.ReportMetric(perStep/1e3, "µs/stepped")
		b.ReportMetric(hot/1e3, "step-hot-µs")
		b.ReportMetric(perStep/hot, "stepped/step-hot")
	}
	if len(reconciled) != c.objects {
		b.Fatalf("%d of %d ObjectPatches made a transition", len(reconciled), c.objects)
	}
}

// writeHeapProfile writes a profile of the live heap to file.
func writeHeapProfile(b *testing.B, file string) {
	f, err := os.Create(file)
	if err != nil {
		b.Fatal(err)
	}
	runtime.GC()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// watchHeap samples the live heap until the returned function is called,
// which reports the highest sample (bytes of heap objects, live or not yet
// swept: what the process had to hold).
func watchHeap() func() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() uint64 {
		metrics.Read(sample)
		return sample[0].Value.Uint64()
	}
	var mu sync.Mutex
	peak := read()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(20 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				v := read()
				mu.Lock()
				peak = max(peak, v)
				mu.Unlock()
			}
		}
	}()
	return func() uint64 {
		close(done)
		wg.Wait()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		mu.Lock()
		defer mu.Unlock()
		return max(peak, ms.HeapAlloc)
	}
}

// perNamespace is how many ObjectPatches share a namespace. It matters:
// the shipped policy lists the ObjectPatches of the namespace on every
// reconcile to arbitrate claims, so a reconcile costs O(perNamespace).
const perNamespace = 100

// driftScenario builds the workload in memory: n ObjectPatches in
// namespaces of perNamespace, target i a ConfigMap when i is even and a Deployment
// when odd, each patch setting a label; and every hour, on the hour, the
// tenth of the targets with i%10 == hour%10 get that label overwritten by
// another actor with a value new each time.
//
// The input is the benchmark's, not the simulator's, but it is live for the
// whole run: the drifts of one hour share their merge value, and every
// event names its target with the strings the objects were built with (a
// week of 10,000 objects holds 168,000 drifts: 193 MB of the heap when
// each had maps and names of its own, 22 MB now). scenario.Run only
// reads its input.
func driftScenario(n int, runFor time.Duration) *scenario.Scenario {
	s := &scenario.Scenario{
		Name:   fmt.Sprintf("%d ObjectPatches drifted hourly", n),
		File:   "bench.scenario.hcl",
		Rules:  []string{"objectpatch"},
		Start:  scenario.DefaultStart,
		RunFor: runFor,
		Seed:   1,
	}
	namespaces := make([]string, (n+perNamespace-1)/perNamespace)
	for j := range namespaces {
		namespaces[j] = fmt.Sprintf("bench-%03d", j)
		s.Objects = append(s.Objects, map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": namespaces[j]}})
	}
	targets := make([]scenario.Target, n)
	for i := range n {
		ns := namespaces[i/perNamespace]
		target, kind, apiVersion := benchTarget(i, ns)
		name := target["metadata"].(map[string]any)["name"].(string)
		targets[i] = scenario.Target{Kind: kind, Namespace: ns, Name: name}
		s.Objects = append(s.Objects, target, map[string]any{
			"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
			"metadata": map[string]any{"name": fmt.Sprintf("patch-%05d", i), "namespace": ns},
			"spec": map[string]any{
				"requeueInterval": "5m",
				"drift":           map[string]any{"retryInterval": "5m", "retryAmount": 3, "stabilizationWindow": "15m"},
				"targetRef":       map[string]any{"apiVersion": apiVersion, "kind": kind, "name": name},
				"patch":           map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": "kubex"}}},
			},
		})
	}
	for h := 1; time.Duration(h)*time.Hour <= runFor; h++ {
		e := &scenario.Event{At: time.Duration(h) * time.Hour}
		merge := map[string]any{"metadata": map[string]any{"labels": map[string]any{"managed-by": fmt.Sprintf("other-%d", h)}}}
		for i := h % 10; i < n; i += 10 {
			e.Patch = append(e.Patch, scenario.PatchEvent{Target: targets[i], Merge: merge})
		}
		s.Events = append(s.Events, e)
	}
	return s
}

func benchTarget(i int, ns string) (obj map[string]any, kind, apiVersion string) {
	name := fmt.Sprintf("target-%05d", i)
	labels := map[string]any{"app": name}
	if i%2 == 0 {
		return map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
			"data":     map[string]any{"config.yaml": strings.Repeat("key: value\n", 20)},
		}, "ConfigMap", "v1"
	}
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": ns, "labels": labels},
		"spec": map[string]any{
			"replicas": 2,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{map[string]any{
					"name": "app", "image": "nginx:1.27",
					"ports":     []any{map[string]any{"containerPort": 80, "protocol": "TCP"}},
					"resources": map[string]any{"requests": map[string]any{"cpu": "100m", "memory": "128Mi"}},
				}}},
			},
		},
	}, "Deployment", "apps/v1"
}
