package scenario

import (
	"strings"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/spec/crds"
)

// builtinKinds resolves kinds named in scenarios that no loaded object or
// machine declares: the built-in kinds the simulator serves, as
// kube-apiserver does.
var builtinKinds = sim.BuiltinKinds()

// shippedCRDs are the CustomResourceDefinitions of spec/crds, by
// apiVersion/kind of every version they serve.
var shippedCRDs = sync.OnceValue(func() map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, name := range crds.Names() {
		if !strings.HasSuffix(name, ".yaml") {
			continue
		}
		data, err := crds.Read(name)
		if err != nil {
			continue
		}
		js, err := yaml.YAMLToJSON(data)
		if err != nil {
			continue
		}
		var obj map[string]any
		if err := yaml.Unmarshal(js, &obj); err != nil {
			continue
		}
		v, err := jsonvalue.Normalize(obj)
		if err != nil {
			continue
		}
		crd := v.(map[string]any)
		spec, _ := crd["spec"].(map[string]any)
		group, _ := spec["group"].(string)
		names, _ := spec["names"].(map[string]any)
		kind, _ := names["kind"].(string)
		versions, _ := spec["versions"].([]any)
		for _, ver := range versions {
			m, _ := ver.(map[string]any)
			if vn, _ := m["name"].(string); vn != "" {
				out[group+"/"+vn+"/"+kind] = crd
			}
		}
	}
	return out
})

// shippedCRD returns (a copy of) the shipped CustomResourceDefinition that
// serves apiVersion/kind, nil when statecraft ships none.
func shippedCRD(apiVersion, kind string) map[string]any {
	crd, ok := shippedCRDs()[apiVersion+"/"+kind]
	if !ok {
		return nil
	}
	return jsonvalue.DeepCopy(crd).(map[string]any)
}
