package scenario

import (
	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
)

// Cluster is what a scenario runs on: an adapters.API that logs every
// request it serves, and lets the runner stage and inspect objects. The
// simulated cluster is one; a real API server behind a recording wrapper
// (package scenario/kubeworld) is another, so one scenario can run on both
// and print the same trace.
type Cluster interface {
	adapters.API
	// TakeRecords returns the requests served since the last call.
	TakeRecords() []sim.Record
	// Object reads an object directly, outside the request log.
	Object(ref adapters.Ref) (map[string]any, bool)
	// Objects lists the objects of a kind directly, sorted by namespace
	// then name, outside the request log.
	Objects(apiVersion, kind string) []map[string]any
	// Apply stages an object before the scenario starts.
	Apply(obj map[string]any) error
	// RegisterKind makes a machine's kind servable (a no-op where CRDs are
	// installed).
	RegisterKind(apiVersion, kind string, scope adapters.Scope, opts sim.KindOptions)
}

// Stager is a Cluster that can also stage the rules of the world: RBAC
// denials, API faults and admission hooks. Only the simulator can.
type Stager interface {
	Cluster
	Deny(identity string, verb adapters.Verb, apiVersion, kind string, status sim.DenyStatus)
	ClearDenials()
	InjectFault(f sim.Fault)
	ClearFaults()
	AddAdmission(a sim.Admission)
	ClearAdmissions()
}

var _ Stager = (*sim.Cluster)(nil)

// stages reports whether the scenario stages anything only a Stager can.
func (s *Scenario) stages() bool {
	if s.Recorded || s.Staging != nil && !s.Staging.empty() {
		return true
	}
	for _, e := range s.Events {
		if e.Staging != nil && !e.Staging.empty() {
			return true
		}
	}
	return false
}

func (st *Staging) empty() bool {
	return !st.ClearDeny && !st.ClearFault && !st.ClearAdmit &&
		len(st.Denials) == 0 && len(st.Faults) == 0 && len(st.Rejects) == 0 && len(st.Drops) == 0
}
