package library

import "testing"

func claimant(name, created string, labels map[string]any) map[string]any {
	return map[string]any{
		"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
		"metadata": map[string]any{"name": name, "namespace": "ns", "creationTimestamp": created},
		"spec": map[string]any{
			"targetRef": map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "name": "app"},
			"patch":     map[string]any{"metadata": map[string]any{"labels": labels}},
		},
	}
}

// The verdicts remembered per list give every listed claimant the verdict
// arbitrating it on its own gives, and a self that is not listed as it is
// (being deleted, invalid, changed since the list) is arbitrated on its own.
func TestArbitrateListVerdictsAgree(t *testing.T) {
	a := claimant("a", "2026-01-01T00:00:00Z", map[string]any{"team": "a"})
	b := claimant("b", "2026-01-01T00:01:00Z", map[string]any{"team": "b"})
	c := claimant("c", "2026-01-01T00:02:00Z", map[string]any{"tier": "x"})
	d := claimant("d", "2026-01-01T00:00:00Z", map[string]any{"team": "d"})
	aChanged := claimant("a", "2026-01-01T00:00:00Z", map[string]any{"tier": "y"})
	aDeleting := claimant("a", "2026-01-01T00:00:00Z", map[string]any{"team": "a"})
	aDeleting["metadata"].(map[string]any)["deletionTimestamp"] = "2026-01-01T00:03:00Z"
	lists := [][]any{{a, b, c}, {b, c, d}, {a, b, c, d}, {aDeleting, b}, {aChanged, b, d}, {}}
	for i, items := range lists {
		for _, self := range []map[string]any{a, b, c, d, aChanged, aDeleting} {
			got := ArbitrateClaims(items, self)
			want := arbitrateClaims(items, self)
			if got["accepted"] != want["accepted"] || got["winner"] != want["winner"] || got["message"] != want["message"] {
				t.Errorf("list %d, self %s: %v, want %v", i, claimantKey(self), got, want)
			}
		}
	}
}
