package objpatch

import "testing"

// BenchmarkPlan measures a full plan (merge patch, three selector
// operations, stability checks and the replay) on a Deployment-sized object.
func BenchmarkPlan(b *testing.B) {
	target := obj(b, deployment)
	patch := js(b, `{"metadata":{"labels":{"managed-by":"kubex"}}}`)
	o := ops(b, seedOps)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Plan(target, patch, o, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMergeOnly measures a plan with only a merge patch.
func BenchmarkMergeOnly(b *testing.B) {
	target := obj(b, deployment)
	patch := js(b, `{"metadata":{"labels":{"managed-by":"kubex"}}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Plan(target, patch, nil, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
