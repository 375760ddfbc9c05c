package archtest

import (
	"os/exec"
	"strings"
	"testing"
)

// TestCoreIsPure fails if rules, fsm or engine (or anything they import)
// pull in client-go: the core decides, adapters do I/O.
func TestCoreIsPure(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/statecraft/statecraft/rules/...", "github.com/statecraft/statecraft/fsm/...", "github.com/statecraft/statecraft/engine/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 20 {
		t.Fatalf("go list returned only %d packages; the test is not looking at the core", len(deps))
	}
	for _, d := range deps {
		if strings.HasPrefix(d, "k8s.io/client-go") || strings.HasPrefix(d, "sigs.k8s.io/controller-runtime") {
			t.Errorf("the core imports %s", d)
		}
	}
}

// TestCoreReadsNoClock fails if rules, fsm or engine call time.Now, time.Sleep
// or time.After: time is an input and wake-ups are returned.
func TestCoreReadsNoClock(t *testing.T) {
	out, err := exec.Command("grep", "-rnE", `time\.(Now|Sleep|After|Tick|NewTimer|NewTicker)\(`, "--include=*.go", "--exclude=*_test.go", "../../rules", "../../fsm", "../../engine").CombinedOutput()
	if err == nil {
		t.Errorf("the core reads the wall clock or sleeps:\n%s", out)
	}
}
