package scenario_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/scenario"
)

var update = flag.Bool("update", false, "rewrite golden traces")

// suites are the folders whose scenarios are checked against golden traces.
var suites = []string{"../examples", "../spec/conformance"}

func findAll(t *testing.T) []string {
	var paths []string
	for _, s := range suites {
		ps, err := scenario.Find(s)
		if err != nil {
			continue // a suite folder may not exist yet
		}
		paths = append(paths, ps...)
	}
	if len(paths) == 0 {
		t.Fatal("no scenarios found")
	}
	return paths
}

// suiteRun is one scenario to run, named by its path.
type suiteRun struct {
	name string
	s    *scenario.Scenario
}

// suiteRuns loads every scenario of the suites whose rules load (a
// scenario expecting its rule files refused runs nothing), and adds the
// benchmark's drift workload w as "drift workload".
func suiteRuns(t *testing.T, w *scenario.Scenario) []suiteRun {
	t.Helper()
	var runs []suiteRun
	for _, p := range findAll(t) {
		s, diags := scenario.Load(p)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", p, diags)
		}
		if s.ExpectError != "" {
			continue
		}
		runs = append(runs, suiteRun{p, s})
	}
	return append(runs, suiteRun{"drift workload", w})
}

// TestGoldenTraces runs every scenario and compares its trace with the
// golden file beside it; -update rewrites them.
func TestGoldenTraces(t *testing.T) {
	for _, p := range findAll(t) {
		t.Run(p, func(t *testing.T) {
			o := scenario.Check(context.Background(), p, *update)
			if o.Result != nil && o.Result.Expects == 0 {
				t.Errorf("scenario has no expectations")
			}
			for _, pr := range o.Problems {
				t.Error(pr)
			}
		})
	}
}

// TestDeterministic runs the whole suite twice and demands identical bytes.
func TestDeterministic(t *testing.T) {
	paths := findAll(t)
	run := func() []byte {
		var b bytes.Buffer
		for _, p := range paths {
			o := scenario.Check(context.Background(), p, false)
			b.WriteString(p + "\n")
			b.Write(o.Trace)
		}
		return b.Bytes()
	}
	first, second := run(), run()
	if !bytes.Equal(first, second) {
		t.Fatal("two runs of the suite printed different traces")
	}
	if len(first) < 100 {
		t.Fatal("the suite printed almost nothing")
	}
}

// TestReadmeExcerpt keeps the trace the README shows true: every trace line
// in README.md appears in the example's golden trace.
func TestReadmeExcerpt(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("../examples/objectpatch/target-appears.trace")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(readme), "\n") {
		if !strings.HasPrefix(line, "+0d") {
			continue
		}
		n++
		if !strings.Contains(string(golden), line+"\n") {
			t.Errorf("README shows a trace line the example does not print:\n%s", line)
		}
	}
	if n == 0 {
		t.Fatal("README shows no trace line")
	}
}
