package library_test

import (
	"testing"

	"github.com/google/cel-go/cel"

	"github.com/statecraft/statecraft/library"
)

// The Kubernetes CEL libraries are part of the rule language.
func TestKubernetesLibraries(t *testing.T) {
	env, err := cel.NewEnv(library.EnvOptions(library.NewMemory(nil))...)
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{
		`semver("1.30.2").isLessThan(semver("1.30.10"))`,
		`quantity("1Gi").isGreaterThan(quantity("512Mi"))`,
		`[1, 2, 3].isSorted() && [3, 1, 2].max() == 3`,
		`"abc-123".find("[0-9]+") == "123"`,
		`isURL("https://example.com/x") && url("https://example.com/x").getHost() == "example.com"`,
		`ip("10.0.0.1").family() == 4 && cidr("10.0.0.0/8").containsIP(ip("10.1.2.3"))`,
		`backoff(duration("5m"), 2, duration("24h")) == duration("20m")`,
		`backoff(duration("5m"), 20, duration("24h")) == duration("24h")`,
	} {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Errorf("%s: %v", expr, iss.Err())
			continue
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := prg.Eval(map[string]any{})
		if err != nil || out.Value() != true {
			t.Errorf("%s = %v, %v", expr, out, err)
		}
	}
}
