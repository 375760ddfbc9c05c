package sim

import (
	"sync"

	"k8s.io/apimachinery/pkg/labels"
)

// Label selectors are parsed by apimachinery's labels package, as the API
// server parses them, and kept parsed: the same selector text is parsed
// once per process.
var selectors sync.Map // string → labels.Selector or error

func parseSelector(s string) (labels.Selector, error) {
	if v, ok := selectors.Load(s); ok {
		if sel, isSel := v.(labels.Selector); isSel {
			return sel, nil
		}
		return nil, v.(error)
	}
	sel, err := labels.Parse(s)
	if err != nil {
		selectors.Store(s, err)
		return nil, err
	}
	selectors.Store(s, sel)
	return sel, nil
}

// labelsOf is a stored object's labels as a selector reads them.
type labelsOf map[string]any

func (l labelsOf) Has(key string) bool { _, ok := l[key]; return ok }

func (l labelsOf) Get(key string) string { s, _ := l[key].(string); return s }

func (l labelsOf) Lookup(key string) (string, bool) {
	v, ok := l[key]
	s, _ := v.(string)
	return s, ok
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}
