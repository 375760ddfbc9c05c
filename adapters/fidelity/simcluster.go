package fidelity

import (
	"context"
	"fmt"
	"sync"

	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/spec/crds"
)

// NewSim builds the simulated cluster one sequence runs against, serving
// what the local control plane serves: the simulator's built-in kinds
// and every CRD of spec/crds,
// stored as the control plane stores them (the simulator serves the
// versions of a stored CRD). This is the one place that says how the
// simulator is built; change it when the simulator learns to take more
// from a CRD (its schema, say).
func NewSim() (adapters.API, error) {
	c := sim.New(nil)
	docs, err := CRDs()
	if err != nil {
		return nil, err
	}
	for _, crd := range docs {
		res := c.Do(context.Background(), adapters.Request{
			Verb: adapters.Create, FieldManager: "fidelity", Body: jsonvalue.DeepCopy(crd),
			Ref: adapters.Ref{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: metaString(crd, "name")},
		})
		if res.Outcome != adapters.OK {
			return nil, fmt.Errorf("sim: store CRD %s: %s: %s", metaString(crd, "name"), res.Outcome, res.Message)
		}
	}
	return c, nil
}

var crdCache struct {
	once sync.Once
	docs []map[string]any
	err  error
}

// CRDs returns the CustomResourceDefinitions of spec/crds, decoded, sorted
// by file name.
func CRDs() ([]map[string]any, error) {
	crdCache.once.Do(func() {
		for _, name := range crds.Names() {
			data, err := crds.Read(name)
			if err != nil {
				crdCache.err = err
				return
			}
			text, err := yaml.YAMLToJSON(data)
			if err != nil {
				crdCache.err = fmt.Errorf("%s: %w", name, err)
				return
			}
			v, err := jsonvalue.Decode(text)
			if err != nil {
				crdCache.err = fmt.Errorf("%s: %w", name, err)
				return
			}
			m, _ := v.(map[string]any)
			if m == nil || m["kind"] != "CustomResourceDefinition" {
				continue
			}
			crdCache.docs = append(crdCache.docs, m)
		}
	})
	return crdCache.docs, crdCache.err
}
