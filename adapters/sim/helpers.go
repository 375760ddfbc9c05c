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
	md := metadata(norm)
	deleting, _ := md["deletionTimestamp"].(string)
	for _, f := range serverFields {
		delete(md, f)
	}
	delete(md, "managedFields")
	status, hasStatus := norm["status"]
	if k.srv.hasStatus() {
		delete(norm, "status")
	}
	c.staging = true
	defer func() { c.staging = false }()
	// Created, or replaced whole, as a client that creates or updates it
	// would; then the status through its subresource.
	key := keyOf(k, ref.Namespace, ref.Name)
	if e, exists := c.objects[key]; exists {
		metadata(norm)["resourceVersion"] = metaString(e.obj, "resourceVersion")
		res = c.update(k, adapters.Request{Verb: adapters.Update, Ref: ref, Body: norm, FieldManager: stagingManager})
	} else {
		res = c.createObject(k, adapters.Request{Verb: adapters.Create, Ref: ref, Body: norm, FieldManager: stagingManager}, norm, false)
	}
	if res.Outcome != adapters.OK {
		return fmt.Errorf("sim: Apply %s: %s: %s", ref, res.Outcome, res.Message)
	}
	if hasStatus && k.srv.hasStatus() {
		res = c.patch(k, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Subresource: "status",
			Body: map[string]any{"status": status}, FieldManager: stagingManager})
		if res.Outcome != adapters.OK {
			return fmt.Errorf("sim: Apply %s status: %s: %s", ref, res.Outcome, res.Message)
		}
	}
	if deleting != "" {
		e := c.objects[keyOf(k, ref.Namespace, ref.Name)]
		if metaString(e.obj, "deletionTimestamp") == "" {
			obj := shallowMeta(e.obj)
			c.markDeleting(obj)
			metadata(obj)["deletionTimestamp"] = deleting
			e.forget(c.frozen)
			e.obj = obj
			e.prepared = nil
			c.touch(e)
		}
	}
	return nil
}

// stagingManager is the field manager of staged objects, as the
// real-server world's.
const stagingManager = "scenario"

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
