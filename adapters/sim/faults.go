package sim

import (
	"fmt"

	"github.com/statecraft/statecraft/adapters"
)

// Fault makes the server answer matching requests with an outcome without
// carrying them out, as a failing API server or network would.
type Fault struct {
	Verb       adapters.Verb // "" or "*" matches every verb
	APIVersion string        // "" or "*" matches every apiVersion
	Kind       string        // "" or "*" matches every kind
	Identity   string        // "" matches every identity; otherwise exact
	// AtCalls lists the matching calls (1 for the first) that fail.
	AtCalls []int
	// Rate is the probability that any other matching call fails, drawn
	// from the cluster's seeded PCG source (see WithSeed).
	Rate    float64
	Outcome adapters.Outcome // default Transient; or ConcurrentWrite
	Message string           // default: a message fitting the outcome
}

// ConcurrentWrite, as a fault's outcome, is not a failure: just before a
// matching call is served, another actor (identity ConcurrentWriter) writes
// the object the call names, an annotation whose value counts such writes,
// so its resourceVersion moves; then the call is served as usual. A write
// carrying the resourceVersion its author read is answered Conflict, as a
// compare-and-set should be; one without overwrites.
const ConcurrentWrite adapters.Outcome = "concurrent_write"

// ConcurrentWriter is the identity of a ConcurrentWrite's write, and
// ConcurrentAnnotation the annotation it sets.
const (
	ConcurrentWriter     = "concurrent-writer"
	ConcurrentAnnotation = "statecraft.dev/concurrent-write"
)

type faultState struct {
	Fault
	calls int
}

// InjectFault installs a fault. Faults are checked after RBAC and before
// discovery, in the order they were installed; every fault counts its own
// matching calls.
func (c *Cluster) InjectFault(f Fault) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f.Outcome == "" {
		f.Outcome = adapters.Transient
	}
	f.AtCalls = append([]int(nil), f.AtCalls...)
	c.faults = append(c.faults, &faultState{Fault: f})
}

// ClearFaults removes every fault.
func (c *Cluster) ClearFaults() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.faults = nil
}

func wild(pattern, s string) bool { return pattern == "" || pattern == "*" || pattern == s }

func (f *faultState) matches(req adapters.Request) bool {
	return wild(string(f.Verb), string(req.Verb)) && wild(f.APIVersion, req.Ref.APIVersion) &&
		wild(f.Kind, req.Ref.Kind) && (f.Identity == "" || f.Identity == req.Identity)
}

func (c *Cluster) injectFault(req adapters.Request) (adapters.Result, bool) {
	for _, f := range c.faults {
		if !f.matches(req) {
			continue
		}
		f.calls++
		hit := false
		for _, n := range f.AtCalls {
			if n == f.calls {
				hit = true
			}
		}
		if !hit && f.Rate > 0 && c.rng.Float64() < f.Rate {
			hit = true
		}
		if !hit {
			continue
		}
		if f.Outcome == ConcurrentWrite {
			c.concurrentWrites++
			w := adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: req.Ref, Identity: ConcurrentWriter,
				Body: map[string]any{"metadata": map[string]any{"annotations": map[string]any{ConcurrentAnnotation: fmt.Sprint(c.concurrentWrites)}}}}
			res := c.serve(w)
			c.records = append(c.records, Record{Time: c.now(), Verb: w.Verb, Ref: w.Ref, PatchType: w.PatchType,
				Identity: w.Identity, Outcome: res.Outcome, Message: res.Message})
			continue
		}
		msg := f.Message
		if msg == "" {
			msg = defaultFaultMessage(f.Outcome, req)
		}
		return adapters.Result{Outcome: f.Outcome, Message: msg}, true
	}
	return adapters.Result{}, false
}

func defaultFaultMessage(o adapters.Outcome, req adapters.Request) string {
	switch o {
	case adapters.Transient:
		return "the server is currently unable to handle the request (injected fault)"
	case adapters.Conflict:
		return fmt.Sprintf("Operation cannot be fulfilled on %s: the object has been modified; please apply your changes to the latest version and try again (injected fault)", req.Ref)
	case adapters.NotFound:
		return fmt.Sprintf("%s not found (injected fault)", req.Ref)
	case adapters.Forbidden:
		return fmt.Sprintf("%s is forbidden (injected fault)", req.Ref)
	}
	return fmt.Sprintf("injected fault: %s", o)
}
