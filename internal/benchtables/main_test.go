package main

import (
	"strings"
	"testing"
	"time"
)

const input = `goos: linux
goarch: amd64
pkg: github.com/statecraft/statecraft/engine
cpu: AMD EPYC
BenchmarkStep/Applied/target-matches-2         	   76000	     15500 ns/op	    4032 B/op	      57 allocs/op
BenchmarkStep/Applied/target-matches-2         	   76000	     16500 ns/op	    4032 B/op	      57 allocs/op
BenchmarkStepHandWritten/Applied/target-matches-2   	  480000	      2500 ns/op	     129 B/op	       4 allocs/op
BenchmarkCompile/objectpatch-2     	     100	   8100000 ns/op	 4534286 B/op	   55621 allocs/op
PASS
BenchmarkConvergeObjectPatches/round=1/statecraft-2  	       1	3570442749 ns/op	    334980 alloc-B/object	         3.537 s/converge
BenchmarkConvergeObjectPatches/median-2                     	       1	     51226 ns/op	        0.3648 ratio-raw/statecraft
BenchmarkSimulateDrift/objects=1000/virtual=7d-2   	       1	68331901798 ns/op	        23.13 cpu-s/op	       265.6 peak-heap-MB	        16.25 stepped/step-hot	2858401480 B/op	31189910 allocs/op
`

const doc = `# Benchmarks

<!-- bench:step -->
<!-- /bench:step -->
<!-- bench:step:history -->
<!-- /bench:step:history -->

<!-- bench:sim -->
Measured long ago.

<!-- summary: 2026-11-29, commit ` + "`58ed5d1`" + `: SimulateDrift/objects=10000/virtual=7d 54.2s -->
<!-- /bench:sim -->

Earlier:

<!-- bench:sim:history -->
- an older line
<!-- /bench:sim:history -->

<!-- bench:kube -->
<!-- /bench:kube -->
<!-- bench:kube:history -->
<!-- /bench:kube:history -->
`

func TestRewrite(t *testing.T) {
	r, err := parse(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	if len(r.results) != 6 || r.cpu != "AMD EPYC" {
		t.Fatalf("parsed %d results, cpu %q: %+v", len(r.results), r.cpu, r.results)
	}
	if got := r.results[0].metrics["ns/op"]; got != 15500 {
		t.Errorf("of two samples the table keeps %v ns/op, want the fastest, 15500", got)
	}
	st := stamp{ended: time.Date(2026, 12, 1, 15, 0, 0, 0, time.UTC), commit: "abc1234", loadEnd: "1.0 2.0 3.0", machine: "2 CPUs"}
	_, _, err = rewrite(doc, r, st)
	if err == nil || !strings.Contains(err.Error(), "bench:compile") {
		t.Fatalf("a table without its section: err %v, want it named", err)
	}
	withCompile := doc + "<!-- bench:compile -->\n<!-- /bench:compile -->\n<!-- bench:compile:history -->\n<!-- /bench:compile:history -->\n"
	out, done, err := rewrite(withCompile, r, st)
	if err != nil {
		t.Fatal(err)
	}
	if len(done) != 4 {
		t.Errorf("rewrote %v, want step, compile, sim and kube", done)
	}
	for _, want := range []string{
		"| Step/Applied/target-matches | 15.5µs | 3.9 KiB | 57 | 6.2× |",
		"| StepHandWritten/Applied/target-matches | 2.5µs | 129 B | 4 | |",
		"| Compile/objectpatch | 8.1ms | 4.3 MiB | 55621 |",
		"| SimulateDrift/objects=1000/virtual=7d | 1m8.3s | 23.1 | 2.66 GiB | 31189910 | 266 | 16.2 |",
		"Measured 2026-12-01 15:00 UTC, commit `abc1234`, 2 CPUs, load average 1.0 2.0 3.0 at the end.",
		// the replaced figures become the newest history line, the older kept
		"<!-- bench:sim:history -->\n- 2026-11-29, commit `58ed5d1`: SimulateDrift/objects=10000/virtual=7d 54.2s\n- an older line\n",
		"<!-- summary: 2026-12-01 15:00 UTC, commit `abc1234`, 2 CPUs, load average 1.0 2.0 3.0 at the end: SimulateDrift/objects=1000/virtual=7d 1m8.3s, 23.1 cpu-s/op, 266 peak heap, 16.2 stepped/step-hot -->",
		// a row with none of the table's columns is listed below it
		"| ConvergeObjectPatches/round=1/statecraft | 3.54 | 334980 |\n\nConvergeObjectPatches/median: ratio-raw/statecraft 0.36\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("rewritten document lacks %q:\n%s", want, out)
		}
	}
	// A table with no benchmark in the input is left alone.
	stepOnly, _, err := rewrite(withCompile, run{results: r.results[:1]}, st)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stepOnly, "Measured long ago.") || strings.Contains(stepOnly, "Compile/objectpatch") {
		t.Errorf("an input of Step alone changed the other tables:\n%s", stepOnly)
	}
	if strings.Contains(out, "Measured long ago") {
		t.Errorf("the old sim table was kept:\n%s", out)
	}
	// Rewriting again moves this run's summary into the history.
	again, _, err := rewrite(out, r, st)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(again, "<!-- bench:sim:history -->\n- 2026-12-01 15:00 UTC, commit `abc1234`, 2 CPUs, load average 1.0 2.0 3.0 at the end: SimulateDrift"); n != 1 {
		t.Errorf("after a second rewrite the history has %d lines of the first, want 1:\n%s", n, again)
	}
}
