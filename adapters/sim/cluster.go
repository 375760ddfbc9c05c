package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
	byKind map[kindNS]map[objKey]*entry
	sorted map[kindNS][]*entry // byKind's entries in List order, see sortedEntries
	// lastLists holds the last answer of each list (kind, namespace,
	// selector) with shared reads: a list that finds the same objects
	// answers the same slice again (see list).
	lastLists   map[listQuery][]map[string]any
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
	// concurrentWrites counts the writes ConcurrentWrite faults made.
	concurrentWrites int
	rng              *rand.Rand

	engineIdentity    string
	checkNamespaces   bool
	dropManagedFields bool
	// noFieldManagement: no field ownership is kept (see
	// WithoutFieldManagement).
	noFieldManagement bool
	// fullPath: every write takes the server's full path, no shortcut
	// (tests compare the two).
	fullPath bool
	staging  bool // serving Apply or a controller: no admission

	// controllersDue is when the simulated controllers next act (zero:
	// nothing to look at); at, while they act, the time they act at.
	controllersDue time.Time
	at             time.Time
}

// now is the time of what the cluster is doing: the clock's, or while
// the simulated controllers act, the time they act at.
func (c *Cluster) now() time.Time {
	if !c.at.IsZero() {
		return c.at
	}
	return c.clock.Now()
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
	// prepared is what the kind's server made of obj for the next write
	// (see server.prepare), nil until then.
	prepared any
	// by is the server whose write stored obj: the shortcuts answer only
	// for objects the same server (the same schema) stored.
	by server
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

// Release thaws every copy the cluster handed out with WithSharedReads:
// the run that read them is over. The registry can outlive the cluster (a
// mutation run shares one across all its runs, and what readers derived
// from a frozen object, jsonvalue.Remember, stays with it), so a released
// cluster leaves nothing in it. The cluster still answers afterwards; what
// it hands out then is frozen again.
func (c *Cluster) Release() {
	if c.frozen == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range c.objects {
		e.forget(c.frozen)
	}
}

// WithoutManagedFields makes Get, List and every write's answer leave out
// metadata.managedFields, as the client-go adapter's
// kube.Client.WithoutManagedFields (and the controller's informers) do.
// The cluster still keeps them: server-side apply and ManagedFields see
// them as before.
func WithoutManagedFields() Option {
	return func(c *Cluster) { c.dropManagedFields = true }
}

// WithoutFieldManagement makes a cluster keep no field ownership at all:
// no write records metadata.managedFields, and server-side apply, which
// needs them, is refused (adapters.Unsupported). It is for runs that can
// observe ownership through nothing: readers that drop managedFields (as
// WithoutManagedFields, which it implies) and no apply request, which the
// caller knows before it starts (the scenario runner, for a scenario
// whose machines and events never apply). Everything else answers as with
// field management (TestWithoutFieldManagementAnswersTheSame); ownership
// is what the server spends the most on per write.
func WithoutFieldManagement() Option {
	return func(c *Cluster) { c.noFieldManagement, c.dropManagedFields = true, true }
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
		c.registerLocked(b.apiVersion, b.kind, b.scope, KindOptions{HasStatus: b.status != nil, Plural: b.plural}, "", builtinServers[b])
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
	c.runControllers()
	now := c.now()
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
		if !k.srv.hasStatus() {
			return nil, fail(adapters.NotFound, "the server could not find the requested resource"), false
		}
		if req.Verb == adapters.Create || req.Verb == adapters.Delete || req.Verb == adapters.List {
			return nil, fail(adapters.Unsupported, "the server does not allow this method on the requested resource"), false
		}
	default:
		return nil, fail(adapters.NotFound, "the server could not find the requested resource"), false
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
		return copyObject(c.view(e.obj))
	}
	if e.frozen == nil {
		// Stored objects are never changed in place but through own.
		e.frozen = c.frozen.Refreeze(e.superseded, c.view(e.obj))
		e.superseded = nil
	}
	return e.frozen
}

// view is a stored object as readers get it: without
// metadata.managedFields with WithoutManagedFields (a copy of its top
// level and metadata then), else the object itself.
func (c *Cluster) view(obj map[string]any) map[string]any {
	if !c.dropManagedFields {
		return obj
	}
	md, _ := obj["metadata"].(map[string]any)
	if _, has := md["managedFields"]; !has {
		return obj
	}
	out := shallowMeta(obj)
	delete(out["metadata"].(map[string]any), "managedFields")
	return out
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
		return fail(adapters.Invalid, "%v", err)
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
	// With shared reads every reader gets the same object until it
	// changes: a list that finds the very objects of the last answer to
	// the same query answers that slice again (results are not to be
	// changed), which spares readers that know a list by identity a look
	// at every item. Without, every read is a new copy and nothing is kept.
	q := listQuery{kindNS{k.apiVersion, k.kind, req.Ref.Namespace}, req.LabelSelector}
	var last []map[string]any
	if c.sharedReads {
		last = c.lastLists[q]
	}
	var items []map[string]any // nil while the items so far are last[:same]
	same := 0
	for _, e := range entries {
		if !sel.Empty() && !sel.Matches(labelsOf(labelMap(e.obj))) {
			continue
		}
		obj := c.read(e)
		if items == nil {
			if same < len(last) && jsonvalue.Same(last[same], obj) {
				same++
				continue
			}
			items = make([]map[string]any, same, len(entries))
			copy(items, last[:same])
		}
		items = append(items, obj)
	}
	if items == nil {
		if same == len(last) && last != nil {
			return adapters.Result{Outcome: adapters.OK, Items: last}
		}
		items = append(make([]map[string]any, 0, same), last[:same]...)
	}
	if c.sharedReads {
		if c.lastLists == nil || len(c.lastLists) >= 4096 {
			c.lastLists = map[listQuery][]map[string]any{}
		}
		c.lastLists[q] = items
	}
	return adapters.Result{Outcome: adapters.OK, Items: items}
}

// listQuery is what a list asks for.
type listQuery struct {
	kindNS
	selector string
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
	return c.createObject(k, req, obj, false)
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

func (c *Cluster) createObject(k *kindInfo, req adapters.Request, obj map[string]any, applied bool) adapters.Result {
	name := metaString(obj, "name")
	key := keyOf(k, req.Ref.Namespace, name)
	if c.checkNamespaces && !c.staging && k.scope == adapters.Namespaced {
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
	return c.commit(k, req, key, nil, obj, applied)
}

func (c *Cluster) update(k *kindInfo, req adapters.Request) adapters.Result {
	obj, res, good := decodeBody(k, req)
	if !good {
		return res
	}
	key := keyOf(k, req.Ref.Namespace, req.Ref.Name)
	e, found := c.objects[key]
	// The server decodes the body before it looks for the object: a
	// body its types cannot hold is refused so, whether or not the
	// object exists or is current. (Checked here only where the answer
	// would otherwise be another refusal; a write that goes on decodes
	// it in commit.)
	undecodable := func() (adapters.Result, bool) {
		if _, err := k.srv.defaults(obj); err != nil {
			return statusError(err), true
		}
		return adapters.Result{}, false
	}
	if !found && req.Subresource == "" && k.srv.createOnUpdate() {
		// The registry store creates the object, as a create of the
		// body would, once the preconditions the body carries (its uid)
		// hold against nothing.
		if uid := metaString(obj, "uid"); uid != "" {
			return fail(adapters.Conflict, "Operation cannot be fulfilled on %s %q: StorageError: invalid object, Code: 4, Key: /registry/%s/%s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: %s, UID in object meta: ",
				k.resource(), req.Ref.Name, k.plural(), strings.TrimPrefix(req.Ref.Namespace+"/"+req.Ref.Name, "/"), uid)
		}
		return c.createObject(k, req, obj, false)
	}
	if !found {
		if res, bad := undecodable(); bad {
			return res
		}
		return notFound(k, req.Ref.Name)
	}
	if uid := metaString(obj, "uid"); uid != "" && uid != metaString(e.obj, "uid") {
		if res, bad := undecodable(); bad {
			return res
		}
		return fail(adapters.Conflict, "Precondition failed: UID in precondition: %s, UID in object meta: %s", uid, metaString(e.obj, "uid"))
	}
	rv := metaString(obj, "resourceVersion")
	if rv == "" && !k.srv.unconditionalUpdate() {
		return fail(adapters.Invalid, "%s %q is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update", k.resource(), req.Ref.Name)
	}
	if rv != "" && rv != metaString(e.obj, "resourceVersion") {
		if res, bad := undecodable(); bad {
			return res
		}
		return conflictModified(k, req.Ref.Name)
	}
	// An unconditional update is made against the stored version.
	metadata(obj)["resourceVersion"] = metaString(e.obj, "resourceVersion")
	return c.commit(k, req, key, e, obj, false)
}

// serverFields are metadata fields only the server sets.
var serverFields = []string{"uid", "resourceVersion", "generation", "creationTimestamp",
	"deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"}

// commit prepares, admits and (unless dry-run) stores candidate as the new
// state of key, as kube-apiserver's handlers and generic registry store
// do: the kind's server (see server) decodes, defaults, prepares and
// validates it; the field manager records the write's ownership (unless
// applied: server-side apply computed it); admission runs; a write that
// changes nothing stores nothing. old is nil for a create. candidate may
// share values with stored objects: it is not changed.
func (c *Cluster) commit(k *kindInfo, req adapters.Request, key objKey, old *entry,
	candidate map[string]any, applied bool) adapters.Result {
	now := c.now()
	obj := shallowMeta(candidate)
	md := metadata(obj)
	var oldObj map[string]any
	verb := "update"
	if old == nil {
		verb = "create"
		for _, f := range serverFields {
			delete(md, f)
		}
		md["uid"] = fmt.Sprintf("uid-%06d", c.uidSeq+1)
		md["creationTimestamp"] = timestamp(now)
	} else {
		oldObj = old.obj
		delete(md, "selfLink")
		if req.Verb == adapters.Patch {
			// A patch is applied to the stored object: it is as
			// conditional as the object it was merged into.
			md["resourceVersion"] = metaString(oldObj, "resourceVersion")
		}
	}
	// The request context the server's strategies read, made only when
	// the full path needs it.
	ctx := func() context.Context { return requestContext(k, key.namespace, key.name, verb, req.Subresource) }
	var cache *any
	if old != nil {
		cache = &old.prepared
	}
	shortcuts := !c.fullPath && !c.mutates() && !applied && (old == nil || old.by == k.srv)
	generated := false
	if b, _ := req.Body.(map[string]any); old == nil && req.Verb == adapters.Create && req.Ref.Name == "" && metaString(b, "name") == "" {
		generated = true
	}
	obj, err := k.srv.prepare(ctx, obj, oldObj, req.Subresource, cache, shortcuts, generated)
	if err != nil {
		return statusError(err)
	}
	if old != nil {
		for _, p := range k.opts.Immutable {
			ov, had := getPath(old.obj, p)
			nv, has := getPath(obj, p)
			if had && (!has || !jsonvalue.Equal(ov, nv)) {
				return fail(adapters.Invalid, "%s %q is invalid: %s: Invalid value: field is immutable", k.kind, key.name, strings.Join(jsonvalue.PointerPath(p), "."))
			}
		}
	}
	md = metadata(obj)
	if old == nil {
		md["creationTimestamp"] = timestamp(now)
		md["uid"] = fmt.Sprintf("uid-%06d", c.uidSeq+1)
		delete(md, "resourceVersion")
	}
	if !applied && !c.noFieldManagement {
		fm, err := k.srv.fields(req.Subresource)
		if err != nil {
			return statusError(err)
		}
		if obj, err = fm.update(oldObj, obj, fieldManager(req), now, gvkOf(k)); err != nil {
			return statusError(err)
		}
	}
	if res, rejected := c.admit(req, obj, old); rejected {
		return res
	}
	if _, exists := c.objects[key]; old == nil && exists {
		// The storage refuses a create of a name it holds, after the
		// strategy's validation and admission, as the server's does.
		return fail(adapters.Conflict, "%s %q already exists", k.resource(), key.name)
	}
	if old != nil && jsonvalue.Equal(old.obj, obj) {
		// A no-op write stores nothing and keeps the resourceVersion.
		return c.stored(old)
	}
	if req.DryRun {
		if c.sharedReads {
			// Readers change nothing they get: the result, which
			// nothing stores, is handed out as it is.
			return adapters.Result{Outcome: adapters.OK, Object: c.view(obj)}
		}
		return adapters.Result{Outcome: adapters.OK, Object: copyObject(c.view(obj))}
	}
	if old != nil && metaString(obj, "deletionTimestamp") != "" && len(stringList(metadata(obj)["finalizers"])) == 0 &&
		(k.apiVersion != "v1" || k.kind != "Namespace" || len(stringList(pathValue(obj, "/spec/finalizers"))) == 0) {
		// A write that removes the last finalizer of an object being
		// deleted deletes it instead of storing it (the registry store's
		// deleteWithoutFinalizers), and answers with the written object
		// at the resourceVersion it was written against.
		c.remove(key)
		if c.sharedReads {
			return adapters.Result{Outcome: adapters.OK, Object: c.view(obj)}
		}
		return adapters.Result{Outcome: adapters.OK, Object: copyObject(c.view(obj))}
	}
	c.rv++
	md = metadata(obj)
	md["resourceVersion"] = strconv.FormatInt(c.rv, 10)
	if old == nil {
		c.uidSeq++
		old = &entry{}
		c.objects[key] = old
		c.index(key, old)
		c.byUID[metaString(obj, "uid")] = key
	}
	old.thaw(c.frozen)
	old.obj = obj
	old.prepared = nil
	old.by = k.srv
	c.changed(obj, req.Subresource == "status")
	c.afterStore(k, key, old)
	return c.stored(old)
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
