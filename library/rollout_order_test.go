package library

import "testing"

// COD-33: the order of objects within a phase and the order of progression
// probes are part of the template's identity, like the order of phases
// (TestTemplateHash): reordering either changes the hash, so the COD creates
// a new revision.
func TestTemplateHashOrder(t *testing.T) {
	objects := func(names ...string) map[string]any {
		objs := []any{}
		for _, n := range names {
			objs = append(objs, map[string]any{"type": "InlineManifest", "inlineManifest": cm(n, "m")})
		}
		return map[string]any{"spec": map[string]any{"phases": []any{
			map[string]any{"name": "config", "objects": objs}}}}
	}
	if TemplateHash(objects("a", "b")) != TemplateHash(objects("a", "b")) {
		t.Error("the same objects in the same order must hash the same")
	}
	if TemplateHash(objects("a", "b")) == TemplateHash(objects("b", "a")) {
		t.Error("object order within a phase must change the hash")
	}

	probe := func(label, expr string) map[string]any {
		return map[string]any{
			"selector":   map[string]any{"type": "Label", "label": map[string]any{"matchLabels": map[string]any{"probe": label}}},
			"assertions": []any{map[string]any{"type": "CEL", "cel": map[string]any{"expression": expr, "message": label}}},
		}
	}
	probes := func(ps ...any) map[string]any {
		c := objects("a", "b")
		c["spec"].(map[string]any)["progressionProbes"] = ps
		return c
	}
	first, second := probe("a", "has(self.data)"), probe("b", "has(self.metadata)")
	if TemplateHash(probes(first, second)) != TemplateHash(probes(probe("a", "has(self.data)"), probe("b", "has(self.metadata)"))) {
		t.Error("the same probes in the same order must hash the same")
	}
	if TemplateHash(probes(first, second)) == TemplateHash(probes(second, first)) {
		t.Error("probe order must change the hash")
	}
	// The order of assertions within one probe too.
	two := func(x, y string) map[string]any {
		p := probe("a", x)
		p["assertions"] = append(p["assertions"].([]any), map[string]any{"type": "CEL", "cel": map[string]any{"expression": y, "message": "a"}})
		return probes(p)
	}
	if TemplateHash(two("has(self.data)", "has(self.metadata)")) == TemplateHash(two("has(self.metadata)", "has(self.data)")) {
		t.Error("assertion order within a probe must change the hash")
	}

	// The CEL function the rule calls agrees.
	x, y := objects("a", "b"), objects("b", "a")
	if got := celEval(t, "rollout.templateHash(x) != rollout.templateHash(y)", map[string]any{"x": x, "y": y}); got != true {
		t.Errorf("CEL: reordered objects hash the same (%v)", got)
	}
	x, y = probes(first, second), probes(second, first)
	if got := celEval(t, "rollout.templateHash(x) != rollout.templateHash(y)", map[string]any{"x": x, "y": y}); got != true {
		t.Errorf("CEL: reordered probes hash the same (%v)", got)
	}
}
