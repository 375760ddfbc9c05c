package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The core keeps no process-global state: what it remembers belongs to a
// run and is passed in (fsm.Memory, library.Memory, jsonvalue.Registry,
// memo.Table). Its package-level variables are read-only after the
// package is initialised; each is listed here with what it is, and a new
// one fails the test until it is shown to be read-only too.
var readOnlyVars = map[string]string{
	"rules.fileSchema": "HCL schema", "rules.machineSchema": "HCL schema", "rules.resourceSchema": "HCL schema",
	"rules.paramSchema": "HCL schema", "rules.observeSchema": "HCL schema", "rules.letSchema": "HCL schema",
	"rules.stateSchema": "HCL schema", "rules.transitionSchema": "HCL schema", "rules.routeAttrs": "HCL schema",
	"rules.routeSchema": "HCL schema", "rules.actionSchema": "HCL schema", "rules.propertySchema": "HCL schema",
	"rules.functionSchema": "HCL schema", "rules.conditionSchema": "HCL schema", "rules.eventOnly": "constant list",
	"rules.acceptSchema": "HCL schema", "rules.acceptFindings": "constant list",
	"rules.ParamTypes": "constant list", "rules.Verbs": "constant list", "rules.ReservedNames": "constant list",
	"fsm.VerbOutcomes": "constant table", "fsm.costEstimator": "stateless estimator",
	"fsm.mermaidID": "regexp", "fsm.identifier": "regexp",
	"fsm.comparisons": "constant table", "fsm.mirrored": "constant table",
	"fsm.parseEnvOnce": "guards parseEnv", "fsm.parseEnv": "CEL environment for parsing only, made once",
	"engine.skipped": "constant value", "engine.skippedObservation": "constant value",
	"engine.emptyObject": "constant value, never written", "engine.emptyItems": "constant value, never written", "engine.generationPath": "constant path", "engine._": "interface check",
	"library.StatusBlind": "constant table", "library.claimantSeeds": "fixed seeds",
	"library.roDNS1035": "regexp", "library.versionRE": "regexp", "library.windowRE": "regexp",
	"objpatch.selectorEnv": "CEL environment, made once",
	"jsonvalue.seeds":      "fixed seeds",
	"jsonparse.ErrSyntax":  "sentinel error", "jsonparse.ErrEnd": "sentinel error", "jsonparse.interned": "constant table",
}

func TestNoProcessGlobalState(t *testing.T) {
	var found []string
	for _, dir := range []string{"rules", "fsm", "engine", "library", "library/objpatch", "jsonvalue", "jsonparse", "memo"} {
		files, err := filepath.Glob(filepath.Join("..", "..", dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		fset := token.NewFileSet()
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range file.Decls {
				g, ok := d.(*ast.GenDecl)
				if !ok || g.Tok != token.VAR {
					continue
				}
				for _, spec := range g.Specs {
					for _, n := range spec.(*ast.ValueSpec).Names {
						name := file.Name.Name + "." + n.Name
						found = append(found, name)
						if _, ok := readOnlyVars[name]; !ok {
							t.Errorf("%s: package-level variable %s: the core keeps no process-global state; pass it in (a Memory of the run), or list it in readOnlyVars if it is read-only", fset.Position(n.Pos()), name)
						}
					}
				}
			}
		}
	}
	sort.Strings(found)
	for name := range readOnlyVars {
		if i := sort.SearchStrings(found, name); i == len(found) || found[i] != name {
			t.Errorf("readOnlyVars lists %s, which no longer exists", name)
		}
	}
}
