package sim

import "github.com/statecraft/statecraft/adapters"

// A Change is one change of a stored object: a create, a change
// (StatusOnly when it could change nothing but .status) or a removal.
// Every change moves the object's resourceVersion (or removes it); a write
// that changes nothing is not a change.
type Change struct {
	Ref        adapters.Ref
	StatusOnly bool
}

// OnChange calls fn with every change from now on, in order, as it is
// made. fn runs under the cluster's lock: it must not call the cluster. It
// lets a caller that keeps many certified reads (the scenario runner's
// resting objects) mark the few a change concerns instead of reading again
// on every recheck.
func (c *Cluster) OnChange(fn func(Change)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onChange = append(c.onChange, fn)
}

// changed reports a change of a stored object to the OnChange callers.
// statusOnly is true for a write that could change nothing but .status
// (the status subresource).
func (c *Cluster) changed(obj map[string]any, statusOnly bool) {
	if len(c.onChange) == 0 {
		return
	}
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	ch := Change{Ref: adapters.Ref{APIVersion: av, Kind: kind, Namespace: metaString(obj, "namespace"), Name: metaString(obj, "name")}, StatusOnly: statusOnly}
	for _, fn := range c.onChange {
		fn(ch)
	}
}

// DiscoveryChanges counts the changes to the kinds the server serves (a
// kind registered, a CRD established or removed).
func (c *Cluster) DiscoveryChanges() uint64 {
	return c.discovery.Load()
}
