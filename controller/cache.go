package controller

import (
	"context"
	"errors"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Cache is an adapters.API that serves reads from shared dynamic informers
// and sends everything else to the API server. Informers for the kinds the
// machines drive are started up front; informers for other kinds are
// started on their first read (that read goes to the server) and stopped
// when unused for IdleAfter. A write the cache has not caught up with yet is
// served as written, so a reconcile never sees its own write undone. Its
// objects carry no metadata.managedFields: they are decoded without them
// (kube.Client.WithoutManagedFields), and dropped from any that has them.
type Cache struct {
	client    *kube.Client
	resync    time.Duration
	IdleAfter time.Duration
	// SharedReads hands readers the informer's own objects instead of
	// copies: for readers that never modify what they read (the engine).
	SharedReads bool
	// Frozen is where the informers freeze what they store (nil: a
	// registry of the cache's own): share it with the machines' memory
	// (fsm.Memory.Frozen) so that their functions know the objects.
	Frozen *jsonvalue.Registry
	now    func() time.Time

	mu        sync.Mutex
	informers map[schema.GroupVersionKind]*kindInformer
	// unwatchable kinds may not be listed or watched by this identity (the
	// seed's grants give only get and patch on targets): they are read
	// directly, and no informer is started for them again.
	unwatchable map[schema.GroupVersionKind]bool
	// written holds this process's own writes, by kind, namespace and name,
	// until the informer shows them (see fresh). wmu guards it; c.mu, when
	// both are held, is taken first.
	wmu      sync.Mutex
	written  map[schema.GroupVersionKind]map[string]map[string]written
	onChange func(kind schema.GroupVersionKind, old, obj *unstructured.Unstructured)
}

type kindInformer struct {
	gvk      schema.GroupVersionKind
	informer informers.GenericInformer
	stop     chan struct{}
	lastUse  time.Time
	pinned   bool // a driven kind: never stopped

	// gen counts the changes of the informer's store, and each namespace's
	// state counts and names the changes in it. They are counted by the
	// store's namespace index function, which the store calls under its
	// write lock for every object it adds, updates or deletes (after it
	// changed its items), so a count read before a read of the store is
	// never ahead of what that read returns.
	gen   atomic.Uint64
	nsGen sync.Map // namespace -> *nsChanges
	// lists holds, per namespace and label selector, the sorted list of
	// the store's objects as of a count: every list read until the next
	// change in that namespace shares it instead of listing, filtering
	// and sorting the store again, and the next snapshot of a namespace
	// is the previous one with the few objects changed since read again.
	listMu sync.Mutex
	lists  map[listKey]*listSnapshot
}

// nsChanges counts the changes in one namespace and remembers the names
// of the objects changed, for list snapshots to be brought up to date by
// reading only those again.
type nsChanges struct {
	mu  sync.Mutex
	gen uint64
	// log holds the latest changes, oldest first: the change with count
	// floor+1+i changed log[i]. Older ones are forgotten.
	log   []string
	floor uint64
}

// maxChangeLog bounds the changes remembered per namespace: a snapshot
// older than them is built again from the store.
const maxChangeLog = 1024

// changed records a change of the object name.
func (n *nsChanges) changed(name string) {
	n.mu.Lock()
	n.gen++
	if len(n.log) == maxChangeLog {
		drop := maxChangeLog / 2
		n.log = append(n.log[:0], n.log[drop:]...)
		n.floor += uint64(drop)
	}
	n.log = append(n.log, name)
	n.mu.Unlock()
}

func (n *nsChanges) count() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.gen
}

// since returns the current count and the names changed after count from
// (duplicates included), or ok false when those are forgotten or more than
// limit.
func (n *nsChanges) since(from uint64, limit int) (gen uint64, names []string, ok bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if from < n.floor || n.gen-from > uint64(limit) {
		return n.gen, nil, false
	}
	return n.gen, append(names, n.log[from-n.floor:]...), true
}

type listKey struct{ namespace, selector string }

// listSnapshot is one list read of the store, sorted by namespace, then
// name. Its objects are the informer's own: never modified.
type listSnapshot struct {
	gen  uint64
	objs []*unstructured.Unstructured
	keys []objKey
}

type objKey struct{ namespace, name string }

func (a objKey) less(b objKey) bool {
	if a.namespace != b.namespace {
		return a.namespace < b.namespace
	}
	return a.name < b.name
}

// written is this process's latest write of one object.
type written struct {
	obj map[string]any
	rv  string // obj's resourceVersion
	// older are the cached versions known to precede obj: the one the
	// first of a run of writes replaced, and the earlier writes' own. They
	// decide when resourceVersions are not comparable (see ahead).
	older []string
	// created is set for an object this process created: until the cache
	// holds it, it is read (and listed) as created.
	created bool
}

// ahead reports whether w is newer than the cached version cached, so
// that a reader must see w: when both are well-formed resourceVersions
// (comparable within a resource since Kubernetes 1.35) by comparing them,
// else when cached is one of the versions w is known to follow.
func (w written) ahead(cached string) bool {
	if cached == "" {
		return w.created
	}
	if cmp, err := resourceversion.CompareResourceVersion(cached, w.rv); err == nil {
		return cmp < 0
	}
	return slices.Contains(w.older, cached)
}

// indexNamespace is the store's namespace index function; it also counts
// the change the store is making (see kindInformer.gen).
func (ki *kindInformer) indexNamespace(obj any) ([]string, error) {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil, err
	}
	ns := m.GetNamespace()
	ki.changed(ns, m.GetName())
	return []string{ns}, nil
}

func (ki *kindInformer) changed(ns, name string) {
	ki.gen.Add(1)
	ki.changes(ns).changed(name)
}

func (ki *kindInformer) changes(ns string) *nsChanges {
	if g, ok := ki.nsGen.Load(ns); ok {
		return g.(*nsChanges)
	}
	g, _ := ki.nsGen.LoadOrStore(ns, new(nsChanges))
	return g.(*nsChanges)
}

// list returns the store's objects in namespace ("" for all) that match
// sel, sorted: the snapshot of the current change count if there is one,
// else the previous snapshot of a namespace with the objects changed since
// read again from the store, else the store's objects (and keeps what it
// returns as the new snapshot).
func (ki *kindInformer) list(ns, selector string, sel labels.Selector) *listSnapshot {
	key := listKey{ns, selector}
	ki.listMu.Lock()
	prev := ki.lists[key]
	ki.listMu.Unlock()
	var snap *listSnapshot
	if ns == "" {
		gen := ki.gen.Load()
		if prev != nil && prev.gen == gen {
			return prev
		}
		snap = ki.build(ns, sel, gen)
	} else {
		changes := ki.changes(ns)
		if prev == nil {
			snap = ki.build(ns, sel, changes.count())
		} else if gen, names, ok := changes.since(prev.gen, len(prev.objs)/4+1); !ok {
			snap = ki.build(ns, sel, gen)
		} else if len(names) == 0 {
			return prev
		} else {
			snap = ki.update(prev, ns, sel, gen, names)
		}
	}
	ki.listMu.Lock()
	if cur := ki.lists[key]; cur == nil || cur.gen < snap.gen {
		if len(ki.lists) >= maxListSnapshots {
			clear(ki.lists)
		}
		ki.lists[key] = snap
	}
	ki.listMu.Unlock()
	return snap
}

// build lists the store's objects in namespace ("" for all) that match
// sel, as of change count gen or later.
func (ki *kindInformer) build(ns string, sel labels.Selector, gen uint64) *listSnapshot {
	var objs []any
	indexer := ki.informer.Informer().GetIndexer()
	if ns != "" {
		objs, _ = indexer.ByIndex(cache.NamespaceIndex, ns)
	} else {
		objs = indexer.List()
	}
	everything := sel.Empty()
	snap := &listSnapshot{gen: gen, objs: make([]*unstructured.Unstructured, 0, len(objs)), keys: make([]objKey, 0, len(objs))}
	type keyed struct {
		k objKey
		u *unstructured.Unstructured
	}
	sorted := make([]keyed, 0, len(objs))
	for _, o := range objs {
		u, ok := o.(*unstructured.Unstructured)
		if !ok || !everything && !sel.Matches(labels.Set(u.GetLabels())) {
			continue
		}
		md, _ := u.Object["metadata"].(map[string]any)
		name, _ := md["name"].(string)
		namespace, _ := md["namespace"].(string)
		sorted = append(sorted, keyed{objKey{namespace, name}, u})
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].k.less(sorted[j].k) })
	for _, k := range sorted {
		snap.objs = append(snap.objs, k.u)
		snap.keys = append(snap.keys, k.k)
	}
	return snap
}

// update returns prev, a snapshot of namespace, with the objects names
// (changed since prev was taken, up to change count gen) read again from
// the store: the store holds their versions of gen or later, and every
// other object is as it was at prev.
func (ki *kindInformer) update(prev *listSnapshot, ns string, sel labels.Selector, gen uint64, names []string) *listSnapshot {
	slices.Sort(names)
	names = slices.Compact(names)
	store := ki.informer.Informer().GetStore()
	everything := sel.Empty()
	now := make([]*unstructured.Unstructured, len(names)) // nil: not in the store, or not selected
	for i, name := range names {
		obj, ok, err := store.GetByKey(ns + "/" + name)
		if u, isU := obj.(*unstructured.Unstructured); ok && err == nil && isU &&
			(everything || sel.Matches(labels.Set(u.GetLabels()))) {
			now[i] = u
		}
	}
	// Most often every object changed is still there, at its place: the
	// keys are then prev's (never modified), and only objects change.
	if pos, ok := prev.places(names, now); ok {
		snap := &listSnapshot{gen: gen, objs: slices.Clone(prev.objs), keys: prev.keys}
		for j, i := range pos {
			snap.objs[i] = now[j]
		}
		return snap
	}
	snap := &listSnapshot{gen: gen, objs: make([]*unstructured.Unstructured, 0, len(prev.objs)+len(names)),
		keys: make([]objKey, 0, len(prev.objs)+len(names))}
	i, j := 0, 0
	for i < len(prev.keys) || j < len(names) {
		switch {
		case j == len(names) || i < len(prev.keys) && prev.keys[i].name < names[j]:
			snap.objs = append(snap.objs, prev.objs[i])
			snap.keys = append(snap.keys, prev.keys[i])
			i++
		default:
			if i < len(prev.keys) && prev.keys[i].name == names[j] {
				i++ // replaced by what the store holds now
			}
			if now[j] != nil {
				snap.objs = append(snap.objs, now[j])
				snap.keys = append(snap.keys, objKey{ns, names[j]})
			}
			j++
		}
	}
	return snap
}

// places returns the index in s of each of names (sorted, in s's
// namespace), when each is in s and its object in now is not nil.
func (s *listSnapshot) places(names []string, now []*unstructured.Unstructured) ([]int, bool) {
	pos := make([]int, len(names))
	for j, name := range names {
		if now[j] == nil || len(s.keys) == 0 {
			return nil, false
		}
		i := s.find(objKey{s.keys[0].namespace, name})
		if i < 0 {
			return nil, false
		}
		pos[j] = i
	}
	return pos, true
}

// maxListSnapshots bounds the snapshots kept per kind (one per namespace
// and selector read).
const maxListSnapshots = 4096

// find returns the index of the object k in the snapshot, or -1.
func (s *listSnapshot) find(k objKey) int {
	i := sort.Search(len(s.keys), func(i int) bool { return !s.keys[i].less(k) })
	if i < len(s.keys) && s.keys[i] == k {
		return i
	}
	return -1
}

// NewCache returns a Cache over client. onChange, when set, is called for
// every add, update and delete an informer sees (old is nil on add, obj is
// nil on delete).
func NewCache(client *kube.Client, resync time.Duration, now func() time.Time,
	onChange func(gvk schema.GroupVersionKind, old, obj *unstructured.Unstructured)) *Cache {
	// Every object the cache reads or is returned by a write is decoded
	// without the managedFields it would drop.
	if trimmed, err := client.WithoutManagedFields(); err == nil {
		client = trimmed
	}
	return &Cache{
		client: client, resync: resync, IdleAfter: 10 * time.Minute, now: now, Frozen: jsonvalue.NewRegistry(),
		informers:   map[schema.GroupVersionKind]*kindInformer{},
		unwatchable: map[schema.GroupVersionKind]bool{},
		written:     map[schema.GroupVersionKind]map[string]map[string]written{},
		onChange:    onChange,
	}
}

// Watch starts (or pins) the informer of a kind and waits for its cache to
// sync.
func (c *Cache) Watch(ctx context.Context, apiVersion, kind string) error {
	ki, err := c.informer(ctx, apiVersion, kind, true)
	if err != nil {
		return err
	}
	if !cache.WaitForCacheSync(ctx.Done(), ki.informer.Informer().HasSynced) {
		return ctx.Err()
	}
	return nil
}

func (c *Cache) informer(ctx context.Context, apiVersion, kind string, pin bool) (*kindInformer, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, err
	}
	gvk := gv.WithKind(kind)
	c.mu.Lock()
	defer c.mu.Unlock()
	if ki, ok := c.informers[gvk]; ok {
		ki.lastUse = c.now()
		ki.pinned = ki.pinned || pin
		return ki, nil
	}
	if c.unwatchable[gvk] && !pin {
		return nil, errUnwatchable
	}
	mapping, err := c.client.Mapper().RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return nil, err
	}
	ki := &kindInformer{gvk: gvk, stop: make(chan struct{}), lastUse: c.now(), pinned: pin, lists: map[listKey]*listSnapshot{}}
	inf := dynamicinformer.NewFilteredDynamicInformer(c.client.Dynamic(), mapping.Resource, "", c.resync, cache.Indexers{cache.NamespaceIndex: ki.indexNamespace}, nil)
	ki.informer = inf
	// Objects are kept and handed out without metadata.managedFields, as
	// the simulated cluster keeps them: no rule reads them, and they were
	// about half of every object the engine walks.
	_ = inf.Informer().SetTransform(c.stripManagedFields)
	inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			if u, ok := obj.(*unstructured.Unstructured); ok {
				c.caughtUp(gvk, u)
				if c.onChange != nil {
					c.onChange(gvk, nil, u)
				}
			}
		},
		UpdateFunc: func(old, obj any) {
			o, _ := old.(*unstructured.Unstructured)
			if u, ok := obj.(*unstructured.Unstructured); ok {
				c.caughtUp(gvk, u)
				if c.onChange != nil {
					c.onChange(gvk, o, u)
				}
			}
			c.thaw(old, obj)
		},
		DeleteFunc: func(obj any) {
			if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = t.Obj
			}
			if u, ok := obj.(*unstructured.Unstructured); ok {
				// A store replaced after a lost watch does not call the
				// index function for the objects it drops.
				ki.changed(u.GetNamespace(), u.GetName())
				if c.onChange != nil {
					c.onChange(gvk, u, nil)
				}
				c.thaw(u, nil)
			}
		},
	})
	if !pin {
		var once sync.Once
		_ = inf.Informer().SetWatchErrorHandler(func(r *cache.Reflector, err error) {
			if !apierrors.IsForbidden(err) && !apierrors.IsUnauthorized(err) {
				cache.DefaultWatchErrorHandler(context.Background(), r, err)
				return
			}
			once.Do(func() {
				c.mu.Lock()
				defer c.mu.Unlock()
				c.unwatchable[gvk] = true
				if cur, ok := c.informers[gvk]; ok && cur == ki {
					close(ki.stop)
					delete(c.informers, gvk)
					c.forgetWrites(gvk)
				}
			})
		})
	}
	c.informers[gvk] = ki
	go inf.Informer().Run(ki.stop)
	return ki, nil
}

// StopIdle stops on-demand informers unused for IdleAfter.
func (c *Cache) StopIdle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for gvk, ki := range c.informers {
		if !ki.pinned && c.now().Sub(ki.lastUse) > c.IdleAfter {
			close(ki.stop)
			delete(c.informers, gvk)
			c.forgetWrites(gvk)
		}
	}
}

// Informers lists the kinds with a running informer, sorted.
func (c *Cache) Informers() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for gvk := range c.informers {
		out = append(out, gvk.String())
	}
	sort.Strings(out)
	return out
}

// Stop stops every informer.
func (c *Cache) Stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for gvk, ki := range c.informers {
		close(ki.stop)
		delete(c.informers, gvk)
	}
	c.wmu.Lock()
	clear(c.written)
	c.wmu.Unlock()
}

// forgetWrites drops the remembered writes of a kind whose informer stops.
func (c *Cache) forgetWrites(gvk schema.GroupVersionKind) {
	c.wmu.Lock()
	delete(c.written, gvk)
	c.wmu.Unlock()
}

// Scope implements adapters.API.
//
// The client answers Unknown both for a kind the server does not serve and
// when discovery failed. The two are told apart by asking the REST mapper
// again (discovery is fetched anew after a failure): a kind it now knows is
// answered, a NoMatch is Unknown, and any other error marks the reconcile
// in ctx unreliable (see unreliable.go) before answering Unknown.
func (c *Cache) Scope(ctx context.Context, apiVersion, kind string) adapters.Scope {
	if s := c.client.Scope(ctx, apiVersion, kind); s != adapters.Unknown {
		return s
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || kind == "" || gv.Version == "" {
		return adapters.Unknown
	}
	m, err := c.client.Mapper().RESTMapping(schema.GroupKind{Group: gv.Group, Kind: kind}, gv.Version)
	switch {
	case err == nil && m.Scope.Name() == meta.RESTScopeNameNamespace:
		return adapters.Namespaced
	case err == nil:
		return adapters.Cluster
	case !meta.IsNoMatchError(err):
		markUnreliable(ctx)
	}
	return adapters.Unknown
}

// Do implements adapters.API: Get and List from a synced informer when one
// runs (starting one otherwise), everything else through the client; a Get
// of an object the informer does not hold asks the server, which may have
// it already. No object it returns carries metadata.managedFields.
func (c *Cache) Do(ctx context.Context, req adapters.Request) adapters.Result {
	switch req.Verb {
	case adapters.Get, adapters.List:
		if req.Identity == "" && req.Subresource == "" {
			if res, ok := c.read(ctx, req); ok {
				return res
			}
		}
		return stripResult(c.client.Do(ctx, req))
	}
	before := ""
	if req.Verb != adapters.Create && !req.DryRun {
		before = c.cachedVersion(ctx, req.Ref)
	}
	res := stripResult(c.client.Do(ctx, req))
	switch {
	case res.Outcome != adapters.OK || req.DryRun:
	case req.Verb == adapters.Create:
		c.created(ctx, req, res.Object)
	default:
		c.wrote(ctx, req, before, res.Object)
	}
	return res
}

// created remembers an object this process created, to be served (by get
// and in lists) until the cache holds it: a reconcile that creates an
// object and lists its kind again must find it, or it would create it
// again (and fail, as it exists).
func (c *Cache) created(ctx context.Context, req adapters.Request, obj map[string]any) {
	gvk, err := refGVK(req.Ref)
	rv := resourceVersion(obj)
	if err != nil || rv == "" {
		return
	}
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	ref := req.Ref
	ref.Namespace, ref.Name = ns, name
	if c.cachedVersion(ctx, ref) != "" {
		return // the cache caught up already
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, watched := c.informers[gvk]; !watched {
		return
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.written[gvk] == nil {
		c.written[gvk] = map[string]map[string]written{}
	}
	if c.written[gvk][ns] == nil {
		c.written[gvk][ns] = map[string]written{}
	}
	c.written[gvk][ns][name] = written{obj: obj, rv: rv, created: true}
}

// wrote remembers the object a write returned, to be served instead of
// the cached one while the cache has not caught up with it (see ahead).
// before is the cached resourceVersion when the write was sent ("" when the
// cache did not hold the object: nothing is remembered then, as reads of an
// object the cache does not hold do not consult what was written). A write
// the cache has already caught up with needs nothing remembered, and a
// delete forgets what earlier writes left.
func (c *Cache) wrote(ctx context.Context, req adapters.Request, before string, obj map[string]any) {
	gvk, err := refGVK(req.Ref)
	if err != nil {
		return
	}
	cached := c.cachedVersion(ctx, req.Ref)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	byNS := c.written[gvk]
	prev, hasPrev := byNS[req.Ref.Namespace][req.Ref.Name]
	delete(byNS[req.Ref.Namespace], req.Ref.Name)
	rv := resourceVersion(obj)
	if hasPrev && prev.created && before == "" && rv != "" && req.Verb != adapters.Delete {
		// A write to an object this process created, which the cache
		// still does not hold: served as written, as the creation was.
		byNS[req.Ref.Namespace][req.Ref.Name] = written{obj: obj, rv: rv, created: true}
		return
	}
	if before == "" && cached != "" && rv != "" {
		// The cache came to hold the object while the write was sent (one
		// this process created): the version it holds precedes the write
		// when resourceVersions say so.
		if cmp, err := resourceversion.CompareResourceVersion(cached, rv); err == nil && cmp < 0 {
			before = cached
		}
	}
	if before == "" || rv == "" || req.Verb == adapters.Delete {
		return
	}
	if _, watched := c.informers[gvk]; !watched {
		return
	}
	w := written{obj: obj, rv: rv, older: []string{before}}
	if hasPrev && prev.ahead(before) {
		// A run of writes the cache has not caught up with: each of them
		// precedes this one.
		w.older = append(slices.Clip(prev.older), prev.rv)
	}
	if !w.ahead(cached) {
		return // the cache already shows this write, or a later one
	}
	if byNS == nil {
		byNS = map[string]map[string]written{}
		c.written[gvk] = byNS
	}
	if byNS[req.Ref.Namespace] == nil {
		byNS[req.Ref.Namespace] = map[string]written{}
	}
	byNS[req.Ref.Namespace][req.Ref.Name] = w
}

// caughtUp forgets a remembered write once the informer delivers a version
// that is not older than it (the store holds that version or a later one).
func (c *Cache) caughtUp(gvk schema.GroupVersionKind, u *unstructured.Unstructured) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	byName := c.written[gvk][u.GetNamespace()]
	w, ok := byName[u.GetName()]
	if !ok {
		return
	}
	// Events may arrive after the store moved on, so an older version is
	// no sign of anything; without comparable versions only w's own is.
	rv := u.GetResourceVersion()
	if cmp, err := resourceversion.CompareResourceVersion(rv, w.rv); rv == w.rv || err == nil && cmp >= 0 {
		delete(byName, u.GetName())
	}
}

func (c *Cache) read(ctx context.Context, req adapters.Request) (adapters.Result, bool) {
	ki, err := c.informer(ctx, req.Ref.APIVersion, req.Ref.Kind, false)
	if err != nil || !ki.informer.Informer().HasSynced() {
		return adapters.Result{}, false
	}
	if scope := c.client.Scope(ctx, req.Ref.APIVersion, req.Ref.Kind); scope == adapters.Unknown ||
		(scope == adapters.Cluster) != (req.Ref.Namespace == "") && req.Verb == adapters.Get {
		return adapters.Result{}, false // let the server classify the mismatch
	}
	if req.Verb == adapters.List {
		sel, err := labels.Parse(req.LabelSelector)
		if err != nil {
			return adapters.Result{}, false
		}
		// The snapshot and the overlay of this process's writes are taken
		// under wmu: an informer event between them would otherwise drop
		// a write from the overlay (caughtUp) that the snapshot, taken
		// before the event, does not show yet.
		c.wmu.Lock()
		defer c.wmu.Unlock()
		snap := ki.list(req.Ref.Namespace, req.LabelSelector, sel)
		items := make([]map[string]any, len(snap.objs))
		for i, u := range snap.objs {
			items[i] = u.Object
		}
		items = c.overlay(ki.gvk, req.Ref.Namespace, sel, snap, items)
		if !c.SharedReads {
			for i, it := range items {
				items[i] = runtime.DeepCopyJSON(it)
			}
		}
		return adapters.Result{Outcome: adapters.OK, Items: items}, true
	}
	c.wmu.Lock() // as for a list: the read and this process's writes together
	defer c.wmu.Unlock()
	lister := ki.informer.Lister()
	var obj runtime.Object
	if req.Ref.Namespace != "" {
		obj, err = lister.ByNamespace(req.Ref.Namespace).Get(req.Ref.Name)
	} else {
		obj, err = lister.Get(req.Ref.Name)
	}
	if err != nil {
		if got, ok := c.createdObject(ki.gvk, req.Ref.Namespace, req.Ref.Name); ok && apierrors.IsNotFound(err) {
			return adapters.Result{Outcome: adapters.OK, Object: got}, true
		}
		if apierrors.IsNotFound(err) {
			// The informer may not have the object yet (created a moment
			// ago by someone else, such as a patch's target created just
			// before the patch): the server says whether it exists. A
			// reconcile that took the cache's word would wait for its
			// next recheck (minutes) for an object that is there.
			return adapters.Result{}, false
		}
		return adapters.Result{Outcome: kube.Classify(err), Message: err.Error()}, true
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return adapters.Result{}, false
	}
	return adapters.Result{Outcome: adapters.OK, Object: c.fresh(ki.gvk, u)}, true
}

// cachedVersion is the resourceVersion of ref in its synced informer, ""
// when there is none or it does not hold ref.
func (c *Cache) cachedVersion(ctx context.Context, ref adapters.Ref) string {
	ki, err := c.informer(ctx, ref.APIVersion, ref.Kind, false)
	if err != nil || !ki.informer.Informer().HasSynced() {
		return ""
	}
	key := ref.Name
	if ref.Namespace != "" {
		key = ref.Namespace + "/" + ref.Name
	}
	obj, ok, err := ki.informer.Informer().GetStore().GetByKey(key)
	if u, isU := obj.(*unstructured.Unstructured); ok && err == nil && isU {
		return u.GetResourceVersion()
	}
	return ""
}

// overlay puts this process's own writes into a list read of namespace
// ("" for all) in place of the cached objects they replaced, adds the
// objects it created that the cache does not hold yet (when sel selects
// them), and forgets the writes the cache has moved past: what fresh does,
// for the few objects written instead of every object listed. The caller
// holds c.wmu.
func (c *Cache) overlay(gvk schema.GroupVersionKind, ns string, sel labels.Selector, snap *listSnapshot, items []map[string]any) []map[string]any {
	var added []keyedItem
	for wns, byName := range c.written[gvk] {
		if ns != "" && wns != ns {
			continue
		}
		for name, w := range byName {
			i := snap.find(objKey{wns, name})
			if i < 0 {
				if w.created && (sel.Empty() || sel.Matches(labels.Set(labelsOf(w.obj)))) {
					added = append(added, keyedItem{objKey{wns, name}, w.obj})
				}
				continue
			}
			if w.ahead(snap.objs[i].GetResourceVersion()) {
				items[i] = w.obj
			} else {
				delete(byName, name)
			}
		}
	}
	if len(added) == 0 {
		return items
	}
	all := make([]keyedItem, 0, len(items)+len(added))
	for i, it := range items {
		all = append(all, keyedItem{snap.keys[i], it})
	}
	all = append(all, added...)
	sort.Slice(all, func(i, j int) bool { return all[i].k.less(all[j].k) })
	out := make([]map[string]any, len(all))
	for i, k := range all {
		out[i] = k.obj
	}
	return out
}

type keyedItem struct {
	k   objKey
	obj map[string]any
}

func labelsOf(obj map[string]any) map[string]string {
	md, _ := obj["metadata"].(map[string]any)
	l, _ := md["labels"].(map[string]any)
	out := make(map[string]string, len(l))
	for k, v := range l {
		out[k], _ = v.(string)
	}
	return out
}

// createdObject returns the object this process created under ns/name
// when the cache does not hold it yet. The caller holds c.wmu.
func (c *Cache) createdObject(gvk schema.GroupVersionKind, ns, name string) (map[string]any, bool) {
	w, ok := c.written[gvk][ns][name]
	if !ok || !w.created {
		return nil, false
	}
	if c.SharedReads {
		return w.obj, true
	}
	return runtime.DeepCopyJSON(w.obj), true
}

// fresh returns the cached object (a deep copy unless SharedReads), or
// this process's own write of it when that is newer (see written.ahead);
// a write the cache has caught up with is forgotten. The caller holds
// c.wmu.
func (c *Cache) fresh(gvk schema.GroupVersionKind, u *unstructured.Unstructured) map[string]any {
	obj := u.Object
	byName := c.written[gvk][u.GetNamespace()]
	if w, ok := byName[u.GetName()]; ok {
		if w.ahead(u.GetResourceVersion()) {
			obj = w.obj
		} else {
			delete(byName, u.GetName())
		}
	}
	if c.SharedReads {
		return obj
	}
	return runtime.DeepCopyJSON(obj)
}

// stripManagedFields is the informers' transform: it drops
// metadata.managedFields from each object the informer stores (the few
// that client-go's own decoder decoded still have them), and
// freezes the object (jsonvalue.Freeze): the informer replaces an object
// on change and never modifies it, and readers never modify what they
// read, so whether it is canonical and the fingerprints of its parts are
// computed once per version instead of on every read of it.
func (c *Cache) stripManagedFields(obj any) (any, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		stripObject(u.Object)
		// Results are canonical JSON values (the adapters' contract): an
		// object that is not (a number such as 1e3) is made so once here.
		if c, err := jsonvalue.Canonical(u.Object); err == nil {
			u.Object = c.(map[string]any)
		}
		c.Frozen.Freeze(u.Object)
	}
	return obj, nil
}

// thaw takes an object the informer no longer holds (old, replaced by
// obj, or deleted) out of jsonvalue's registry of frozen values, which
// would otherwise keep it alive until the registry fills up: readers that
// still hold it walk it again, no more.
func (c *Cache) thaw(old, obj any) {
	o, ok := old.(*unstructured.Unstructured)
	if u, _ := obj.(*unstructured.Unstructured); !ok || o == u {
		return // nothing, or a resync of the object still held
	}
	c.Frozen.Thaw(o.Object)
}

func stripObject(obj map[string]any) {
	if md, ok := obj["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
}

// stripResult drops metadata.managedFields from the objects of a result
// the client just decoded (nobody else holds them).
func stripResult(res adapters.Result) adapters.Result {
	if res.Object != nil {
		stripObject(res.Object)
	}
	for _, it := range res.Items {
		stripObject(it)
	}
	return res
}

func refGVK(ref adapters.Ref) (schema.GroupVersionKind, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return gv.WithKind(ref.Kind), err
}

var errUnwatchable = errors.New("this identity may not list and watch the kind")

func resourceVersion(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	rv, _ := md["resourceVersion"].(string)
	return rv
}
