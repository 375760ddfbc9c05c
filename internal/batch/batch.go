package batch

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

// GCPercent is the garbage collector's target for a batch run: the heap may
// grow to five times what is live before a collection, instead of twice.
// A simulated week of 1,000 objects then collects a quarter as often; what
// that costs in memory is bounded by the soft memory limit (Limit).
const GCPercent = 400

// Floor is the least soft memory limit TuneGC sets: a run whose live heap
// stays under a fifth of it (about 150 MiB: a simulated week of 1,000
// objects holds 56 MB) keeps the whole 400% target.
const Floor = 768 << 20

// Limit is the soft memory limit (runtime/debug.SetMemoryLimit) of a batch
// run whose last collection found live bytes live: twice the live heap,
// what Go's default target (GOGC=100) would let the heap reach, but never
// less than floor, and never more than ceiling when ceiling is known
// (above 0). Under a limit the collector runs when the heap reaches the
// lower of the 400% target and the limit, so a batch run never takes more
// memory than the default target would, beyond floor: a run with a small
// live heap collects at 400%, one with a large heap (the 10,000-object
// week holds about 450 MB) as often as Go's default, and a heap that
// nears the machine's memory is collected harder instead of failing.
func Limit(live, floor, ceiling int64) int64 {
	l := max(floor, 2*live)
	if ceiling > 0 {
		l = min(l, ceiling)
	}
	return l
}

// TuneGC sets GCPercent unless the user chose a target with GOGC and,
// unless GOMEMLIMIT is set too (GOMEMLIMIT=off keeps the 400% target
// unbounded), keeps a soft memory limit of Limit(live heap, Floor, three
// quarters of the machine's or the cgroup's memory), renewed after every
// collection. It returns a function that restores the previous target and
// limit and stops the renewal.
func TuneGC() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	old := debug.SetGCPercent(GCPercent)
	stop := func() {}
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		stop = limitMemory(Floor, MemoryCeiling())
	}
	return func() {
		stop()
		debug.SetGCPercent(old)
	}
}

// limiter renews the soft memory limit after every collection.
type limiter struct {
	mu             sync.Mutex
	stopped        bool
	floor, ceiling int64
	sample         []metrics.Sample
}

// limitMemory sets the limit of the live heap now and after every
// collection until stop, which restores the limit found.
func limitMemory(floor, ceiling int64) (stop func()) {
	l := &limiter{floor: floor, ceiling: ceiling, sample: []metrics.Sample{{Name: "/gc/heap/live:bytes"}}}
	old := debug.SetMemoryLimit(-1)
	l.renew(struct{}{})
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.stopped = true
		debug.SetMemoryLimit(old)
	}
}

// sentinel is an object nothing refers to: the cleanup attached to it runs
// after the next collection. It is large enough not to share a block with
// other small objects (the tiny allocator's), which would keep it alive.
type sentinel [32]byte

// renew sets the limit from the live heap the last collection found and
// arms itself for the next one.
func (l *limiter) renew(struct{}) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.stopped {
		return
	}
	metrics.Read(l.sample)
	live := int64(0)
	if l.sample[0].Value.Kind() == metrics.KindUint64 {
		live = int64(min(l.sample[0].Value.Uint64(), math.MaxInt64/4))
	}
	debug.SetMemoryLimit(Limit(live, l.floor, l.ceiling))
	runtime.AddCleanup(new(sentinel), l.renew, struct{}{})
}

// MemoryCeiling is three quarters of the memory this process may use: the
// cgroup's limit (v2 memory.max or v1 memory.limit_in_bytes) or the
// machine's (MemTotal of /proc/meminfo), whichever is lower; 0 where
// neither is known.
func MemoryCeiling() int64 {
	m := machineMemory()
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		if b, err := os.ReadFile(f); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && (m == 0 || v < m) {
				m = v
			}
		}
	}
	return m / 4 * 3
}

func machineMemory() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if v, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return v << 10
				}
			}
		}
	}
	return 0
}
