package sim

import (
	"sort"
	"strconv"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Deletion as on a cluster with its controllers. The API server itself
// only marks: a delete of an object with finalizers, or with Foreground or
// Orphan propagation (which add the finalizers foregroundDeletion and
// orphan, as kube-apiserver's registry store does), sets
// deletionTimestamp and answers with the object; a delete with nothing to
// wait for removes the object at once and answers with none. The garbage
// collector and the namespace controller are played by the simulator as
// controllers of their own, with their own identities, acting
// ControllerDelay after what they react to (see RunControllers): their
// requests are in the request log, and so in a scenario's trace.

const (
	foregroundFinalizer = "foregroundDeletion"
	orphanFinalizer     = "orphan"
	crdAPIVersion       = "apiextensions.k8s.io/v1"
	crdKind             = "CustomResourceDefinition"

	// GarbageCollectorIdentity and NamespaceControllerIdentity are the
	// users the simulated controllers act as, as kube-controller-manager's
	// do.
	GarbageCollectorIdentity    = "system:serviceaccount:kube-system:generic-garbage-collector"
	NamespaceControllerIdentity = "system:serviceaccount:kube-system:namespace-controller"
)

// ControllerDelay is how long after what they react to the simulated
// garbage collector and namespace controller act.
const ControllerDelay = time.Second

func (c *Cluster) delete(k *kindInfo, req adapters.Request) adapters.Result {
	key := keyOf(k, req.Ref.Namespace, req.Ref.Name)
	e, found := c.objects[key]
	if !found {
		return notFound(k, req.Ref.Name)
	}
	switch req.Propagation {
	case "", "Background", "Foreground", "Orphan":
	default:
		return fail(adapters.Invalid, "DeleteOptions.propagationPolicy: Unsupported value: %q: supported values: \"Foreground\", \"Background\", \"Orphan\"", req.Propagation)
	}
	if res, rejected := c.admit(req, copyObject(e.obj), e); rejected {
		return res
	}
	md := metadata(e.obj)
	fins := stringList(md["finalizers"])
	isNamespace := k.apiVersion == "v1" && k.kind == "Namespace"
	if isNamespace {
		if res, done := c.deleteNamespace(req, key, e, fins); done {
			return res
		}
	}
	policy := k.srv.gcPolicy(requestContext(k, key.namespace, key.name, "delete", ""))
	newFins := gcFinalizers(fins, req.Propagation, policy)
	_, nsFinalizers := getPath(e.obj, "/spec/finalizers")
	nsFinalizers = isNamespace && nsFinalizers && len(stringList(pathValue(e.obj, "/spec/finalizers"))) > 0
	if len(newFins) == 0 && !nsFinalizers {
		// Nothing to wait for: the object goes now.
		if req.DryRun && len(fins) > 0 {
			// The registry store answers a dry run that first had
			// finalizers to update with the object its update left
			// (updateForGracefulDeletionAndFinalizers): a new, empty
			// one, as that update stopped to delete at once.
			return adapters.Result{Outcome: adapters.OK, Object: k.srv.empty(k)}
		}
		if !req.DryRun {
			c.remove(key)
		}
		return adapters.Result{Outcome: adapters.OK}
	}
	deleting := metaString(e.obj, "deletionTimestamp") != ""
	if deleting && sameStrings(fins, newFins) {
		return c.stored(e) // already being deleted: nothing changes
	}
	obj := shallowMeta(e.obj)
	if !sameStrings(fins, newFins) {
		metadata(obj)["finalizers"] = toAnyList(newFins)
	}
	c.markDeleting(obj)
	if req.DryRun {
		return adapters.Result{Outcome: adapters.OK, Object: copyObject(c.view(obj))}
	}
	e.forget(c.frozen)
	e.obj = obj
	e.prepared = nil
	c.touch(e)
	c.afterDeletionMark(key)
	return c.stored(e)
}

// deleteNamespace is what the namespace registry's Delete does before it
// hands a delete to the generic store: the first delete only marks the
// namespace (deletionTimestamp, status.phase Terminating, and the orphan
// and foregroundDeletion finalizers as the request's propagation says,
// else as the namespace has them; no deletionGracePeriodSeconds, no
// generation) and answers with it, whatever finalizers it has; a later
// delete while spec.finalizers is not empty answers with the namespace as
// it is. done is false where the generic delete follows.
func (c *Cluster) deleteNamespace(req adapters.Request, key objKey, e *entry, fins []string) (adapters.Result, bool) {
	if metaString(e.obj, "deletionTimestamp") != "" {
		if len(stringList(pathValue(e.obj, "/spec/finalizers"))) > 0 {
			return c.stored(e), true
		}
		return adapters.Result{}, false
	}
	orphan, foreground := contains(fins, orphanFinalizer), contains(fins, foregroundFinalizer)
	if req.Propagation != "" {
		orphan, foreground = req.Propagation == "Orphan", req.Propagation == "Foreground"
	}
	newFins := []string{}
	for _, f := range fins {
		if f != orphanFinalizer && f != foregroundFinalizer {
			newFins = append(newFins, f)
		}
	}
	if orphan {
		newFins = append(newFins, orphanFinalizer)
	}
	if foreground {
		newFins = append(newFins, foregroundFinalizer)
	}
	obj := shallowMeta(e.obj)
	md := metadata(obj)
	if !sameStrings(fins, newFins) {
		md["finalizers"] = toAnyList(newFins)
	}
	md["deletionTimestamp"] = timestamp(c.now())
	st, _ := obj["status"].(map[string]any)
	ns := make(map[string]any, len(st)+1)
	for k, v := range st {
		ns[k] = v
	}
	ns["phase"] = "Terminating"
	obj["status"] = ns
	if req.DryRun {
		return adapters.Result{Outcome: adapters.OK, Object: copyObject(c.view(obj))}, true
	}
	e.forget(c.frozen)
	e.obj = obj
	e.prepared = nil
	c.touch(e)
	c.afterDeletionMark(key)
	return c.stored(e), true
}

// gcFinalizers is what kube-apiserver's registry store makes of an
// object's finalizers when it is deleted with the given propagation
// (deletionFinalizersForGarbageCollection): orphan for Orphan,
// foregroundDeletion for Foreground, neither for Background; without a
// policy the object's own choice stands, else the kind's default (policy:
// Orphan for a batch/v1 Job). A kind whose policy is Unsupported (Events)
// gets neither, whatever the request says.
func gcFinalizers(fins []string, propagation string, policy rest.GarbageCollectionPolicy) []string {
	if policy == rest.Unsupported {
		return fins
	}
	orphan, foreground := false, false
	switch propagation {
	case "Orphan":
		orphan = true
	case "Foreground":
		foreground = true
	case "":
		for _, f := range fins {
			switch f {
			case orphanFinalizer:
				orphan = true
			case foregroundFinalizer:
				foreground = true
			}
		}
		if orphan && foreground {
			foreground = false // the first wins, as shouldOrphanDependents reads them
			for _, f := range fins {
				if f == foregroundFinalizer {
					foreground, orphan = true, false
					break
				}
				if f == orphanFinalizer {
					break
				}
			}
		}
		if !orphan && !foreground {
			orphan = policy == rest.OrphanDependents
		}
	}
	out := []string{}
	for _, f := range fins {
		if f != orphanFinalizer && f != foregroundFinalizer {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, orphanFinalizer)
	}
	if foreground {
		out = append(out, foregroundFinalizer)
	}
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[string]int{}
	for _, s := range a {
		seen[s]++
	}
	for _, s := range b {
		seen[s]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}

// markDeleting sets deletionTimestamp, as the registry store does for an
// object that cannot go at once (markAsDeleting): generation bumped once
// where the kind keeps one, grace period 0; a namespace starts
// Terminating.
func (c *Cluster) markDeleting(obj map[string]any) {
	md := metadata(obj)
	if metaString(obj, "deletionTimestamp") == "" {
		if g := generationOf(obj); g > 0 {
			md["generation"] = g + 1
		}
		md["deletionTimestamp"] = timestamp(c.now())
	}
	md["deletionGracePeriodSeconds"] = int64(0)
	if obj["apiVersion"] == "v1" && obj["kind"] == "Namespace" {
		st, _ := obj["status"].(map[string]any)
		ns := make(map[string]any, len(st)+1)
		for k, v := range st {
			ns[k] = v
		}
		ns["phase"] = "Terminating"
		obj["status"] = ns
	}
}

// touch records a server-side change of a stored object, made in place on
// e.own(c.frozen) or by replacing e.obj: a new resourceVersion.
func (c *Cluster) touch(e *entry) {
	c.rv++
	metadata(e.obj)["resourceVersion"] = strconv.FormatInt(c.rv, 10)
	e.thaw(c.frozen)
	e.prepared = nil
	c.changed(e.obj, false)
}

// afterStore runs what follows a successful write: CRD registration, the
// end of a deletion once nothing holds it any more, and a look by the
// garbage collector at owner references that name no object.
func (c *Cluster) afterStore(k *kindInfo, key objKey, e *entry) {
	if k.apiVersion == crdAPIVersion && k.kind == crdKind {
		c.syncCRD(e)
	}
	if metaString(e.obj, "deletionTimestamp") != "" {
		if len(stringList(metadata(e.obj)["finalizers"])) == 0 &&
			(k.apiVersion != "v1" || k.kind != "Namespace" || len(stringList(pathValue(e.obj, "/spec/finalizers"))) == 0) {
			c.remove(key)
			return
		}
		c.wakeControllers()
		return
	}
	for _, r := range ownerRefs(e.obj) {
		if exists, _, _, unknown := c.ownerState(r, key.namespace); !exists && !unknown {
			c.wakeControllers()
			return
		}
	}
}

func (c *Cluster) afterDeletionMark(key objKey) {
	c.wakeControllers()
}

// remove takes an object out of storage.
func (c *Cluster) remove(key objKey) {
	e, found := c.objects[key]
	if !found {
		return
	}
	delete(c.objects, key)
	c.index(key, nil)
	e.forget(c.frozen)
	c.changed(e.obj, false)
	delete(c.byUID, metaString(e.obj, "uid"))
	c.rv++
	if key.apiVersion == crdAPIVersion && key.kind == crdKind {
		c.dropCRD(key.name)
	}
	c.wakeControllers()
}

// wakeControllers asks the garbage collector and the namespace controller
// to look at the cluster ControllerDelay from now (or sooner, if they are
// already due).
func (c *Cluster) wakeControllers() {
	at := c.now().Add(ControllerDelay)
	if c.controllersDue.IsZero() || at.Before(c.controllersDue) {
		c.controllersDue = at
	}
}

// NextControllerRun reports when the simulated controllers next act, if
// they have anything to look at. A driver that moves the clock runs them
// then with RunControllers; a request served at or after that time runs
// them first in any case.
func (c *Cluster) NextControllerRun() (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.controllersDue, !c.controllersDue.IsZero()
}

// RunControllers lets the garbage collector and the namespace controller
// act on what they are due to look at by the clock's time.
func (c *Cluster) RunControllers() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runControllers()
}

// runControllers runs every controller pass due by now, each at its due
// time (what a pass does may wake them again, ControllerDelay later).
func (c *Cluster) runControllers() {
	now := c.clock.Now()
	for !c.controllersDue.IsZero() && !c.controllersDue.After(now) {
		at := c.controllersDue
		c.controllersDue = time.Time{}
		c.at = at
		c.collectGarbage()
		c.finishNamespaces()
		c.at = time.Time{}
	}
}

// controllerDo carries out a controller's request, logged as its own,
// without RBAC, faults or admission.
func (c *Cluster) controllerDo(req adapters.Request) adapters.Result {
	saved := c.staging
	c.staging = true
	defer func() { c.staging = saved }()
	var res adapters.Result
	k, found := c.kinds[kindKey{req.Ref.APIVersion, req.Ref.Kind}]
	switch {
	case !found:
		res = fail(adapters.NotFound, "the server could not find the requested resource")
	case req.Verb == adapters.Delete:
		res = c.delete(k, req)
	case req.Subresource == "finalize":
		res = c.finalize(k, req)
	default:
		res = c.patch(k, req)
	}
	c.records = append(c.records, Record{
		Time: c.now(), Verb: req.Verb, Ref: req.Ref, Subresource: req.Subresource,
		PatchType: req.PatchType, Identity: req.Identity, FieldManager: req.FieldManager,
		Outcome: res.Outcome, Message: res.Message,
	})
	return res
}

type ownerRef struct {
	apiVersion, kind, name, uid string
	block                       bool
}

func ownerRefs(obj map[string]any) []ownerRef {
	l, _ := metadata(obj)["ownerReferences"].([]any)
	var out []ownerRef
	for _, r := range l {
		m, _ := r.(map[string]any)
		var o ownerRef
		o.apiVersion, _ = m["apiVersion"].(string)
		o.kind, _ = m["kind"].(string)
		o.name, _ = m["name"].(string)
		o.uid, _ = m["uid"].(string)
		o.block, _ = m["blockOwnerDeletion"].(bool)
		out = append(out, o)
	}
	return out
}

// sortedObjectKeys returns the keys of every stored object, sorted.
func (c *Cluster) sortedObjectKeys() []objKey {
	keys := make([]objKey, 0, len(c.objects))
	for key := range c.objects {
		keys = append(keys, key)
	}
	sortKeys(keys)
	return keys
}

// ownerState classifies the owner a reference names as the garbage
// collector does: it looks the owner up by kind and name (in the
// dependent's namespace, for a namespaced kind) and compares uids. An
// owner of a kind the server does not serve cannot be looked up: the
// collector leaves such a dependent alone (unknown).
func (c *Cluster) ownerState(r ownerRef, namespace string) (exists, waiting, orphaning, unknown bool) {
	k, served := c.kinds[kindKey{r.apiVersion, r.kind}]
	if !served {
		return false, false, false, true
	}
	ns := namespace
	if k.scope == adapters.Cluster {
		ns = ""
	}
	e, found := c.objects[keyOf(k, ns, r.name)]
	if !found || metaString(e.obj, "uid") != r.uid {
		return false, false, false, false
	}
	if metaString(e.obj, "deletionTimestamp") == "" {
		return true, false, false, false
	}
	fins := stringList(metadata(e.obj)["finalizers"])
	return true, contains(fins, foregroundFinalizer), contains(fins, orphanFinalizer), false
}

// collectGarbage is one pass of the garbage collector over the cluster:
// orphaning dependents of owners deleted with Orphan, deleting the
// dependents of owners that are gone or wait for them in the foreground
// (references to them dropped where another owner remains), and ending the
// foreground and orphan deletions nothing holds any more.
func (c *Cluster) collectGarbage() {
	keys := c.sortedObjectKeys()
	dependents := map[string][]objKey{}
	for _, key := range keys {
		for _, r := range ownerRefs(c.objects[key].obj) {
			dependents[r.uid] = append(dependents[r.uid], key)
		}
	}
	// Owners deleted with Orphan: their dependents lose the reference,
	// then the owner its finalizer.
	for _, key := range keys {
		e, still := c.objects[key]
		if !still || metaString(e.obj, "deletionTimestamp") == "" || !contains(stringList(metadata(e.obj)["finalizers"]), orphanFinalizer) {
			continue
		}
		uid := metaString(e.obj, "uid")
		for _, dk := range dependents[uid] {
			if d, ok := c.objects[dk]; ok {
				c.dropOwnerRefs(dk, d, []string{uid})
			}
		}
		c.dropFinalizer(key, orphanFinalizer)
	}
	// Dependents whose owners are gone or wait for them.
	for _, dk := range keys {
		d, still := c.objects[dk]
		if !still || metaString(d.obj, "deletionTimestamp") != "" {
			continue
		}
		refs := ownerRefs(d.obj)
		if len(refs) == 0 {
			continue
		}
		solid, foreground, affected, unknown := false, false, false, false
		var drop []string
		for _, r := range refs {
			exists, waiting, orphaning, unresolved := c.ownerState(r, dk.namespace)
			switch {
			case unresolved:
				unknown = true
			case exists && !waiting && !orphaning:
				solid = true
			case waiting:
				affected = true
				drop = append(drop, r.uid)
				if r.block {
					foreground = true
				}
			case !exists:
				affected = true
				drop = append(drop, r.uid)
			default:
				solid = true // orphaning: handled above
			}
		}
		if !affected || unknown {
			continue
		}
		if solid {
			c.dropOwnerRefs(dk, d, drop)
			continue
		}
		prop := "Background"
		if foreground {
			prop = "Foreground"
		}
		c.controllerDo(adapters.Request{Verb: adapters.Delete, Ref: refOfKey(dk), Propagation: prop, Identity: GarbageCollectorIdentity})
	}
	// Foreground deletions no blocking dependent holds any more.
	for _, key := range keys {
		e, still := c.objects[key]
		if !still || metaString(e.obj, "deletionTimestamp") == "" || !contains(stringList(metadata(e.obj)["finalizers"]), foregroundFinalizer) {
			continue
		}
		uid := metaString(e.obj, "uid")
		blocked := false
		for _, dk := range dependents[uid] {
			d, ok := c.objects[dk]
			if !ok {
				continue
			}
			for _, r := range ownerRefs(d.obj) {
				if r.uid == uid && r.block {
					blocked = true
				}
			}
		}
		if !blocked {
			c.dropFinalizer(key, foregroundFinalizer)
		}
	}
}

// dropOwnerRefs removes the owner references to uids from a dependent, as
// the garbage collector's patch does.
func (c *Cluster) dropOwnerRefs(key objKey, e *entry, uids []string) {
	l, _ := metadata(e.obj)["ownerReferences"].([]any)
	kept := []any{}
	for _, r := range l {
		m, _ := r.(map[string]any)
		if uid, _ := m["uid"].(string); !contains(uids, uid) {
			kept = append(kept, r)
		}
	}
	if len(kept) == len(l) {
		return
	}
	var refs any = kept
	if len(kept) == 0 {
		refs = nil
	}
	c.controllerDo(adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: refOfKey(key),
		Body: map[string]any{"metadata": map[string]any{"ownerReferences": refs}}, Identity: GarbageCollectorIdentity,
		FieldManager: "kube-controller-manager"})
}

// dropFinalizer removes one finalizer of a stored object, as the garbage
// collector's patch does; without finalizers left, the object goes.
func (c *Cluster) dropFinalizer(key objKey, fin string) {
	e := c.objects[key]
	var kept []any
	for _, f := range stringList(metadata(e.obj)["finalizers"]) {
		if f != fin {
			kept = append(kept, f)
		}
	}
	var fins any = kept
	if len(kept) == 0 {
		fins = nil
	}
	c.controllerDo(adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: refOfKey(key),
		Body: map[string]any{"metadata": map[string]any{"finalizers": fins}}, Identity: GarbageCollectorIdentity,
		FieldManager: "kube-controller-manager"})
}

// finishNamespaces is one pass of the namespace controller: every
// terminating namespace has its content deleted (in the background, in a
// fixed order) and, once empty, its "kubernetes" finalizer removed through
// the finalize subresource, after which the server removes it.
func (c *Cluster) finishNamespaces() {
	var namespaces []string
	for key, e := range c.objects {
		if key.apiVersion == "v1" && key.kind == "Namespace" && metaString(e.obj, "deletionTimestamp") != "" {
			namespaces = append(namespaces, key.name)
		}
	}
	sort.Strings(namespaces)
	for _, ns := range namespaces {
		var content []objKey
		for key := range c.objects {
			if key.namespace == ns {
				content = append(content, key)
			}
		}
		sortKeys(content)
		if len(content) > 0 {
			for _, key := range content {
				if e, still := c.objects[key]; still && metaString(e.obj, "deletionTimestamp") == "" {
					c.controllerDo(adapters.Request{Verb: adapters.Delete, Ref: refOfKey(key), Propagation: "Background", Identity: NamespaceControllerIdentity})
				}
			}
			continue
		}
		key := objKey{"v1", "Namespace", "", ns}
		if contains(stringList(pathValue(c.objects[key].obj, "/spec/finalizers")), "kubernetes") {
			c.controllerDo(adapters.Request{Verb: adapters.Update, Ref: refOfKey(key), Subresource: "finalize", Identity: NamespaceControllerIdentity})
		}
	}
}

// finalize removes the "kubernetes" finalizer of a terminating namespace,
// as the namespace controller's update of namespaces/finalize does.
func (c *Cluster) finalize(k *kindInfo, req adapters.Request) adapters.Result {
	key := keyOf(k, "", req.Ref.Name)
	e, found := c.objects[key]
	if !found {
		return notFound(k, req.Ref.Name)
	}
	obj := shallowMeta(e.obj)
	spec, _ := obj["spec"].(map[string]any)
	ns := make(map[string]any, len(spec))
	for k, v := range spec {
		ns[k] = v
	}
	var kept []any
	for _, f := range stringList(spec["finalizers"]) {
		if f != "kubernetes" {
			kept = append(kept, f)
		}
	}
	if len(kept) == 0 {
		delete(ns, "finalizers")
	} else {
		ns["finalizers"] = kept
	}
	obj["spec"] = ns
	return c.commit(k, req, key, e, obj, false)
}

func refOfKey(k objKey) adapters.Ref {
	return adapters.Ref{APIVersion: k.apiVersion, Kind: k.kind, Namespace: k.namespace, Name: k.name}
}

// syncCRD serves the versions a CustomResourceDefinition declares, each
// compiled by apiextensions-apiserver's code (see customServer), and marks
// it Established. A version that cannot be served is left out.
func (c *Cluster) syncCRD(e *entry) {
	name := metaString(e.obj, "name")
	for key, info := range c.kinds {
		if info.fromCRD == name {
			delete(c.kinds, key)
			c.discovery.Add(1)
		}
	}
	if metaString(e.obj, "deletionTimestamp") != "" {
		return
	}
	crd, err := crdOf(e.obj)
	if err != nil || crd.Spec.Group == "" || crd.Spec.Names.Kind == "" {
		return
	}
	sc := adapters.Namespaced
	if crd.Spec.Scope == "Cluster" {
		sc = adapters.Cluster
	}
	for _, v := range crd.Spec.Versions {
		if !v.Served || v.Name == "" {
			continue
		}
		srv, err := cachedCustomServer(crd, v.Name)
		if err != nil {
			continue
		}
		c.registerLocked(crd.Spec.Group+"/"+v.Name, crd.Spec.Names.Kind, sc,
			KindOptions{HasStatus: srv.hasStatus(), Plural: crd.Spec.Names.Plural}, name, srv)
	}
	if st, _ := e.obj["status"].(map[string]any); st == nil || st["conditions"] == nil {
		obj := shallowMeta(e.obj)
		obj["status"] = map[string]any{
			"acceptedNames": jsonvalue.DeepCopy(e.obj["spec"].(map[string]any)["names"]),
			"conditions": []any{
				map[string]any{"type": "NamesAccepted", "status": "True", "reason": "NoConflicts", "message": "no conflicts found", "lastTransitionTime": timestamp(c.now())},
				map[string]any{"type": "Established", "status": "True", "reason": "InitialNamesAccepted", "message": "the initial names have been accepted", "lastTransitionTime": timestamp(c.now())},
			},
			"storedVersions": storedVersions(crd),
		}
		e.forget(c.frozen)
		e.obj = obj
		e.prepared = nil
		c.touch(e)
	}
}

func storedVersions(crd *apiextensionsv1.CustomResourceDefinition) []any {
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			return []any{v.Name}
		}
	}
	return []any{}
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
