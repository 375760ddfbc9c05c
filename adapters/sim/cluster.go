package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/statecraft/statecraft/adapters"
)

// Cluster is an in-memory Kubernetes API server. It implements adapters.API.
// All methods are safe for concurrent use; requests are served one at a time,
// in the order they arrive, so a single-threaded driver sees a deterministic
// history.
type Cluster struct {
	mu    sync.Mutex
	clock *Clock

	kinds   map[kindKey]*kindInfo
	objects map[objKey]*entry
	// byKind indexes objects by apiVersion, kind and namespace, for List.
	byKind      map[kindNS]map[objKey]*entry
	sorted      map[kindNS][]*entry // byKind's entries in List order, see sortedEntries
	sharedReads bool
	// frozen registers the copies shared reads hand out (WithRegistry).
	frozen    *jsonvalue.Registry
	byUID     map[string]objKey
	onChange  []func(Change)
	spare     []Record      // see TakeRecords
	discovery atomic.Uint64 // changes to the served kinds (read without the lock)

	rv      int64 // last resourceVersion handed out
	uidSeq  int64
	nameSeq int64 // suffixes for metadata.generateName

	records    []Record
	denials    []Denial
	admissions []Admission
	faults     []*faultState
	rng        *rand.Rand

	engineIdentity  string
	checkNamespaces bool
}

// Cluster serves the same interface as the client-go adapter.
var _ adapters.API = (*Cluster)(nil)

type objKey struct{ apiVersion, kind, namespace, name string }

type entry struct {
	obj map[string]any
	// frozen, with WithSharedReads, is obj once handed to readers (frozen);
	// nil until first read after a change.
	frozen map[string]any
	// superseded is the copy handed out before the object last changed,
	// still frozen until the next copy is (it shares most of it).
	superseded map[string]any
	// managed records which manager owns which leaf fields (JSON pointers).
	managed map[managerKey]map[string]bool
}

// own gives e a private copy of its object, to change in place: with
// WithSharedReads the stored object is the one readers share, and a
// write's result shares what it did not change with the object it
// replaced. (Writes change nothing in place: they build a candidate.)
func (e *entry) own(reg *jsonvalue.Registry) map[string]any {
	e.forget(reg)
	e.obj = copyObject(e.obj)
	return e.obj
}

// thaw drops the copy handed to readers: the object changed. The last
// copy handed out stays frozen until the next is (see read), which keeps
// what the two share frozen and remembered.
func (e *entry) thaw(reg *jsonvalue.Registry) {
	if e.frozen != nil {
		if e.superseded != nil {
			reg.Thaw(e.superseded)
		}
		e.superseded, e.frozen = e.frozen, nil
	}
}

// forget thaws everything e handed out: it is gone or changed in place.
func (e *entry) forget(reg *jsonvalue.Registry) {
	e.thaw(reg)
	reg.Thaw(e.superseded)
	e.superseded = nil
}

// Option configures a Cluster.
type Option func(*Cluster)

// WithSeed seeds the random source used by rate-based faults (PCG). The
// default seed is 1.
func WithSeed(seed uint64) Option {
	return func(c *Cluster) { c.rng = rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
}

// WithEngineIdentity names the engine's own account in messages (requests
// with an empty Identity). Default: DefaultEngineIdentity.
func WithEngineIdentity(name string) Option {
	return func(c *Cluster) { c.engineIdentity = name }
}

// WithSharedReads makes Get and List hand every reader the same copy of
// an object until it changes, instead of a copy each: for long simulations
// whose readers never modify what they read (the engine does not). The
// copies are frozen in reg (nil: a registry of the cluster's own), which
// the readers may share to ask about them (jsonvalue.Registry).
func WithSharedReads(reg *jsonvalue.Registry) Option {
	return func(c *Cluster) {
		c.sharedReads = true
		if reg == nil {
			reg = jsonvalue.NewRegistry()
		}
		c.frozen = reg
	}
}

// WithoutNamespaceCheck lets Create put namespaced objects in namespaces
// that do not exist. By default, as a real API server, Create answers
// NotFound when the namespace is missing and Forbidden when it is being
// deleted.
func WithoutNamespaceCheck() Option {
	return func(c *Cluster) { c.checkNamespaces = false }
}

// DefaultEngineIdentity is the user name of the engine's own account.
const DefaultEngineIdentity = "system:serviceaccount:statecraft-system:statecraft"

// DefaultNamespaces exist in every new Cluster, as in a fresh real cluster.
var DefaultNamespaces = []string{"default", "kube-node-lease", "kube-public", "kube-system"}

// New returns a cluster whose timestamps come from clock (a clock at
// DefaultEpoch when nil), serving the built-in kinds and holding the
// DefaultNamespaces.
func New(clock *Clock, opts ...Option) *Cluster {
	if clock == nil {
		clock = NewClock(DefaultEpoch)
	}
	c := &Cluster{
		clock:           clock,
		kinds:           map[kindKey]*kindInfo{},
		objects:         map[objKey]*entry{},
		byKind:          map[kindNS]map[objKey]*entry{},
		sorted:          map[kindNS][]*entry{},
		byUID:           map[string]objKey{},
		engineIdentity:  DefaultEngineIdentity,
		checkNamespaces: true,
	}
	WithSeed(1)(c)
	for _, b := range builtinKinds {
		c.registerLocked(b.apiVersion, b.kind, b.scope, b.opts, "")
	}
	for _, o := range opts {
		o(c)
	}
	for _, ns := range DefaultNamespaces {
		c.stage(map[string]any{
			"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": ns},
			"spec":     map[string]any{"finalizers": []any{"kubernetes"}},
			"status":   map[string]any{"phase": "Active"},
		})
	}
	return c
}

// Clock returns the cluster's clock.
func (c *Cluster) Clock() *Clock { return c.clock }

// Do carries out one request and records it in the request log.
func (c *Cluster) Do(ctx context.Context, req adapters.Request) adapters.Result {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.clock.Now()
	var res adapters.Result
	if err := ctx.Err(); err != nil {
		res = fail(adapters.Transient, "request not sent: %v", err)
	} else {
		res = c.serve(req)
	}
	c.records = append(c.records, Record{
		Time: now, Verb: req.Verb, Ref: req.Ref, Subresource: req.Subresource,
		PatchType: req.PatchType, DryRun: req.DryRun, Identity: req.Identity,
		FieldManager: req.FieldManager, Outcome: res.Outcome, Message: res.Message,
	})
	return res
}

func (c *Cluster) serve(req adapters.Request) adapters.Result {
	if res, denied := c.authorize(req); denied {
		return res
	}
	if res, faulted := c.injectFault(req); faulted {
		return res
	}
	k, res, ok := c.resolve(req)
	if !ok {
		return res
	}
	switch req.Verb {
	case adapters.Get:
		return c.get(k, req)
	case adapters.List:
		return c.list(k, req)
	case adapters.Create:
		return c.create(k, req)
	case adapters.Update:
		return c.update(k, req)
	case adapters.Patch:
		return c.patch(k, req)
	case adapters.Delete:
		return c.delete(k, req)
	}
	return fail(adapters.Unsupported, "verb %q is not supported", req.Verb)
}

// resolve finds the kind in discovery and checks the request's scope and
// subresource against it.
func (c *Cluster) resolve(req adapters.Request) (*kindInfo, adapters.Result, bool) {
	r := req.Ref
	k, ok := c.kinds[kindKey{r.APIVersion, r.Kind}]
	if !ok {
		return nil, fail(adapters.Unsupported,
			"the server could not find the requested resource: no kind %q is registered for version %q", r.Kind, r.APIVersion), false
	}
	switch {
	case k.scope == adapters.Cluster && r.Namespace != "":
		return nil, fail(adapters.Unsupported,
			"%s %s is cluster-scoped but the request names namespace %q", r.APIVersion, r.Kind, r.Namespace), false
	case k.scope == adapters.Namespaced && r.Namespace == "" && req.Verb != adapters.List:
		return nil, fail(adapters.Unsupported,
			"%s %s is namespaced but the request names no namespace", r.APIVersion, r.Kind), false
	}
	switch req.Subresource {
	case "":
	case "status":
		if !k.opts.HasStatus {
			return nil, fail(adapters.Unsupported,
				"the server could not find the requested resource: %s has no status subresource", k.resource()), false
		}
		if req.Verb == adapters.Create || req.Verb == adapters.Delete || req.Verb == adapters.List {
			return nil, fail(adapters.Unsupported, "%s is not allowed on the status subresource of %s", req.Verb, k.resource()), false
		}
	default:
		return nil, fail(adapters.Unsupported,
			"the server could not find the requested resource: subresource %q of %s is not served", req.Subresource, k.resource()), false
	}
	if r.Name == "" && req.Verb != adapters.List && req.Verb != adapters.Create {
		return nil, fail(adapters.Invalid, "resource name may not be empty"), false
	}
	return k, adapters.Result{}, true
}

func fail(o adapters.Outcome, format string, args ...any) adapters.Result {
	return adapters.Result{Outcome: o, Message: fmt.Sprintf(format, args...)}
}

func ok(obj map[string]any) adapters.Result {
	return adapters.Result{Outcome: adapters.OK, Object: copyObject(obj)}
}

func keyOf(k *kindInfo, namespace, name string) objKey {
	return objKey{k.apiVersion, k.kind, namespace, name}
}

func notFound(k *kindInfo, name string) adapters.Result {
	return fail(adapters.NotFound, "%s %q not found", k.resource(), name)
}

func conflictModified(k *kindInfo, name string) adapters.Result {
	return fail(adapters.Conflict,
		"Operation cannot be fulfilled on %s %q: the object has been modified; please apply your changes to the latest version and try again",
		k.resource(), name)
}

func (c *Cluster) get(k *kindInfo, req adapters.Request) adapters.Result {
	e, found := c.objects[keyOf(k, req.Ref.Namespace, req.Ref.Name)]
	if !found {
		return notFound(k, req.Ref.Name)
	}
	obj := c.read(e)
	return adapters.Result{Outcome: adapters.OK, Object: obj}
}

// read returns what a reader gets of a stored object: a deep copy, or with
// WithSharedReads one copy shared by every reader until the object changes.
func (c *Cluster) read(e *entry) map[string]any {
	if !c.sharedReads {
		return copyObject(e.obj)
	}
	if e.frozen == nil {
		// Stored objects are never changed in place but through own.
		e.frozen = c.frozen.Refreeze(e.superseded, e.obj)
		e.superseded = nil
	}
	return e.frozen
}

type kindNS struct{ apiVersion, kind, namespace string }

// index adds (or, with e nil, removes) a stored object in the List index.
func (c *Cluster) index(key objKey, e *entry) {
	ik := kindNS{key.apiVersion, key.kind, key.namespace}
	delete(c.sorted, ik)
	if e == nil {
		delete(c.byKind[ik], key)
		return
	}
	m := c.byKind[ik]
	if m == nil {
		m = map[objKey]*entry{}
		c.byKind[ik] = m
	}
	m[key] = e
}

func (c *Cluster) list(k *kindInfo, req adapters.Request) adapters.Result {
	sel, err := parseSelector(req.LabelSelector)
	if err != nil {
		return fail(adapters.Invalid, "unable to parse requirement: %v", err)
	}
	var entries []*entry
	if req.Ref.Namespace != "" {
		entries = c.sortedEntries(kindNS{k.apiVersion, k.kind, req.Ref.Namespace})
	} else {
		var keys []objKey
		for ik, m := range c.byKind {
			if ik.apiVersion == k.apiVersion && ik.kind == k.kind {
				for key := range m {
					keys = append(keys, key)
				}
			}
		}
		sortKeys(keys)
		entries = make([]*entry, len(keys))
		for i, key := range keys {
			entries[i] = c.objects[key]
		}
	}
	items := make([]map[string]any, 0, len(entries))
	for _, e := range entries {
		if len(sel) == 0 || sel.matches(stringMap(metadata(e.obj)["labels"])) {
			items = append(items, c.read(e))
		}
	}
	return adapters.Result{Outcome: adapters.OK, Items: items}
}

// sortedEntries returns the stored objects of one kind in one namespace in
// List order, remembered until an object of them is added or removed (an
// entry stays the same while its object changes). Callers must not change
// the slice.
func (c *Cluster) sortedEntries(ik kindNS) []*entry {
	if entries, ok := c.sorted[ik]; ok {
		return entries
	}
	keys := make([]objKey, 0, len(c.byKind[ik]))
	for key := range c.byKind[ik] {
		keys = append(keys, key)
	}
	sortKeys(keys)
	entries := make([]*entry, len(keys))
	for i, key := range keys {
		entries[i] = c.byKind[ik][key]
	}
	c.sorted[ik] = entries
	return entries
}

func sortKeys(keys []objKey) {
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if a.namespace != b.namespace {
			return a.namespace < b.namespace
		}
		if a.name != b.name {
			return a.name < b.name
		}
		if a.kind != b.kind {
			return a.kind < b.kind
		}
		return a.apiVersion < b.apiVersion
	})
}

// decodeBody parses a request body and checks its apiVersion, kind, name and
// namespace against the request, filling in what the body leaves out.
func decodeBody(k *kindInfo, req adapters.Request) (map[string]any, adapters.Result, bool) {
	obj, err := bodyObject(req)
	if err != nil {
		return nil, fail(adapters.Invalid, "the request body is not a valid object: %v", err), false
	}
	if res, good := fillIdentity(k, req, obj); !good {
		return nil, res, false
	}
	return obj, adapters.Result{}, true
}

func fillIdentity(k *kindInfo, req adapters.Request, obj map[string]any) (adapters.Result, bool) {
	if v, _ := obj["apiVersion"].(string); v == "" {
		obj["apiVersion"] = k.apiVersion
	} else if v != k.apiVersion {
		return fail(adapters.Invalid, "the apiVersion of the object (%s) does not match the request (%s)", v, k.apiVersion), false
	}
	if v, _ := obj["kind"].(string); v == "" {
		obj["kind"] = k.kind
	} else if v != k.kind {
		return fail(adapters.Invalid, "the kind of the object (%s) does not match the request (%s)", v, k.kind), false
	}
	md := metadata(obj)
	name, _ := md["name"].(string)
	switch {
	case name == "" && req.Ref.Name != "":
		md["name"] = req.Ref.Name
	case name != "" && req.Ref.Name != "" && name != req.Ref.Name:
		return fail(adapters.Invalid, "the name of the object (%s) does not match the name on the URL (%s)", name, req.Ref.Name), false
	}
	ns, _ := md["namespace"].(string)
	switch {
	case k.scope == adapters.Cluster:
		delete(md, "namespace")
	case ns == "":
		md["namespace"] = req.Ref.Namespace
	case ns != req.Ref.Namespace:
		return fail(adapters.Invalid, "the namespace of the provided object does not match the namespace sent on the request"), false
	}
	return adapters.Result{}, true
}

func (c *Cluster) create(k *kindInfo, req adapters.Request) adapters.Result {
	obj, res, good := decodeBody(k, req)
	if !good {
		return res
	}
	md := metadata(obj)
	if name, _ := md["name"].(string); name == "" {
		gen, _ := md["generateName"].(string)
		if gen == "" {
			return fail(adapters.Invalid, "%s is invalid: metadata.name: Required value: name or generateName is required", k.kind)
		}
		md["name"] = c.generateName(k, req.Ref.Namespace, gen, req.DryRun)
	}
	return c.createObject(k, req, obj, nil)
}

// generateName picks the first free name gen+suffix, suffixes taken from a
// counter so that names are deterministic.
func (c *Cluster) generateName(k *kindInfo, ns, gen string, dryRun bool) string {
	seq := c.nameSeq
	for {
		seq++
		name := gen + suffix(seq)
		if _, taken := c.objects[keyOf(k, ns, name)]; !taken {
			if !dryRun {
				c.nameSeq = seq
			}
			return name
		}
	}
}

// suffix renders n as five lowercase alphanumerics, like the API server's
// random generateName suffixes.
func suffix(n int64) string {
	const alphabet = "bcdfghjklmnpqrstvwxz2456789"
	b := make([]byte, 5)
	for i := 4; i >= 0; i-- {
		b[i] = alphabet[n%int64(len(alphabet))]
		n /= int64(len(alphabet))
	}
	return string(b)
}

func (c *Cluster) createObject(k *kindInfo, req adapters.Request, obj map[string]any, managed map[managerKey]map[string]bool) adapters.Result {
	name := metaString(obj, "name")
	key := keyOf(k, req.Ref.Namespace, name)
	if _, exists := c.objects[key]; exists {
		return fail(adapters.Conflict, "%s %q already exists", k.resource(), name)
	}
	if c.checkNamespaces && k.scope == adapters.Namespaced {
		ns, found := c.objects[objKey{"v1", "Namespace", "", req.Ref.Namespace}]
		if !found {
			return fail(adapters.NotFound, "namespaces %q not found", req.Ref.Namespace)
		}
		if metaString(ns.obj, "deletionTimestamp") != "" {
			return fail(adapters.Forbidden,
				"%s %q is forbidden: unable to create new content in namespace %s because it is being terminated",
				k.resource(), name, req.Ref.Namespace)
		}
	}
	return c.commit(k, req, key, nil, obj, managed)
}

func (c *Cluster) update(k *kindInfo, req adapters.Request) adapters.Result {
	obj, res, good := decodeBody(k, req)
	if !good {
		return res
	}
	key := keyOf(k, req.Ref.Namespace, req.Ref.Name)
	e, found := c.objects[key]
	if !found {
		return notFound(k, req.Ref.Name)
	}
	if uid := metaString(obj, "uid"); uid != "" && uid != metaString(e.obj, "uid") {
		return fail(adapters.Conflict, "Precondition failed: UID in precondition: %s, UID in object meta: %s", uid, metaString(e.obj, "uid"))
	}
	if rv := metaString(obj, "resourceVersion"); rv != "" && rv != metaString(e.obj, "resourceVersion") {
		return conflictModified(k, req.Ref.Name)
	}
	return c.commit(k, req, key, e, obj, nil)
}

// serverFields are metadata fields only the server sets.
var serverFields = []string{"uid", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"}

// commit validates, admits and (unless dry-run) stores candidate as the new
// state of key. old is nil for a create. managed, when not nil, is the field
// ownership to record (server-side apply computes it); otherwise ownership is
// updated as for an Update operation by req.FieldManager.
func (c *Cluster) commit(k *kindInfo, req adapters.Request, key objKey, old *entry,
	candidate map[string]any, managed map[managerKey]map[string]bool) adapters.Result {
	obj := candidate
	md := metadata(obj)
	if old == nil {
		for _, f := range serverFields {
			delete(md, f)
		}
		if k.opts.HasStatus {
			delete(obj, "status")
		}
		md["creationTimestamp"] = timestamp(c.clock.Now())
		md["generation"] = int64(1)
		if k.apiVersion == "v1" && k.kind == "Namespace" {
			obj["status"] = map[string]any{"phase": "Active"}
			if _, has := getPath(obj, "/spec/finalizers"); !has {
				setPath(obj, "/spec/finalizers", []any{"kubernetes"})
			}
		}
	} else {
		oldMD := metadata(old.obj)
		if req.Subresource == "status" {
			// Only .status may change through the status subresource.
			obj = c.candidate(old.obj)
			if st, has := candidate["status"]; has {
				obj["status"] = st
			} else {
				delete(obj, "status")
			}
			md = metadata(obj)
		} else if k.opts.HasStatus {
			if st, has := old.obj["status"]; has {
				obj["status"] = st // stored objects are never changed in place
			} else {
				delete(obj, "status")
			}
		}
		for _, f := range serverFields {
			if v, has := oldMD[f]; has {
				md[f] = jsonvalue.DeepCopy(v)
			} else {
				delete(md, f)
			}
		}
		if msg := validateUpdate(k, old.obj, obj); msg != "" {
			return fail(adapters.Invalid, "%s %q is invalid: %s", k.kind, key.name, msg)
		}
	}
	if msg := validate(k, obj); msg != "" {
		return fail(adapters.Invalid, "%s %q is invalid: %s", k.kind, key.name, msg)
	}
	if res, rejected := c.admit(req, obj, old); rejected {
		return res
	}
	dropEmptyMetadata(metadata(obj))
	if old != nil && req.Subresource == "" && specChanged(old.obj, obj) {
		md["generation"] = generationOf(old.obj) + 1
	}
	if managed == nil {
		var prev map[managerKey]map[string]bool
		var oldObj map[string]any
		if old != nil {
			prev, oldObj = old.managed, old.obj
		}
		managed = updateOwnership(k, req, c.namedByPatch(req), prev, oldObj, obj)
	}
	if old != nil && jsonvalue.Equal(old.obj, obj) {
		// A no-op write stores nothing and keeps the resourceVersion.
		if !req.DryRun {
			old.managed = managed
		}
		return c.stored(old)
	}
	if req.DryRun {
		if old == nil {
			delete(md, "resourceVersion")
		}
		if c.sharedReads {
			// Readers change nothing they get: the candidate, which
			// nothing stores, is handed out as it is.
			return adapters.Result{Outcome: adapters.OK, Object: obj}
		}
		return ok(obj)
	}
	c.rv++
	md["resourceVersion"] = strconv.FormatInt(c.rv, 10)
	if old == nil {
		c.uidSeq++
		md["uid"] = fmt.Sprintf("uid-%06d", c.uidSeq)
		old = &entry{}
		c.objects[key] = old
		c.index(key, old)
		c.byUID[metaString(obj, "uid")] = key
	}
	old.thaw(c.frozen)
	old.obj = obj
	old.managed = managed
	c.changed(obj, req.Subresource == "status")
	c.afterStore(k, key, old)
	return c.stored(old)
}

// candidate returns an object to write that shares what it can with obj,
// a stored object or a merge of one: the top level and the metadata, which
// a write changes, are its own; below them values are shared, which is
// safe because a stored object is replaced, never changed in place, below
// its metadata (the frozen copies readers get are copies). When a mutating
// admission hook is installed, which may change anything, it is a deep
// copy.
func (c *Cluster) candidate(obj map[string]any) map[string]any {
	if c.mutates() {
		return copyObject(obj)
	}
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		out[k] = v
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		m := make(map[string]any, len(md))
		for k, v := range md {
			m[k] = v
		}
		out["metadata"] = m
	}
	return out
}

// mutates reports whether an admission hook may change what is written.
func (c *Cluster) mutates() bool {
	for _, a := range c.admissions {
		if a.Mutate != nil {
			return true
		}
	}
	return false
}

// merged is candidate for the merge of a patch into old: the merge made
// its top level anew, and its metadata too when the patch touched it.
func (c *Cluster) merged(old, obj map[string]any) map[string]any {
	if c.mutates() {
		return copyObject(obj)
	}
	md, ok := obj["metadata"].(map[string]any)
	if oldMD, _ := old["metadata"].(map[string]any); ok && sameMap(md, oldMD) {
		m := make(map[string]any, len(md))
		for k, v := range md {
			m[k] = v
		}
		obj["metadata"] = m
	}
	return obj
}

func sameMap(a, b map[string]any) bool {
	return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// stored is the result of a write that leaves e stored: the object as a
// reader gets it (with WithSharedReads, the copy every reader shares).
func (c *Cluster) stored(e *entry) adapters.Result {
	obj := c.read(e)
	return adapters.Result{Outcome: adapters.OK, Object: obj}
}

func generationOf(obj map[string]any) int64 {
	g, _ := metadata(obj)["generation"].(int64)
	return g
}

// specChanged reports whether anything outside metadata and status changed.
func specChanged(old, obj map[string]any) bool {
	return !jsonvalue.Equal(withoutKeys(old, []string{"metadata", "status"}, nil),
		withoutKeys(obj, []string{"metadata", "status"}, nil))
}

// dropEmptyMetadata removes empty labels, annotations, finalizers and owner
// references, as a real API server does: ObjectMeta omits them when empty,
// so removing the last annotation leaves no annotations map at all.
func dropEmptyMetadata(md map[string]any) {
	for _, f := range []string{"labels", "annotations"} {
		if m, ok := md[f].(map[string]any); ok && len(m) == 0 {
			delete(md, f)
		}
	}
	for _, f := range []string{"finalizers", "ownerReferences"} {
		if l, ok := md[f].([]any); ok && len(l) == 0 {
			delete(md, f)
		}
	}
}

// namedByPatch returns the merge patch of a merge-patch request, whose
// members are all a write can have changed; nil for other requests, or
// when an admission hook may have changed more.
func (c *Cluster) namedByPatch(req adapters.Request) map[string]any {
	if req.Verb != adapters.Patch || req.PatchType != adapters.MergePatch || c.mutates() {
		return nil
	}
	p, _ := req.Body.(map[string]any)
	return p
}
