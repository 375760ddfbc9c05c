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
// expressions, the CEL list of each list read's last answer (List), and
// the run's frozen values (Frozen), whose fingerprints and derived values
// are kept with them. It never changes a result, only how
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

	listsMu sync.Mutex
	lists   map[ListQuery]listValue // see List
}

// ListQuery names a list read: the kind, the namespace ("" for every one)
// and the label selector.
type ListQuery struct{ APIVersion, Kind, Namespace, LabelSelector string }

// listValue is the last answer to a list read, and its CEL list.
type listValue struct {
	items []map[string]any
	list  []any
}

// List returns items, the answer to the list read q, as a CEL list value:
// a []any of the same maps. mem keeps the last answer to each read, and
// the very slice answered again (a simulated cluster's or a cache's
// shared answer, unchanged) gets the very list made for it: no copy at
// every read, and a function that remembers what it saw of a list
// (arbitrate's claims) knows it by identity. items are not to be changed
// (adapters.Result's contract); a nil mem copies every time.
func (mem *Memory) List(q ListQuery, items []map[string]any) []any {
	if mem == nil || len(items) == 0 {
		return objectList(items)
	}
	t := mem.tables()
	t.listsMu.Lock()
	last, ok := t.lists[q]
	t.listsMu.Unlock()
	if ok && len(last.items) == len(items) && &last.items[0] == &items[0] {
		return last.list
	}
	v := listValue{items: items, list: objectList(items)}
	t.listsMu.Lock()
	if t.lists == nil || len(t.lists) >= 4096 {
		t.lists = map[ListQuery]listValue{}
	}
	t.lists[q] = v
	t.listsMu.Unlock()
	return v.list
}

func objectList(items []map[string]any) []any {
	out := make([]any, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
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
