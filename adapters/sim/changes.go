package sim

import "github.com/statecraft/statecraft/adapters"

// Change counters let a caller tell, without reading, that what it read
// earlier cannot have changed: a runner that knows an object's decision
// depended only on some objects and lists can skip stepping it again while
// their counters stand still (scenario's resting objects).

// changeCount counts the changes to the objects of one kind in one
// namespace (or, under allNamespaces, in every namespace).
type changeCount struct {
	all           uint64 // every create, change and removal
	outsideStatus uint64 // those that changed anything besides .status
}

// allNamespaces keys the per-kind counters that count every namespace.
const allNamespaces = "\x00all"

// A Change is one change of a stored object as the counters count it: a
// create, a change (StatusOnly when it could change nothing but .status) or
// a removal. Every change moves the object's resourceVersion (or removes
// it) and its kind's counters.
type Change struct {
	Ref        adapters.Ref
	StatusOnly bool
}

// OnChange calls fn with every change from now on, in order, as it is
// made. fn runs under the cluster's lock: it must not call the cluster. It
// lets a caller that keeps many certified reads (the scenario runner's
// resting objects) mark the few a change concerns instead of comparing
// counters on every recheck.
func (c *Cluster) OnChange(fn func(Change)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.onChange = append(c.onChange, fn)
}

// changed records a change of a stored object: its kind and namespace's
// counters move. statusOnly is true for a write that could change nothing
// but .status (the status subresource).
func (c *Cluster) changed(obj map[string]any, statusOnly bool) {
	av, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	ns := metaString(obj, "namespace")
	if len(c.onChange) > 0 {
		ch := Change{Ref: adapters.Ref{APIVersion: av, Kind: kind, Namespace: ns, Name: metaString(obj, "name")}, StatusOnly: statusOnly}
		for _, fn := range c.onChange {
			fn(ch)
		}
	}
	for _, ns := range [2]string{ns, allNamespaces} {
		k := kindNS{av, kind, ns}
		n := c.changes[k]
		if n == nil {
			n = &changeCount{}
			c.changes[k] = n
		}
		n.all++
		if !statusOnly {
			n.outsideStatus++
		}
	}
}

// Changes reports how many times objects of apiVersion/kind in namespace
// (every namespace when namespace is "") were created, changed or removed
// so far: all counts every change, outsideStatus only those that changed
// something besides .status. While both stand still, a List of them
// returns the same; while outsideStatus stands still, the same apart from
// status.
func (c *Cluster) Changes(apiVersion, kind, namespace string) (all, outsideStatus uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if namespace == "" {
		namespace = allNamespaces
	}
	if n := c.changes[kindNS{apiVersion, kind, namespace}]; n != nil {
		return n.all, n.outsideStatus
	}
	return 0, 0
}

// Version returns the resourceVersion of the stored object ref names, or
// false when there is none.
func (c *Cluster) Version(ref adapters.Ref) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.objects[objKey{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name}]
	if !found {
		return "", false
	}
	return e.version, true
}

// DiscoveryChanges counts the changes to the kinds the server serves (a
// kind registered, a CRD established or removed).
func (c *Cluster) DiscoveryChanges() uint64 {
	return c.discovery.Load()
}
