package batch

import (
	"os"
	"runtime/debug"
	"testing"
)

func TestTuneGC(t *testing.T) {
	t.Setenv("GOGC", "")
	if restore := TuneGC(); debug.SetGCPercent(100) != 100 {
		t.Error("GOGC set (even empty): the target was changed")
		restore()
	}
	// Unset GOGC (t.Setenv restores it after the test).
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	restore := TuneGC()
	if got := debug.SetGCPercent(GCPercent); got != GCPercent {
		t.Errorf("target %d, want %d", got, GCPercent)
	}
	restore()
	if got := debug.SetGCPercent(150); got != 150 {
		t.Errorf("restored target %d, want 150", got)
	}
}
