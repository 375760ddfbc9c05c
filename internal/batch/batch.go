package batch

import (
	"os"
	"runtime/debug"
)

// GCPercent is the garbage collector's target for a batch run: the heap may
// grow to five times what is live before a collection, instead of twice.
// A simulated week of 10,000 objects then collects a quarter as often; it
// needs about twice the memory at its peak (BENCHMARKS.md gives both).
const GCPercent = 400

// TuneGC sets GCPercent unless the user chose a target with GOGC, and
// returns a function that restores the previous target.
func TuneGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(GCPercent)
	return func() { debug.SetGCPercent(old) }
}
