package archtest

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

// layers is the layout: the packages of the module in layers, lowest first.
// A package imports only packages of lower layers (its tests may import
// more: an end-to-end test runs the program). The pipeline reads bottom to
// top: leaf utilities, the rule language, the CEL function libraries, the
// compiler, the engine and the adapters, the programs that run the engine
// (the simulation runner, the controller), the tools on top of them, and
// the command line.
var layers = [][]string{
	{"jsonparse", "memo", "textdiff", "adapters", "rules/policies", "spec/crds", "internal/batch"},
	{"jsonvalue", "rules"},
	{"library/objpatch"},
	{"library"},
	{"fsm"},
	{"engine", "adapters/sim", "adapters/kube", "internal/controlplane"},
	{"scenario", "controller", "engine/enginetest"},
	{"verify", "scenario/kubeworld", "adapters/fidelity", "record", "mutate"},
	{"cmd/statecraft"},
	{"internal/archtest", "internal/deploytest"}, // tests only
	{"internal/benchtables"},                     // make bench's table writer: imports none of these
}

const module = "github.com/statecraft/statecraft/"

// TestLayering fails when a package imports a package of its own layer or
// of a layer above it, and when a package is missing from the table.
func TestLayering(t *testing.T) {
	layerOf := map[string]int{}
	for i, l := range layers {
		for _, p := range l {
			layerOf[p] = i
		}
	}
	out, err := exec.Command("go", "list", "-json=ImportPath,Imports", "github.com/statecraft/statecraft/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		seen++
		name := strings.TrimPrefix(p.ImportPath, module)
		mine, ok := layerOf[name]
		if !ok {
			t.Errorf("package %s is not in the layering table: add it to its layer", name)
			continue
		}
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			dep := strings.TrimPrefix(imp, module)
			theirs, ok := layerOf[dep]
			switch {
			case !ok:
				// reported as a missing package above
			case theirs >= mine:
				t.Errorf("%s (layer %d) imports %s (layer %d): imports point down", name, mine, dep, theirs)
			}
		}
	}
	if seen < 20 {
		t.Fatalf("go list found only %d packages; the test is not looking at the module", seen)
	}
}
