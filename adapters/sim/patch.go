package sim

import (
	"fmt"
	"sort"
	"strings"

	"github.com/statecraft/statecraft/jsonvalue"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/statecraft/statecraft/adapters"
)

// managerKey names one field manager entry, as metadata.managedFields does:
// a manager, the operation it used ("Apply" or "Update") and the subresource.
type managerKey struct{ manager, operation, subresource string }

// ManagedFields is one field manager's ownership of an object's fields.
type ManagedFields struct {
	Manager     string
	Operation   string // "Apply" or "Update"
	Subresource string
	Fields      []string // JSON pointers to leaf fields, sorted
}

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
		merged := c.merged(e.obj, jsonvalue.MergePatch(e.obj, p).(map[string]any))
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
	return c.commit(k, req, key, e, obj, nil)
}

// apply carries out a server-side apply. Ownership is tracked per leaf
// field (lists are atomic: a list is one leaf). Applying a field another
// manager owns with a different value is a conflict unless Force is set, in
// which case the other manager loses the field. Fields the manager applied
// before and omits now are removed unless another manager owns them.
func (c *Cluster) apply(k *kindInfo, req adapters.Request, key objKey, e *entry) adapters.Result {
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
	if e != nil {
		if rv := metaString(cfg, "resourceVersion"); rv != "" && rv != metaString(e.obj, "resourceVersion") {
			return conflictModified(k, req.Ref.Name)
		}
	} else if req.Subresource != "" {
		return notFound(k, req.Ref.Name)
	}

	me := managerKey{req.FieldManager, "Apply", req.Subresource}
	applied := ownedLeaves(k, req.Subresource, cfg)
	var obj map[string]any
	managed := map[managerKey]map[string]bool{}
	if e != nil {
		obj = copyObject(e.obj)
		for mk, fields := range e.managed {
			managed[mk] = cloneSet(fields)
		}
	} else {
		obj = map[string]any{"apiVersion": cfg["apiVersion"], "kind": cfg["kind"], "metadata": map[string]any{}}
		md := metadata(obj)
		md["name"] = metaString(cfg, "name")
		if ns := metaString(cfg, "namespace"); ns != "" {
			md["namespace"] = ns
		}
	}

	// Conflicts with the other managers.
	var conflicts []string
	for _, mk := range sortedManagers(managed) {
		if mk == me {
			continue
		}
		for _, q := range jsonvalue.SortedKeys(managed[mk]) {
			for _, p := range jsonvalue.SortedKeys(applied) {
				if !overlaps(p, q) {
					continue
				}
				if cur, has := getPath(obj, p); has && sameApplied(cur, applied[p]) {
					continue // same value: shared ownership
				}
				if req.Force {
					delete(managed[mk], q)
				} else {
					conflicts = append(conflicts, fmt.Sprintf("conflict with %q (%s): %s", mk.manager, mk.operation, pointerToField(q)))
				}
				break
			}
		}
	}
	if len(conflicts) > 0 {
		return fail(adapters.Conflict, "Apply failed with %d conflict(s): %s", len(conflicts), strings.Join(conflicts, "; "))
	}

	// Fields this manager applied before and no longer applies.
	for _, q := range jsonvalue.SortedKeys(managed[me]) {
		if _, still := applied[q]; still {
			continue
		}
		if ownedByOther(managed, me, q) {
			continue
		}
		deletePath(obj, q)
		pruneEmptyParents(obj, q, managed)
	}
	for _, p := range jsonvalue.SortedKeys(applied) {
		if cur, has := getPath(obj, p); has && sameApplied(cur, applied[p]) {
			continue
		}
		setPath(obj, p, jsonvalue.DeepCopy(applied[p]))
	}
	managed[me] = map[string]bool{}
	for p := range applied {
		managed[me][p] = true
	}
	dropEmptyManagers(managed)

	if e == nil {
		return c.createObject(k, req, obj, managed)
	}
	return c.commit(k, req, key, e, obj, managed)
}

// sameApplied reports whether applying v where cur is changes nothing. An
// empty map in an applied configuration asks only that the map exist.
func sameApplied(cur, v any) bool {
	if m, isMap := v.(map[string]any); isMap && len(m) == 0 {
		_, curMap := cur.(map[string]any)
		return curMap
	}
	return jsonvalue.Equal(cur, v)
}

func ownedByOther(managed map[managerKey]map[string]bool, me managerKey, p string) bool {
	for mk, fields := range managed {
		if mk == me {
			continue
		}
		for q := range fields {
			if overlaps(p, q) {
				return true
			}
		}
	}
	return false
}

// pruneEmptyParents removes maps left empty by deleting p, below the top
// level, unless a manager owns them.
func pruneEmptyParents(obj map[string]any, p string, managed map[managerKey]map[string]bool) {
	toks := splitPointer(p)
	for n := len(toks) - 1; n >= 2; n-- {
		parent := ""
		for _, t := range toks[:n] {
			parent += "/" + jsonvalue.EscapeToken(t)
		}
		v, has := getPath(obj, parent)
		m, isMap := v.(map[string]any)
		if !has || !isMap || len(m) > 0 {
			return
		}
		for _, fields := range managed {
			if fields[parent] {
				return
			}
		}
		deletePath(obj, parent)
	}
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

// ownedLeaves returns the leaf fields of obj a manager can own through the
// given subresource.
func ownedLeaves(k *kindInfo, subresource string, obj map[string]any) map[string]any {
	out := map[string]any{}
	if obj == nil {
		return out
	}
	leaves(obj, "", out)
	for p := range out {
		if notOwnable(k, subresource, p) {
			delete(out, p)
		}
	}
	return out
}

// serverFieldPaths are the JSON pointers of serverFields.
var serverFieldPaths = func() []string {
	out := make([]string, len(serverFields))
	for i, f := range serverFields {
		out[i] = "/metadata/" + f
	}
	return out
}()

func notOwnable(k *kindInfo, subresource, p string) bool {
	switch p {
	case "/apiVersion", "/kind", "/metadata", "/metadata/name", "/metadata/namespace":
		return true
	}
	if p == "" || strings.HasPrefix(p, "/metadata") {
		for _, f := range serverFieldPaths {
			if overlaps(p, f) {
				return true
			}
		}
	}
	if subresource == "status" {
		return !strings.HasPrefix(p, "/status/") && p != "/status"
	}
	return k.opts.HasStatus && overlaps(p, "/status")
}

// updateOwnership records an Update operation: the manager takes the leaf
// fields it changed or added (other managers lose them); removed fields
// leave every manager.
// patch, when set, is the merge patch that made newObj from oldObj: only
// the members it names are compared (the merge shares the rest).
func updateOwnership(k *kindInfo, req adapters.Request, patch map[string]any, prev map[managerKey]map[string]bool, oldObj, newObj map[string]any) map[managerKey]map[string]bool {
	me := managerKey{fieldManager(req), "Update", req.Subresource}
	var removed, changed []string
	onRemoved := func(p string) {
		if !notOwnable(k, req.Subresource, p) {
			removed = append(removed, p)
		}
	}
	onChanged := func(p string) {
		if !notOwnable(k, req.Subresource, p) {
			changed = append(changed, p)
		}
	}
	// Only what the request may own is compared: under the status
	// subresource .status alone, elsewhere all but a status subresource's
	// .status (notOwnable would drop every path found there).
	var keep func(string) bool
	switch {
	case req.Subresource == "status":
		keep = func(key string) bool { return key == "status" }
	case k.opts.HasStatus:
		keep = func(key string) bool { return key != "status" }
	}
	if patch != nil {
		diffPatched(oldObj, newObj, patch, "", keep, onRemoved, onChanged)
	} else {
		diffMembers(oldObj, newObj, "", keep, onRemoved, onChanged)
	}
	// prev and its sets are shared with the stored entry (and, after a
	// refused or dry-run write, must stay as they are): the map is copied
	// when a set changes, and a set when it changes; a write that moves no
	// field returns prev itself.
	var managed map[managerKey]map[string]bool
	copied := map[managerKey]bool{}
	set := func(mk managerKey) map[string]bool {
		if managed == nil {
			return prev[mk]
		}
		return managed[mk]
	}
	own := func(mk managerKey) map[string]bool {
		if managed == nil {
			managed = make(map[managerKey]map[string]bool, len(prev)+1)
			for k, fields := range prev {
				managed[k] = fields
			}
		}
		if !copied[mk] {
			managed[mk], copied[mk] = cloneSet(managed[mk]), true
		}
		return managed[mk]
	}
	drop := func(mk managerKey, p string) {
		for q := range set(mk) {
			if overlaps(p, q) {
				delete(own(mk), q)
			}
		}
	}
	for _, p := range removed {
		for mk := range prev {
			drop(mk, p)
		}
	}
	for _, p := range changed {
		for mk := range prev {
			if mk != me {
				drop(mk, p)
			}
		}
		if !set(me)[p] {
			own(me)[p] = true
		}
	}
	if managed == nil {
		return prev
	}
	dropEmptyManagers(managed)
	return managed
}

func cloneSet(s map[string]bool) map[string]bool {
	out := make(map[string]bool, len(s))
	for k, v := range s {
		out[k] = v
	}
	return out
}

func dropEmptyManagers(managed map[managerKey]map[string]bool) {
	for mk, fields := range managed {
		if len(fields) == 0 {
			delete(managed, mk)
		}
	}
}

func sortedManagers(managed map[managerKey]map[string]bool) []managerKey {
	out := make([]managerKey, 0, len(managed))
	for mk := range managed {
		out = append(out, mk)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.manager != b.manager {
			return a.manager < b.manager
		}
		if a.operation != b.operation {
			return a.operation < b.operation
		}
		return a.subresource < b.subresource
	})
	return out
}

// ManagedFields reports the field ownership of an object, sorted by manager,
// operation and subresource; nil when the object does not exist.
func (c *Cluster) ManagedFields(ref adapters.Ref) []ManagedFields {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, found := c.objects[objKey{ref.APIVersion, ref.Kind, ref.Namespace, ref.Name}]
	if !found {
		return nil
	}
	var out []ManagedFields
	for _, mk := range sortedManagers(e.managed) {
		out = append(out, ManagedFields{
			Manager: mk.manager, Operation: mk.operation, Subresource: mk.subresource,
			Fields: jsonvalue.SortedKeys(e.managed[mk]),
		})
	}
	return out
}
