package sim

import (
	"sort"
	"strconv"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/statecraft/statecraft/adapters"
)

// Deletion, finalizers and garbage collection. The real API server leaves
// garbage collection to a controller that runs shortly after; the simulator
// runs it synchronously inside the request that triggers it, so that every
// history is deterministic.

const (
	foregroundFinalizer = "foregroundDeletion"
	crdAPIVersion       = "apiextensions.k8s.io/v1"
	crdKind             = "CustomResourceDefinition"
)

func (c *Cluster) delete(k *kindInfo, req adapters.Request) adapters.Result {
	key := keyOf(k, req.Ref.Namespace, req.Ref.Name)
	e, found := c.objects[key]
	if !found {
		return notFound(k, req.Ref.Name)
	}
	prop := req.Propagation
	switch prop {
	case "":
		prop = "Background"
	case "Background", "Foreground", "Orphan":
	default:
		return fail(adapters.Invalid, "DeleteOptions.propagationPolicy: Unsupported value: %q: supported values: \"Foreground\", \"Background\", \"Orphan\"", req.Propagation)
	}
	if res, rejected := c.admit(req, copyObject(e.obj), e); rejected {
		return res
	}
	if metaString(e.obj, "deletionTimestamp") != "" {
		// Already being deleted: nothing more to do.
		return ok(e.obj)
	}
	keep := len(stringList(metadata(e.obj)["finalizers"])) > 0 || prop == "Foreground" || k.kind == "Namespace" && k.apiVersion == "v1"
	if req.DryRun {
		if !keep {
			return ok(e.obj)
		}
		obj := copyObject(e.obj)
		c.markDeleting(obj, prop == "Foreground")
		return ok(obj)
	}
	if prop == "Orphan" {
		c.orphanDependents(metaString(e.obj, "uid"))
	}
	return ok(c.deleteObject(key, prop))
}

// deleteObject starts the deletion of a stored object with the given
// propagation policy and returns its last state.
func (c *Cluster) deleteObject(key objKey, prop string) map[string]any {
	e := c.objects[key]
	if metaString(e.obj, "deletionTimestamp") != "" {
		return e.obj
	}
	isNamespace := key.apiVersion == "v1" && key.kind == "Namespace"
	if !isNamespace && prop != "Foreground" && len(stringList(metadata(e.obj)["finalizers"])) == 0 {
		return c.remove(key)
	}
	c.markDeleting(e.own(c.frozen), prop == "Foreground")
	c.touch(e)
	uid := metaString(e.obj, "uid")
	switch {
	case isNamespace:
		c.deleteNamespaceContent(key.name)
		c.reconcileNamespace(key.name)
	case prop == "Foreground":
		c.collectDependents(uid)
		c.reconcileForeground(uid)
	}
	if cur, still := c.objects[key]; still {
		return cur.obj
	}
	return e.obj
}

// markDeleting sets deletionTimestamp, as the API server does for an object
// that cannot go at once, bumping generation.
func (c *Cluster) markDeleting(obj map[string]any, foreground bool) {
	md := metadata(obj)
	md["deletionTimestamp"] = timestamp(c.clock.Now())
	md["deletionGracePeriodSeconds"] = int64(0)
	md["generation"] = generationOf(obj) + 1
	if foreground {
		fins := stringList(md["finalizers"])
		if !contains(fins, foregroundFinalizer) {
			md["finalizers"] = toAnyList(append(fins, foregroundFinalizer))
		}
	}
	if obj["apiVersion"] == "v1" && obj["kind"] == "Namespace" {
		st, _ := obj["status"].(map[string]any)
		if st == nil {
			st = map[string]any{}
			obj["status"] = st
		}
		st["phase"] = "Terminating"
	}
}

// touch records a server-side change of a stored object, made in place on
// e.own(c.frozen): a new resourceVersion.
func (c *Cluster) touch(e *entry) {
	c.rv++
	metadata(e.obj)["resourceVersion"] = strconv.FormatInt(c.rv, 10)
	e.thaw(c.frozen)
	c.changed(e.obj, false)
}

// afterStore runs what follows a successful write: CRD registration and the
// end of a deletion once the last finalizer is gone.
func (c *Cluster) afterStore(k *kindInfo, key objKey, e *entry) {
	if k.apiVersion == crdAPIVersion && k.kind == crdKind {
		c.syncCRD(e)
	}
	if metaString(e.obj, "deletionTimestamp") == "" {
		return
	}
	if k.apiVersion == "v1" && k.kind == "Namespace" {
		c.reconcileNamespace(key.name)
		return
	}
	if len(stringList(metadata(e.obj)["finalizers"])) == 0 {
		c.remove(key)
		return
	}
	// A foreground deletion may have been waiting for this object's change.
	c.reconcileForeground(metaString(e.obj, "uid"))
}

// remove takes an object out of storage and collects what depended on it.
func (c *Cluster) remove(key objKey) map[string]any {
	e, found := c.objects[key]
	if !found {
		return nil
	}
	delete(c.objects, key)
	c.index(key, nil)
	e.forget(c.frozen)
	c.changed(e.obj, false)
	uid := metaString(e.obj, "uid")
	delete(c.byUID, uid)
	c.rv++
	if key.apiVersion == crdAPIVersion && key.kind == crdKind {
		c.dropCRD(key.name)
	}
	c.collectDependents(uid)
	for _, ref := range ownerRefs(e.obj) {
		c.reconcileForeground(ref.uid)
	}
	if key.namespace != "" {
		c.reconcileNamespace(key.namespace)
	}
	return e.obj
}

type ownerRef struct {
	uid   string
	block bool
}

func ownerRefs(obj map[string]any) []ownerRef {
	l, _ := metadata(obj)["ownerReferences"].([]any)
	var out []ownerRef
	for _, r := range l {
		m, _ := r.(map[string]any)
		uid, _ := m["uid"].(string)
		block, _ := m["blockOwnerDeletion"].(bool)
		out = append(out, ownerRef{uid, block})
	}
	return out
}

// dependents returns the keys of the objects that name uid as an owner,
// sorted.
func (c *Cluster) dependents(uid string) []objKey {
	var out []objKey
	for key, e := range c.objects {
		for _, r := range ownerRefs(e.obj) {
			if r.uid == uid {
				out = append(out, key)
				break
			}
		}
	}
	sortKeys(out)
	return out
}

// ownerState classifies an owner as the garbage collector does.
func (c *Cluster) ownerState(uid string) (exists, waiting bool) {
	key, found := c.byUID[uid]
	if !found {
		return false, false
	}
	e := c.objects[key]
	waiting = metaString(e.obj, "deletionTimestamp") != "" && contains(stringList(metadata(e.obj)["finalizers"]), foregroundFinalizer)
	return true, waiting
}

// collectDependents processes the dependents of the owner uid after the
// owner was removed or started a foreground deletion. A dependent that still
// has a live owner only loses its references to absent or departing owners;
// one with no live owner left is deleted: in the foreground when an owner it
// blocks waits for it, in the background otherwise.
func (c *Cluster) collectDependents(uid string) {
	for _, dk := range c.dependents(uid) {
		d, still := c.objects[dk]
		if !still || metaString(d.obj, "deletionTimestamp") != "" {
			continue
		}
		solid, foreground := false, false
		var drop []string
		for _, r := range ownerRefs(d.obj) {
			exists, waiting := c.ownerState(r.uid)
			switch {
			case exists && !waiting:
				solid = true
			case waiting:
				drop = append(drop, r.uid)
				if r.block {
					foreground = true
				}
			default:
				drop = append(drop, r.uid)
			}
		}
		if solid {
			c.removeOwnerRefs(d, drop)
			continue
		}
		prop := "Background"
		if foreground {
			prop = "Foreground"
		}
		c.deleteObject(dk, prop)
	}
}

// removeOwnerRefs drops the owner references to the given uids from a
// stored object, as the garbage collector's patch does.
func (c *Cluster) removeOwnerRefs(e *entry, uids []string) {
	if len(uids) == 0 {
		return
	}
	l, _ := metadata(e.obj)["ownerReferences"].([]any)
	var kept []any
	for _, r := range l {
		m, _ := r.(map[string]any)
		if uid, _ := m["uid"].(string); !contains(uids, uid) {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(l) {
		return
	}
	md := metadata(e.own(c.frozen))
	if len(kept) == 0 {
		delete(md, "ownerReferences")
	} else {
		md["ownerReferences"] = kept
	}
	c.touch(e)
}

// orphanDependents removes the owner references to uid from its dependents.
func (c *Cluster) orphanDependents(uid string) {
	for _, dk := range c.dependents(uid) {
		c.removeOwnerRefs(c.objects[dk], []string{uid})
	}
}

// reconcileForeground finishes a foreground deletion of the owner uid once
// no dependent that blocks it remains.
func (c *Cluster) reconcileForeground(uid string) {
	exists, waiting := c.ownerState(uid)
	if !exists || !waiting {
		return
	}
	for _, dk := range c.dependents(uid) {
		for _, r := range ownerRefs(c.objects[dk].obj) {
			if r.uid == uid && r.block {
				return
			}
		}
	}
	key := c.byUID[uid]
	e := c.objects[key]
	md := metadata(e.own(c.frozen))
	var fins []string
	for _, f := range stringList(md["finalizers"]) {
		if f != foregroundFinalizer {
			fins = append(fins, f)
		}
	}
	if len(fins) == 0 {
		delete(md, "finalizers")
		c.remove(key)
		return
	}
	md["finalizers"] = toAnyList(fins)
	c.touch(e)
}

// deleteNamespaceContent deletes every object in a namespace, as the
// namespace controller does, in a fixed order.
func (c *Cluster) deleteNamespaceContent(ns string) {
	var keys []objKey
	for key := range c.objects {
		if key.namespace == ns {
			keys = append(keys, key)
		}
	}
	sortKeys(keys)
	for _, key := range keys {
		if _, still := c.objects[key]; still {
			c.deleteObject(key, "Background")
		}
	}
}

// reconcileNamespace removes a terminating namespace once it is empty and
// has no finalizers left.
func (c *Cluster) reconcileNamespace(ns string) {
	key := objKey{"v1", "Namespace", "", ns}
	e, found := c.objects[key]
	if !found || metaString(e.obj, "deletionTimestamp") == "" {
		return
	}
	if len(stringList(metadata(e.obj)["finalizers"])) > 0 {
		return
	}
	for k := range c.objects {
		if k.namespace == ns {
			return
		}
	}
	c.remove(key)
}

// syncCRD serves the versions a CustomResourceDefinition declares and
// marks it Established.
func (c *Cluster) syncCRD(e *entry) {
	name := metaString(e.obj, "name")
	group, _ := getPath(e.obj, "/spec/group")
	kind, _ := getPath(e.obj, "/spec/names/kind")
	plural, _ := getPath(e.obj, "/spec/names/plural")
	scope, _ := getPath(e.obj, "/spec/scope")
	versions, _ := getPath(e.obj, "/spec/versions")
	g, _ := group.(string)
	kd, _ := kind.(string)
	pl, _ := plural.(string)
	sc := adapters.Namespaced
	if s, _ := scope.(string); s == "Cluster" {
		sc = adapters.Cluster
	}
	for key, info := range c.kinds {
		if info.fromCRD == name {
			delete(c.kinds, key)
		}
	}
	if metaString(e.obj, "deletionTimestamp") != "" || g == "" || kd == "" {
		return
	}
	vl, _ := versions.([]any)
	for _, v := range vl {
		m, _ := v.(map[string]any)
		vn, _ := m["name"].(string)
		if served, _ := m["served"].(bool); !served || vn == "" {
			continue
		}
		_, hasStatus := getPath(m, "/subresources/status")
		c.registerLocked(g+"/"+vn, kd, sc, KindOptions{HasStatus: hasStatus, Plural: pl}, name)
	}
	if st, _ := e.obj["status"].(map[string]any); st == nil || st["conditions"] == nil {
		e.own(c.frozen)["status"] = map[string]any{
			"acceptedNames": jsonvalue.DeepCopy(e.obj["spec"].(map[string]any)["names"]),
			"conditions": []any{
				map[string]any{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "lastTransitionTime": timestamp(c.clock.Now())},
				map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "lastTransitionTime": timestamp(c.clock.Now())},
			},
		}
		c.touch(e)
	}
}

// dropCRD stops serving the kinds of a removed CustomResourceDefinition and
// removes their objects.
func (c *Cluster) dropCRD(name string) {
	var gone []kindKey
	for key, info := range c.kinds {
		if info.fromCRD == name {
			gone = append(gone, key)
		}
	}
	for _, kk := range gone {
		delete(c.kinds, kk)
		c.discovery.Add(1)
		var keys []objKey
		for key := range c.objects {
			if key.apiVersion == kk.apiVersion && key.kind == kk.kind {
				keys = append(keys, key)
			}
		}
		sort.Slice(keys, func(i, j int) bool { return keys[i].namespace+"/"+keys[i].name < keys[j].namespace+"/"+keys[j].name })
		for _, key := range keys {
			c.remove(key)
		}
	}
}
