package fsm

import (
	"sync"

	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
	"github.com/statecraft/statecraft/memo"
)

// Memory is what the machines of one run remember between steps: the
// library functions' memory (library.Memory, with the run's registry of
// frozen values), the engine's (Memo: params resolved by override values),
// and the looplab/fsm instances that carry moves, reused. It never changes
// a decision, only how often something is computed. A Memory belongs to
// the run that made it and is passed in (CompileIn); nothing is kept
// process-wide.
type Memory struct {
	Library *library.Memory

	memo *memo.Table[memoKey, any]

	pools sync.Map // *Machine -> *sync.Pool of *lfsm.FSM instances
}

// NewMemory returns an empty memory whose library functions ask frozen
// (nil: no registry) about frozen values.
func NewMemory(frozen *jsonvalue.Registry) *Memory {
	return &Memory{Library: library.NewMemory(frozen), memo: memo.NewTable[memoKey, any](4096)}
}

// Frozen returns the run's registry of frozen values (nil: none).
func (mem *Memory) Frozen() *jsonvalue.Registry {
	if mem == nil || mem.Library == nil {
		return nil
	}
	return mem.Library.Frozen
}

// Memo remembers results of pure computations over machine m that their
// users key themselves (the engine's resolved params, by override values):
// the value under key, computed on first use. It is bounded; results are
// shared, not to be changed.
func (mem *Memory) Memo(m *Machine, key string, compute func() any) any {
	if mem == nil {
		return compute()
	}
	return mem.memo.Get(memoKey{m, key}, compute)
}

// memoKey keys Memo by the machine itself: machines of one name compiled
// with other defaults (--param, a scenario's params) must not share.
type memoKey struct {
	m   *Machine
	key string
}

// moves returns the pool of m's looplab/fsm instances.
func (mem *Memory) moves(m *Machine) *sync.Pool {
	if mem == nil {
		return &sync.Pool{}
	}
	if p, ok := mem.pools.Load(m); ok {
		return p.(*sync.Pool)
	}
	p, _ := mem.pools.LoadOrStore(m, &sync.Pool{})
	return p.(*sync.Pool)
}
