package sim

import (
	"fmt"
	"testing"

	"github.com/statecraft/statecraft/adapters"
)

// BenchmarkMergePatch measures one merge patch on a ConfigMap in a cluster
// holding 10,000 of them.
func BenchmarkMergePatch(b *testing.B) {
	c := New(NewClock(start))
	for i := range 10000 {
		if err := c.Apply(configMap("default", fmt.Sprintf("cm-%05d", i), map[string]any{"app": "x"}, map[string]any{"k": "v"})); err != nil {
			b.Fatal(err)
		}
	}
	ctx := b.Context()
	b.ResetTimer()
	for i := range b.N {
		req := adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch,
			Ref:  cmRef("default", fmt.Sprintf("cm-%05d", i%10000)),
			Body: raw(fmt.Sprintf(`{"data":{"k":"v%d"}}`, i))}
		if res := c.Do(ctx, req); res.Outcome != adapters.OK {
			b.Fatal(res.Message)
		}
	}
}

// BenchmarkGet measures one Get in a cluster holding 10,000 ConfigMaps.
func BenchmarkGet(b *testing.B) {
	c := New(NewClock(start))
	for i := range 10000 {
		if err := c.Apply(configMap("default", fmt.Sprintf("cm-%05d", i), nil, map[string]any{"k": "v"})); err != nil {
			b.Fatal(err)
		}
	}
	ctx := b.Context()
	b.ResetTimer()
	for i := range b.N {
		if res := c.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: cmRef("default", fmt.Sprintf("cm-%05d", i%10000))}); res.Outcome != adapters.OK {
			b.Fatal(res.Message)
		}
	}
}
