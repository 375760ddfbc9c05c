package kube

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/internal/controlplane"
)

// The adapter's overhead over the dynamic client it wraps, on the same API
// server in the same run: `go test -run '^$' -bench . ./adapters/kube`.

var cmGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}

func benchSetup(b *testing.B) (*Client, string) {
	b.Helper()
	controlplane.SkipOrFail(b)
	if startErr != nil || testClient == nil {
		b.Fatalf("control plane: %v", startErr)
	}
	c := testClient
	ns := fmt.Sprintf("bench-%s-%d", b.Name()[len("Benchmark"):], b.N)
	ns = sanitize(ns)
	if res := c.Do(context.Background(), adapters.Request{Verb: adapters.Create,
		Ref: adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: ns}, Body: raw(`{}`)}); res.Outcome != adapters.OK && res.Outcome != adapters.Conflict {
		b.Fatalf("namespace: %s", res.Message)
	}
	for i := 0; i < 16; i++ {
		res := c.Do(context.Background(), adapters.Request{Verb: adapters.Create, Ref: cmRef(ns, fmt.Sprint("cm", i)), Body: raw(`{"data":{"n":"0"}}`)})
		if res.Outcome != adapters.OK && res.Outcome != adapters.Conflict {
			b.Fatalf("create: %s", res.Message)
		}
	}
	return c, ns
}

func sanitize(s string) string {
	out := []byte{}
	for _, r := range []byte(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '-':
			out = append(out, r)
		case r >= 'A' && r <= 'Z':
			out = append(out, r+'a'-'A')
		default:
			out = append(out, '-')
		}
	}
	return string(out)
}

func BenchmarkGetAdapter(b *testing.B) {
	c, ns := benchSetup(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if res := c.Do(context.Background(), adapters.Request{Verb: adapters.Get, Ref: cmRef(ns, fmt.Sprint("cm", i%16))}); res.Outcome != adapters.OK {
				b.Error(res.Message)
				return
			}
			i++
		}
	})
}

func BenchmarkGetRaw(b *testing.B) {
	c, ns := benchSetup(b)
	ri := c.Dynamic().Resource(cmGVR).Namespace(ns)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if _, err := ri.Get(context.Background(), fmt.Sprint("cm", i%16), metav1.GetOptions{}); err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}

func BenchmarkMergePatchAdapter(b *testing.B) {
	c, ns := benchSetup(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			res := c.Do(context.Background(), adapters.Request{Verb: adapters.Patch, Ref: cmRef(ns, fmt.Sprint("cm", i%16)),
				PatchType: adapters.MergePatch, Body: raw(fmt.Sprintf(`{"data":{"n":"%d"}}`, i))})
			if res.Outcome != adapters.OK {
				b.Error(res.Message)
				return
			}
			i++
		}
	})
}

func BenchmarkMergePatchRaw(b *testing.B) {
	c, ns := benchSetup(b)
	ri := c.Dynamic().Resource(cmGVR).Namespace(ns)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			_, err := ri.Patch(context.Background(), fmt.Sprint("cm", i%16), types.MergePatchType,
				[]byte(fmt.Sprintf(`{"data":{"n":"%d"}}`, i)), metav1.PatchOptions{FieldManager: DefaultFieldManager})
			if err != nil {
				b.Error(err)
				return
			}
			i++
		}
	})
}
