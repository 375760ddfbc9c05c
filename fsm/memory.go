package fsm

import (
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/ext"
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
	lib := library.NewMemory(frozen)
	lib.CompileAssertion = compileAssertion
	return &Memory{Library: lib, memo: memo.NewTable[memoKey, any](4096)}
}

// compileAssertion compiles a CEL assertion an object's author wrote (a
// ClusterObjectSet's progression probe, see library.Memory.CompileAssertion)
// as the machine's own expressions are compiled: checked, costed, and run
// with the same runtime limits. It sees self, the live object (dynamic), in
// the environment of the reference's probes: optional types and the
// strings extension.
func compileAssertion(expr string) (cel.Program, error) {
	env, err := cel.NewEnv(cel.Variable("self", cel.DynType), cel.OptionalTypes(), ext.Strings())
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, iss.Err()
	}
	if !ast.OutputType().IsExactType(cel.DynType) && !ast.OutputType().IsExactType(cel.BoolType) {
		return nil, fmt.Errorf("the assertion gives a %s, not a bool", ast.OutputType())
	}
	est, estErr := env.EstimateCost(ast, costEstimator)
	return env.Program(ast, runtimeLimits(est, estErr)...)
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
