package sim

import (
	"fmt"

	"github.com/statecraft/statecraft/adapters"
)

// Direct helpers for tests and scenario staging. They bypass RBAC, faults,
// admission and the request log, but objects still get uid,
// resourceVersion, generation and timestamps as a write through Do would.

// Apply stores obj, creating it or replacing the stored object (status
// included, whatever the kind's subresources). Its kind must be registered
// and its scope must match its metadata.namespace.
func (c *Cluster) Apply(obj map[string]any) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stage(obj)
}

func (c *Cluster) stage(obj map[string]any) error {
	norm, err := normalize(obj)
	if err != nil {
		return fmt.Errorf("sim: Apply: %w", err)
	}
	apiVersion, _ := norm["apiVersion"].(string)
	kind, _ := norm["kind"].(string)
	ref := adapters.Ref{APIVersion: apiVersion, Kind: kind,
		Namespace: metaString(norm, "namespace"), Name: metaString(norm, "name")}
	k, res, good := c.resolve(adapters.Request{Verb: adapters.Update, Ref: ref})
	if !good {
		return fmt.Errorf("sim: Apply %s: %s", ref, res.Message)
	}
	if msg := validate(k, norm); msg != "" {
		return fmt.Errorf("sim: Apply %s: invalid: %s", ref, msg)
	}
	key := keyOf(k, ref.Namespace, ref.Name)
	e, exists := c.objects[key]
	md := metadata(norm)
	for _, f := range serverFields {
		if f != "deletionTimestamp" && f != "deletionGracePeriodSeconds" {
			delete(md, f)
		}
	}
	req := adapters.Request{Verb: adapters.Update, Ref: ref, FieldManager: "sim-staging"}
	c.rv++
	md["resourceVersion"] = fmt.Sprint(c.rv)
	if !exists {
		c.uidSeq++
		md["uid"] = fmt.Sprintf("uid-%06d", c.uidSeq)
		md["creationTimestamp"] = timestamp(c.clock.Now())
		md["generation"] = int64(1)
		e = &entry{}
		c.objects[key] = e
		c.index(key, e)
		c.byUID[md["uid"].(string)] = key
		e.managed = updateOwnership(k, req, nil, nil, nil, norm)
	} else {
		old := metadata(e.obj)
		md["uid"] = old["uid"]
		md["creationTimestamp"] = old["creationTimestamp"]
		md["generation"] = generationOf(e.obj)
		if specChanged(e.obj, norm) {
			md["generation"] = generationOf(e.obj) + 1
		}
		e.managed = updateOwnership(k, req, nil, e.managed, e.obj, norm)
	}
	e.thaw(c.frozen)
	e.obj = norm
	c.changed(norm, false)
	c.afterStore(k, key, e)
	return nil
}

// Peek returns the stored object ref names as a reader gets it: with
// WithSharedReads the copy every reader shares, which must not be changed;
// otherwise a copy.
func (c *Cluster) Peek(ref adapters.Ref) (map[string]any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.objects[objKey{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name}]
	if !found {
		return nil, false
	}
	return c.read(e), true
}

// Object returns a copy of the stored object ref names.
func (c *Cluster) Object(ref adapters.Ref) (map[string]any, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.objects[objKey{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name}]
	if !found {
		return nil, false
	}
	return copyObject(e.obj), true
}

// Objects returns copies of every stored object of apiVersion/kind, sorted
// by namespace then name.
func (c *Cluster) Objects(apiVersion, kind string) []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	var keys []objKey
	for key := range c.objects {
		if key.apiVersion == apiVersion && key.kind == kind {
			keys = append(keys, key)
		}
	}
	sortKeys(keys)
	out := make([]map[string]any, 0, len(keys))
	for _, key := range keys {
		out = append(out, copyObject(c.objects[key].obj))
	}
	return out
}

// RefOf returns the reference naming obj.
func RefOf(obj map[string]any) adapters.Ref {
	apiVersion, _ := obj["apiVersion"].(string)
	kind, _ := obj["kind"].(string)
	return adapters.Ref{APIVersion: apiVersion, Kind: kind,
		Namespace: metaString(obj, "namespace"), Name: metaString(obj, "name")}
}
