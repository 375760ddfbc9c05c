package batch

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// unsetenv unsets an environment variable for the rest of the test.
func unsetenv(t *testing.T, name string) {
	t.Setenv(name, "") // restores the variable after the test
	if err := os.Unsetenv(name); err != nil {
		t.Fatal(err)
	}
}

func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(150)
	defer debug.SetGCPercent(before)
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(beforeLimit)

	t.Setenv("GOGC", "")
	unsetenv(t, "GOMEMLIMIT")
	restore := TuneGC()
	if debug.SetGCPercent(-1) != 150 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		t.Error("GOGC set (even empty): the target or the limit was changed")
	}
	restore()
	debug.SetGCPercent(150)

	unsetenv(t, "GOGC")
	t.Setenv("GOMEMLIMIT", "off")
	restore = TuneGC()
	if got := debug.SetGCPercent(-1); got != GCPercent {
		t.Errorf("GOMEMLIMIT set: target %d, want %d", got, GCPercent)
	}
	debug.SetGCPercent(GCPercent)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("GOMEMLIMIT set: the limit was changed to %d", got)
	}
	restore()
	if got := debug.SetGCPercent(-1); got != 150 {
		t.Errorf("restored target %d, want 150", got)
	}
	debug.SetGCPercent(150)

	unsetenv(t, "GOMEMLIMIT")
	restore = TuneGC()
	if got := debug.SetGCPercent(-1); got != GCPercent {
		t.Errorf("target %d, want %d", got, GCPercent)
	}
	debug.SetGCPercent(GCPercent)
	got := debug.SetMemoryLimit(-1)
	if c := MemoryCeiling(); got != Floor && !(c > 0 && c < Floor && got == c) {
		t.Errorf("limit %d, want the floor %d (this test's heap is small) or the ceiling %d under it", got, Floor, c)
	}
	restore()
	if got := debug.SetGCPercent(-1); got != 150 {
		t.Errorf("restored target %d, want 150", got)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("restored limit %d, want none (%d)", got, int64(math.MaxInt64))
	}
}

func TestLimit(t *testing.T) {
	const M = 1 << 20
	for _, c := range []struct{ live, floor, ceiling, want int64 }{
		{0, 768 * M, 0, 768 * M},
		{383 * M, 768 * M, 0, 768 * M},          // under half the floor: the floor
		{385 * M, 768 * M, 0, 770 * M},          // above: twice the live heap
		{3000 * M, 768 * M, 0, 6000 * M},        // no ceiling known
		{3000 * M, 768 * M, 5000 * M, 5000 * M}, // the ceiling
		{100 * M, 768 * M, 500 * M, 500 * M},    // a ceiling under the floor wins
	} {
		if got := Limit(c.live, c.floor, c.ceiling); got != c.want {
			t.Errorf("Limit(%d MiB, %d MiB, %d MiB) = %d MiB, want %d MiB", c.live/M, c.floor/M, c.ceiling/M, got/M, c.want/M)
		}
	}
}

// TestLimitFollowsLiveHeap: the limit is renewed after each collection,
// up when the live heap grows past half the floor and down when it shrinks.
func TestLimitFollowsLiveHeap(t *testing.T) {
	beforeLimit := debug.SetMemoryLimit(math.MaxInt64)
	defer debug.SetMemoryLimit(beforeLimit)
	const M = 1 << 20
	stop := limitMemory(16*M, 0)
	waitFor := func(what string, ok func(int64) bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			runtime.GC()
			l := debug.SetMemoryLimit(-1)
			if ok(l) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("limit %d MiB, want %s", l/M, what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	live := make([]byte, 64*M)
	for i := range live {
		live[i] = byte(i)
	}
	waitFor("at least 128 MiB with 64 MiB live", func(l int64) bool { return l >= 128*M })
	runtime.KeepAlive(live)
	live = nil
	waitFor("under 64 MiB once the 64 MiB are garbage", func(l int64) bool { return l < 64*M && l >= 16*M })
	stop()
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("stopped: limit %d, want the one found (%d)", got, int64(math.MaxInt64))
	}
	runtime.GC()
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Errorf("a collection after stop renewed the limit to %d", got)
	}
}

func TestMemoryCeiling(t *testing.T) {
	if _, err := os.Stat("/proc/meminfo"); err != nil {
		t.Skip("no /proc/meminfo")
	}
	c, m := MemoryCeiling(), machineMemory()
	if m <= 0 || c <= 0 || c > m/4*3 {
		t.Errorf("ceiling %d of a machine of %d bytes: want above 0 and at most three quarters", c, m)
	}
}
