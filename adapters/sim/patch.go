package sim

import (
	"fmt"

	"github.com/statecraft/statecraft/jsonvalue"

	// The JSON patch library kube-apiserver applies patches with (its
	// replace of a missing member adds it, where v5 refuses).
	jsonpatch "gopkg.in/evanphx/json-patch.v4"

	"github.com/statecraft/statecraft/adapters"
)

func (c *Cluster) patch(k *kindInfo, req adapters.Request) adapters.Result {
	key := keyOf(k, req.Ref.Namespace, req.Ref.Name)
	e, found := c.objects[key]
	if req.PatchType == adapters.ApplyPatch {
		return c.apply(k, req, key, e)
	}
	if !found {
		return notFound(k, req.Ref.Name)
	}
	if p, isObject := req.Body.(map[string]any); isObject && req.PatchType == adapters.MergePatch {
		// An object merges value by value (RFC 7386); any other body
		// takes the JSON path below, which reports it.
		if !jsonvalue.IsCanonical(p) {
			p, _ = canonicalObject(p)
			req.Body = p
		}
		merged := jsonvalue.MergePatch(e.obj, p).(map[string]any)
		return c.commitPatched(k, req, key, e, merged)
	}
	cur := mustJSON(e.obj)
	body, err := req.Payload()
	if err != nil {
		return fail(adapters.Invalid, "the patch could not be encoded: %v", err)
	}
	var out []byte
	switch req.PatchType {
	case adapters.MergePatch:
		out, err = jsonpatch.MergePatch(cur, body)
	case adapters.JSONPatch:
		var p jsonpatch.Patch
		if p, err = jsonpatch.DecodePatch(body); err == nil {
			out, err = p.Apply(cur)
		}
	default:
		return fail(adapters.Unsupported, "the body of the request was in an unknown format: patch type %q is not supported", req.PatchType)
	}
	if err != nil {
		return fail(adapters.Invalid, "the patch could not be applied to %s %q: %v", k.resource(), req.Ref.Name, err)
	}
	obj, err := decodeObject(out)
	if err != nil {
		return fail(adapters.Invalid, "the patched %s %q is not a valid object: %v", k.resource(), req.Ref.Name, err)
	}
	return c.commitPatched(k, req, key, e, obj)
}

// commitPatched checks what a patch may not change and stores the result.
func (c *Cluster) commitPatched(k *kindInfo, req adapters.Request, key objKey, e *entry, obj map[string]any) adapters.Result {
	if v, _ := obj["apiVersion"].(string); v != k.apiVersion {
		return fail(adapters.Invalid, "a patch may not change apiVersion")
	}
	if v, _ := obj["kind"].(string); v != k.kind {
		return fail(adapters.Invalid, "a patch may not change kind")
	}
	if uid := metaString(obj, "uid"); uid != metaString(e.obj, "uid") {
		return fail(adapters.Conflict, "Precondition failed: UID in precondition: %s, UID in object meta: %s", uid, metaString(e.obj, "uid"))
	}
	if rv := metaString(obj, "resourceVersion"); rv != "" && rv != metaString(e.obj, "resourceVersion") {
		return conflictModified(k, req.Ref.Name)
	}
	return c.commit(k, req, key, e, obj, false)
}

// apply carries out a server-side apply: structured-merge-diff merges the
// applied configuration into the stored object (or an empty one) with the
// kind's schema, records the manager's ownership and reports conflicts
// with other managers; the result is then stored as any write is.
func (c *Cluster) apply(k *kindInfo, req adapters.Request, key objKey, e *entry) adapters.Result {
	if c.noFieldManagement {
		return fail(adapters.Unsupported, "server-side apply is not served: this simulated cluster keeps no field ownership (sim.WithoutFieldManagement)")
	}
	if req.FieldManager == "" {
		return fail(adapters.Invalid, "PATCH %s %q: fieldManager is required for apply requests", k.resource(), req.Ref.Name)
	}
	cfg, err := bodyObject(req)
	if err != nil {
		return fail(adapters.Invalid, "the applied configuration is not a valid object: %v", err)
	}
	for _, f := range []string{"apiVersion", "kind"} {
		if s, _ := cfg[f].(string); s == "" {
			return fail(adapters.Invalid, "%s must be set in an applied configuration", f)
		}
	}
	if res, good := fillIdentity(k, req, cfg); !good {
		return res
	}
	if _, has := metadata(cfg)["managedFields"]; has {
		return fail(adapters.Invalid, "metadata.managedFields must be nil")
	}
	var live map[string]any
	if e != nil {
		if rv := metaString(cfg, "resourceVersion"); rv != "" && rv != metaString(e.obj, "resourceVersion") {
			return conflictModified(k, req.Ref.Name)
		}
		live = e.obj
	} else if req.Subresource != "" {
		return notFound(k, req.Ref.Name)
	}
	fm, err := k.srv.fields(req.Subresource)
	if err != nil {
		return statusError(err)
	}
	obj, err := fm.apply(live, cfg, req.FieldManager, req.Force, c.now(), gvkOf(k))
	if err != nil {
		return statusError(err)
	}
	if e == nil {
		return c.createObject(k, req, obj, true)
	}
	return c.commit(k, req, key, e, obj, true)
}

// fieldManager names the manager of a non-apply write.
func fieldManager(req adapters.Request) string {
	switch {
	case req.FieldManager != "":
		return req.FieldManager
	case req.Identity != "":
		return req.Identity
	}
	return "statecraft"
}

// ManagedFields reports the field ownership of an object: its
// metadata.managedFields, decoded, in their stored order; nil when the
// object does not exist.
func (c *Cluster) ManagedFields(ref adapters.Ref) []ManagedFields {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.objects[objKey{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name}]
	if !found {
		return nil
	}
	out, err := managedFieldsOf(e.obj)
	if err != nil {
		panic(fmt.Sprintf("sim: the stored managedFields of %s do not decode: %v", ref, err))
	}
	return out
}
