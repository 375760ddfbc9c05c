package sim

import (
	"github.com/statecraft/statecraft/adapters"
)

// AdmissionMode selects which requests an admission hook sees.
type AdmissionMode int

// The request kinds an admission hook applies to.
const (
	AdmitAll        AdmissionMode = iota // dry-run and live requests
	AdmitLiveOnly                        // only requests that store
	AdmitDryRunOnly                      // only dry-run requests
)

// Admission is an admission hook, run on every write (Create, Update, Patch,
// and Delete, where obj is the object being deleted and mutations are
// ignored) after validation, before anything is stored. Mutating hooks run
// first, in the order they were added, then rejecting ones, as in the real
// API server. Hooks run while the cluster is locked and must not call it.
type Admission struct {
	Name string
	// Match selects the requests the hook applies to; nil matches every write.
	Match func(req adapters.Request) bool
	Mode  AdmissionMode
	// Mutate may change the object about to be stored (for example drop a
	// label: the write is accepted but its effect not retained).
	Mutate func(req adapters.Request, obj map[string]any)
	// Reject, when it returns a non-empty message, refuses the request with
	// outcome Invalid and that message.
	Reject func(req adapters.Request, obj map[string]any) string
}

// AddAdmission installs an admission hook.
func (c *Cluster) AddAdmission(a Admission) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.admissions = append(c.admissions, a)
}

// ClearAdmissions removes every admission hook.
func (c *Cluster) ClearAdmissions() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.admissions = nil
}

func (a Admission) applies(req adapters.Request) bool {
	switch {
	case a.Mode == AdmitLiveOnly && req.DryRun, a.Mode == AdmitDryRunOnly && !req.DryRun:
		return false
	}
	return a.Match == nil || a.Match(req)
}

// admit runs the admission chain on obj, the object about to be stored (or
// being deleted). It reports a rejection as an Invalid result.
func (c *Cluster) admit(req adapters.Request, obj map[string]any, _ *entry) (adapters.Result, bool) {
	if c.staging {
		return adapters.Result{}, false
	}
	if req.Verb != adapters.Delete {
		for _, a := range c.admissions {
			if a.Mutate != nil && a.applies(req) {
				a.Mutate(req, obj)
			}
		}
	}
	for _, a := range c.admissions {
		if a.Reject == nil || !a.applies(req) {
			continue
		}
		if msg := a.Reject(req, copyObject(obj)); msg != "" {
			name := a.Name
			if name == "" {
				name = "admission"
			}
			return fail(adapters.Invalid, "admission webhook %q denied the request: %s", name, msg), true
		}
	}
	return adapters.Result{}, false
}
