package controller

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
)

// Cache is an adapters.API that serves reads from shared dynamic informers
// and sends everything else to the API server. Informers for the kinds the
// machines drive are started up front; informers for other kinds are
// started on their first read (that read goes to the server) and stopped
// when unused for IdleAfter. A write the cache has not caught up with yet is
// served as written, so a reconcile never sees its own write undone.
type Cache struct {
	client    *kube.Client
	resync    time.Duration
	IdleAfter time.Duration
	// SharedReads hands readers the informer's own objects instead of
	// copies: for readers that never modify what they read (the engine).
	SharedReads bool
	now         func() time.Time

	mu        sync.Mutex
	informers map[schema.GroupVersionKind]*kindInformer
	// unwatchable kinds may not be listed or watched by this identity (the
	// seed's grants give only get and patch on targets): they are read
	// directly, and no informer is started for them again.
	unwatchable map[schema.GroupVersionKind]bool
	written     map[adapters.Ref]written
	onChange    func(kind schema.GroupVersionKind, old, obj *unstructured.Unstructured)
}

type kindInformer struct {
	gvk      schema.GroupVersionKind
	informer informers.GenericInformer
	stop     chan struct{}
	lastUse  time.Time
	pinned   bool // a driven kind: never stopped
}

type written struct {
	before string // the cached resourceVersion when the write was made
	obj    map[string]any
}

// NewCache returns a Cache over client. onChange, when set, is called for
// every add, update and delete an informer sees (old is nil on add, obj is
// nil on delete).
func NewCache(client *kube.Client, resync time.Duration, now func() time.Time,
	onChange func(gvk schema.GroupVersionKind, old, obj *unstructured.Unstructured)) *Cache {
	return &Cache{
		client: client, resync: resync, IdleAfter: 10 * time.Minute, now: now,
		informers:   map[schema.GroupVersionKind]*kindInformer{},
		unwatchable: map[schema.GroupVersionKind]bool{},
		written:     map[adapters.Ref]written{},
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
	inf := dynamicinformer.NewFilteredDynamicInformer(c.client.Dynamic(), mapping.Resource, "", c.resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc}, nil)
	ki := &kindInformer{gvk: gvk, informer: inf, stop: make(chan struct{}), lastUse: c.now(), pinned: pin}
	if c.onChange != nil {
		inf.Informer().AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: func(obj any) {
				if u, ok := obj.(*unstructured.Unstructured); ok {
					c.onChange(gvk, nil, u)
				}
			},
			UpdateFunc: func(old, obj any) {
				o, _ := old.(*unstructured.Unstructured)
				if u, ok := obj.(*unstructured.Unstructured); ok {
					c.onChange(gvk, o, u)
				}
			},
			DeleteFunc: func(obj any) {
				if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
					obj = t.Obj
				}
				if u, ok := obj.(*unstructured.Unstructured); ok {
					c.onChange(gvk, u, nil)
				}
			},
		})
	}
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
// runs (starting one otherwise), everything else through the client.
func (c *Cache) Do(ctx context.Context, req adapters.Request) adapters.Result {
	switch req.Verb {
	case adapters.Get, adapters.List:
		if req.Identity == "" && req.Subresource == "" {
			if res, ok := c.read(ctx, req); ok {
				return res
			}
		}
		return c.client.Do(ctx, req)
	}
	before := ""
	if req.Verb != adapters.Create && !req.DryRun {
		if res, ok := c.read(ctx, adapters.Request{Verb: adapters.Get, Ref: req.Ref}); ok && res.Outcome == adapters.OK {
			before = resourceVersion(res.Object)
		}
	}
	res := c.client.Do(ctx, req)
	if res.Outcome == adapters.OK && !req.DryRun && res.Object != nil && req.Verb != adapters.Delete {
		c.mu.Lock()
		c.written[req.Ref] = written{before: before, obj: res.Object}
		c.mu.Unlock()
	}
	return res
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
	lister := ki.informer.Lister()
	if req.Verb == adapters.List {
		sel, err := labels.Parse(req.LabelSelector)
		if err != nil {
			return adapters.Result{}, false
		}
		var objs []runtime.Object
		if req.Ref.Namespace != "" {
			objs, err = lister.ByNamespace(req.Ref.Namespace).List(sel)
		} else {
			objs, err = lister.List(sel)
		}
		if err != nil {
			return adapters.Result{}, false
		}
		// Sort on keys read once per object: a comparator that converts
		// both objects' metadata (managedFields included) on every
		// comparison made a list of n objects cost O(n log n) conversions.
		type keyed struct {
			namespace, name string
			u               *unstructured.Unstructured
		}
		sorted := make([]keyed, 0, len(objs))
		for _, o := range objs {
			if u, ok := o.(*unstructured.Unstructured); ok {
				sorted = append(sorted, keyed{u.GetNamespace(), u.GetName(), u})
			}
		}
		sort.Slice(sorted, func(i, j int) bool {
			if sorted[i].namespace != sorted[j].namespace {
				return sorted[i].namespace < sorted[j].namespace
			}
			return sorted[i].name < sorted[j].name
		})
		items := make([]map[string]any, len(sorted))
		for i, k := range sorted {
			items[i] = c.fresh(k.u)
		}
		return adapters.Result{Outcome: adapters.OK, Items: items}, true
	}
	var obj runtime.Object
	if req.Ref.Namespace != "" {
		obj, err = lister.ByNamespace(req.Ref.Namespace).Get(req.Ref.Name)
	} else {
		obj, err = lister.Get(req.Ref.Name)
	}
	if err != nil {
		return adapters.Result{Outcome: kube.Classify(err), Message: err.Error()}, true
	}
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return adapters.Result{}, false
	}
	return adapters.Result{Outcome: adapters.OK, Object: c.fresh(u)}, true
}

// fresh returns a deep copy of the cached object, or of this process's own
// later write when the cache still holds the version the write replaced.
func (c *Cache) fresh(u *unstructured.Unstructured) map[string]any {
	ref := adapters.Ref{APIVersion: u.GetAPIVersion(), Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
	c.mu.Lock()
	w, ok := c.written[ref]
	if ok && w.before != "" && u.GetResourceVersion() == w.before {
		c.mu.Unlock()
		if c.SharedReads {
			return w.obj
		}
		return runtime.DeepCopyJSON(w.obj)
	}
	if ok {
		delete(c.written, ref)
	}
	c.mu.Unlock()
	if c.SharedReads {
		return u.Object
	}
	return u.DeepCopy().Object
}

var errUnwatchable = errors.New("this identity may not list and watch the kind")

func resourceVersion(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	rv, _ := md["resourceVersion"].(string)
	return rv
}
