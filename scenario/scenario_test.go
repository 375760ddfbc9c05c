package scenario_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/scenario"
)

func run(t *testing.T, src string) *scenario.Result {
	t.Helper()
	path := filepath.Join("..", "examples", "objectpatch", "inline.scenario.hcl")
	s, diags := scenario.Parse([]byte(src), path)
	if diags.HasErrors() {
		t.Fatalf("parse: %v", diags)
	}
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		t.Fatalf("compile: %v", diags)
	}
	res, err := scenario.Run(context.Background(), s, ms, scenario.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func trace(res *scenario.Result) string {
	return string(scenario.RenderTrace(res.Trace))
}

// The example in spec/scenarios.md parses and passes.
func TestSpecExample(t *testing.T) {
	src, err := os.ReadFile("../spec/scenarios.md")
	if err != nil {
		t.Fatal(err)
	}
	example := regexp.MustCompile("(?s)```hcl\n(scenario .*?)```")
	_, tail, _ := strings.Cut(string(src), "\n## Example")
	m := example.FindStringSubmatch(tail)
	if m == nil {
		t.Fatal("no scenario example in spec/scenarios.md")
	}
	res := run(t, m[1])
	if len(res.Failures) > 0 || res.Expects != 2 {
		t.Fatalf("failures %v (expects %d)", res.Failures, res.Expects)
	}
	// The example of "Params refused at load time" passes: its rule file
	// is refused.
	_, tail, _ = strings.Cut(string(src), "Params refused at load time\n")
	m = example.FindStringSubmatch(tail)
	if m == nil || !strings.Contains(m[1], "expect_error") {
		t.Fatal("no expect_error example in spec/scenarios.md")
	}
	if o := checkSource(t, m[1]); !o.Passed {
		t.Fatalf("the expect_error example fails: %q", o.Problems)
	}
}

// Staged denials, faults and admission change what the engine sees, show in
// the trace, and write counts can be asserted by verb, kind and identity.
func TestStagingAndWriteCounts(t *testing.T) {
	res := run(t, `
scenario "staged" {
  run_for = "30m"
  objects = ["namespace.yaml", "deployment.yaml", "deployment-patch.yaml"]
  rule "objectpatch" {
    params = { requeue_interval = "1m" }
  }
  deny {
    verb = "patch"
    kind = "Deployment"
  }
  expect "0s" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Error"
    reason = "TargetAccessDenied"
  }
  expect "0s" {
    writes {
      verb  = "patch"
      kind  = "Deployment"
      count = 1
    }
    writes {
      verb    = "patch"
      kind    = "Deployment"
      outcome = "ok"
      count   = 0
    }
    writes {
      verb     = "status"
      identity = "statecraft"
      count    = 1
    }
  }
}`)
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %v\n%s", res.Failures, trace(res))
	}
	if !strings.Contains(trace(res), "patch Deployment/patches-demo/application (merge, dry-run): forbidden") {
		t.Errorf("trace lacks the denied request:\n%s", trace(res))
	}
}

// Param overrides of a rule file change its behaviour: a 1m requeue polls
// five times as often as the default 5m. (On the shipped CRD, whose schema
// defaults spec.requeueInterval to 5m, the object's own field would always
// win over the param, as on a cluster: the scenario installs a CRD without
// defaults.)
func TestParamOverride(t *testing.T) {
	src := `
scenario "poll" {
  run_for = "10m"
  objects = ["../../spec/conformance/objectpatch/relaxed-crd.yaml", "namespace.yaml", "../../scenario/testdata/bare-patch.yaml"]
  rule "objectpatch" {
    params = { requeue_interval = "%s" }
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/bare-patch"
    reason = "TargetNotFound"
  }
}`
	count := func(interval string) int {
		res := run(t, strings.Replace(src, "%s", interval, 1))
		return strings.Count(trace(res), "wait for target")
	}
	fast, slow := count("1m"), count("5m")
	if fast != 11 || slow != 3 {
		t.Errorf("checks with 1m: %d (want 11), with 5m: %d (want 3)", fast, slow)
	}
}

// Bad scenarios are diagnosed with positions.
func TestScenarioDiagnostics(t *testing.T) {
	cases := map[string]string{
		`scenario "x" {
  run_for = "1h"
  expect "1m" {
  }
}`: "Nothing to expect",
		`scenario "x" {
  run_for = "soon"
}`: "Invalid duration",
		`scenario "x" {
  run_for = "1h"
  fault {
    outcome = "bad"
  }
}`: "Invalid outcome",
	}
	for src, want := range cases {
		_, diags := scenario.Parse([]byte(src), "x.scenario.hcl")
		if !diags.HasErrors() || !strings.Contains(diags.Error(), want) {
			t.Errorf("want %q, got %v", want, diags)
		}
		for _, d := range diags {
			if d.Subject == nil {
				t.Errorf("diagnostic without position: %v", d)
			}
		}
	}
	s, _ := scenario.Parse([]byte(`scenario "x" {
  run_for = "1h"
  rule "objectpatch" {
    params = { nope = "1m" }
  }
}`), "x.scenario.hcl")
	if _, diags := scenario.Compile(s); !diags.HasErrors() || !strings.Contains(diags.Error(), "Unknown param") {
		t.Errorf("unknown param not reported: %v", diags)
	}
}

// Reads can be counted like writes: a missing target is read once per check.
func TestReadCounts(t *testing.T) {
	res := run(t, `
scenario "reads" {
  rules   = ["objectpatch"]
  run_for = "12m"
  objects = ["namespace.yaml", "../../scenario/testdata/bare-patch.yaml"]
  expect "12m" {
    reads {
      verb  = "get"
      kind  = "Deployment"
      count = 3
    }
  }
}`)
	if len(res.Failures) > 0 {
		t.Fatalf("failures: %v\n%s", res.Failures, trace(res))
	}
}

// loadCompiled loads the scenario at path and compiles its machines,
// failing the test on any diagnostic; a scenario that expects its rule
// files refused (expect_error) runs nothing, and the test is skipped.
func loadCompiled(t testing.TB, path string) (*scenario.Scenario, []*fsm.Machine) {
	t.Helper()
	s, diags := scenario.Load(path)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	if s.ExpectError != "" {
		t.Skip("expect_error: its rule files are refused, nothing runs")
	}
	ms, diags := scenario.Compile(s)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return s, ms
}
