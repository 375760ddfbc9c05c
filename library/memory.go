package library

import (
	"sync"

	"github.com/google/cel-go/cel"

	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library/objpatch"
	"github.com/statecraft/statecraft/memo"
)

// Memory is what the library's functions remember for one run: plans,
// claims and verdicts by the content of what they read, compiled probe
// expressions, and the run's frozen values (Frozen), whose fingerprints and
// derived values are kept with them. It never changes a result, only how
// often it is computed. fsm.Compile gives the functions of the machines it
// compiles one Memory (a new one unless told); nothing is process-global.
//
// A nil *Memory remembers nothing: every call computes.
type Memory struct {
	// Frozen is the registry of the values the run's owners froze (the
	// simulator's shared reads, the controller's cache): nil for none.
	Frozen *jsonvalue.Registry

	// CompileAssertion compiles a CEL assertion an object's author wrote (a
	// ClusterObjectSet's progression probe) over `self`, with the limits of
	// the machine's own expressions: package fsm sets it, so expressions
	// are compiled in one place. nil: such assertions fail with a message.
	CompileAssertion func(expr string) (cel.Program, error)

	once sync.Once
	t    *memoryTables
}

type memoryTables struct {
	plans        *memo.Table[[2]jsonvalue.Fingerprint, map[string]any]
	arbitrations *memo.Table[[2]jsonvalue.Fingerprint, map[string]any]
	listVerdicts *memo.Table[jsonvalue.Fingerprint, map[nsName]listedVerdict]
	claimsBySpec *memo.Table[claimsKey, specClaims]
	probes       *memo.Table[string, probeProgram]
	selectors    *objpatch.Selectors
	schedules    *memo.Table[scheduleKey, parsedSchedule]

	lastMu    sync.Mutex
	lastLists map[listKey]*listed // see claimantList

	orderMu sync.Mutex
	orders  []claimOrder // see claimOrderOf
}

// NewMemory returns an empty memory whose functions ask frozen (nil: no
// registry) about frozen values.
func NewMemory(frozen *jsonvalue.Registry) *Memory { return &Memory{Frozen: frozen} }

func (mem *Memory) frozen() *jsonvalue.Registry {
	if mem == nil {
		return nil
	}
	return mem.Frozen
}

// tables returns mem's tables, made on first use; a nil mem has empty
// (nil) tables, which compute every time.
func (mem *Memory) tables() *memoryTables {
	if mem == nil {
		return &memoryTables{}
	}
	mem.once.Do(func() {
		mem.t = &memoryTables{
			plans:        memo.NewTable[[2]jsonvalue.Fingerprint, map[string]any](4096),
			arbitrations: memo.NewTable[[2]jsonvalue.Fingerprint, map[string]any](4096),
			listVerdicts: memo.NewTable[jsonvalue.Fingerprint, map[nsName]listedVerdict](4096),
			claimsBySpec: memo.NewTable[claimsKey, specClaims](8192),
			probes:       memo.NewTable[string, probeProgram](1024),
			selectors:    objpatch.NewSelectors(),
			schedules:    memo.NewTable[scheduleKey, parsedSchedule](1024),
		}
	})
	return mem.t
}
