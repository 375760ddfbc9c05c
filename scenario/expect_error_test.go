package scenario_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statecraft/statecraft/scenario"
)

// checkSource writes src as a scenario file and checks it as statecraft
// test does.
func checkSource(t *testing.T, src string) scenario.Outcome {
	t.Helper()
	path := filepath.Join(t.TempDir(), "refused.scenario.hcl")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return scenario.Check(context.Background(), path, false)
}

// TestScenarioExpectError: a scenario with expect_error passes only when
// its rule files, with its param overrides, are refused with an error
// naming the expected text; an override the param's valid check refuses
// is such an error, and fails an ordinary scenario.
func TestScenarioExpectError(t *testing.T) {
	refused := func(params, want string) string {
		return `scenario "refused" {
  expect_error = "` + want + `"
  rule "objectpatch" {
    params = { ` + params + ` }
  }
}
`
	}
	cases := []struct {
		name, src string
		passed    bool
		problem   string // a part of the first problem, when not passed
	}{
		{"the expected error comes", refused(`retry_delay = "0s"`, `param \"retry_delay\" of machine objectpatch is not valid`), true, ""},
		{"the value at the boundary's valid side loads", refused(`retry_delay = "1s"`, "is not valid"), false, "load and compile without an error"},
		{"another error comes", refused(`no_such_param = "1s"`, "is not valid"), false, "Unknown param"},
		{"another param's error", refused(`retry_delay = "0s"`, `param \"retry_delay_cap\"`), false, "no such error"},
		{"an ordinary scenario with a refused value", `scenario "tuned" {
  run_for = "1m"
  rule "objectpatch" {
    params = { retry_delay = "0s" }
  }
  expect "1m" {
    writes {
      count = 0
    }
  }
}
`, false, `Invalid param`},
		{"an ordinary scenario with the smallest valid value", `scenario "tuned" {
  run_for = "1m"
  rule "objectpatch" {
    params = { retry_delay = "1ns" }
  }
  expect "1m" {
    writes {
      count = 0
    }
  }
}
`, false, "no golden trace"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := checkSource(t, c.src)
			if o.Passed != c.passed {
				t.Fatalf("passed = %v, want %v; problems: %q", o.Passed, c.passed, o.Problems)
			}
			if c.passed {
				if len(o.Problems) > 0 || o.Trace != nil {
					t.Errorf("a refused scenario has problems %q or a trace", o.Problems)
				}
				return
			}
			if len(o.Problems) == 0 || !strings.Contains(o.Problems[0], c.problem) {
				t.Errorf("problems %q, want the first to contain %q", o.Problems, c.problem)
			}
		})
	}
}

// TestScenarioExpectErrorRunsNothing: a scenario with expect_error may not
// say what would run, and only such a scenario may go without run_for.
func TestScenarioExpectErrorRunsNothing(t *testing.T) {
	cases := map[string]string{
		"Nothing runs": `scenario "x" {
  expect_error = "is not valid"
  run_for      = "1m"
  rules        = ["objectpatch"]
}`,
		"Missing required argument": `scenario "x" {
  rules = ["objectpatch"]
}`,
		"Empty expect_error": `scenario "x" {
  expect_error = ""
  rules        = ["objectpatch"]
}`,
	}
	for want, src := range cases {
		_, diags := scenario.Parse([]byte(src), "x.scenario.hcl")
		if !diags.HasErrors() || !strings.Contains(diags.Error(), want) {
			t.Errorf("%s: diagnostics %v, want %q", want, diags, want)
		}
	}
}
