package jsonvalue

import (
	"hash/maphash"
	"testing"

	"github.com/zeebo/xxh3"
)

var benchStrings = []string{"metadata", "namespace", "bench-sta-12345-12", "p00012", "2026-11-29T18:13:14Z", "rightsizing.kubex.ai/v1alpha1", "a-longer-string-value-used-in-specs-and-labels"}

var sinkHash uint64

func BenchmarkHashStringXXHashDigest(b *testing.B) {
	for i := 0; i < b.N; i++ {
		for _, s := range benchStrings {
			sinkHash += HashString(seeds[0], s)
		}
	}
}

func BenchmarkHashStringXXH3(b *testing.B) {
	for i := 0; i < b.N; i++ {
		for _, s := range benchStrings {
			sinkHash += xxh3.HashStringSeed(s, seeds[0])
		}
	}
}

func BenchmarkHashStringMaphash(b *testing.B) {
	seed := maphash.MakeSeed()
	for i := 0; i < b.N; i++ {
		for _, s := range benchStrings {
			sinkHash += maphash.String(seed, s)
		}
	}
}
