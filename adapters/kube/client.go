package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// DefaultFieldManager is the field manager of writes whose Request names none.
const DefaultFieldManager = "statecraft"

// Options configure a Client.
type Options struct {
	// FieldManager is used for writes whose Request has no FieldManager;
	// empty means DefaultFieldManager.
	FieldManager string
}

// Client is an adapters.API backed by client-go. It is safe for concurrent
// use.
type Client struct {
	base         *rest.Config
	fieldManager string

	mapper  *restmapper.DeferredDiscoveryRESTMapper
	resetMu sync.Mutex
	resets  uint64 // how many times a miss refreshed the mapper (a generation)

	// known remembers the mappings the mapper found, so that the lookup of
	// every request (and every Scope) does not walk the mapper's groups
	// again: that walk allocated more than the rest of a cached read. They
	// hold while the discovery under the mapper is not invalidated
	// (knownAt is its count of invalidations they were found at).
	invalidations *invalidations
	knownMu       sync.RWMutex
	known         map[gvKind]*meta.RESTMapping
	knownAt       uint64

	dynamic dynamic.Interface // the client's own identity
	rc      rest.Interface    // the REST client under it
	// dropManagedFields: objects are decoded without
	// metadata.managedFields (see WithoutManagedFields).
	dropManagedFields bool

	mu         sync.Mutex
	impersonal map[string]conn // one client per impersonated identity
}

var _ adapters.API = (*Client)(nil)

// New returns a Client that reaches the API server described by cfg.
func New(cfg *rest.Config, opts Options) (*Client, error) {
	if cfg == nil {
		return nil, fmt.Errorf("kube: nil rest.Config")
	}
	base := rest.CopyConfig(cfg)
	dc, err := discovery.NewDiscoveryClientForConfig(base)
	if err != nil {
		return nil, fmt.Errorf("kube: discovery client: %w", err)
	}
	dyn, rc, err := newConn(base, false)
	if err != nil {
		return nil, fmt.Errorf("kube: dynamic client: %w", err)
	}
	cached := &invalidations{CachedDiscoveryInterfaceWithContext: discovery.ToCachedDiscoveryInterfaceWithContext(memory.NewMemCacheClient(dc))}
	fm := opts.FieldManager
	if fm == "" {
		fm = DefaultFieldManager
	}
	return &Client{
		base:          base,
		fieldManager:  fm,
		mapper:        restmapper.NewDeferredDiscoveryRESTMapperWithContext(cached),
		invalidations: cached,
		known:         map[gvKind]*meta.RESTMapping{},
		dynamic:       dyn,
		rc:            rc,
		impersonal:    map[string]conn{},
	}, nil
}

// WithoutManagedFields returns a client like c, sharing its discovery and
// REST mapper, whose results, and the objects its dynamic client decodes
// (informers' included), come without metadata.managedFields: they are left
// out while decoding instead of being decoded and dropped, for readers that
// never look at them (about half of an object that is written often).
func (c *Client) WithoutManagedFields() (*Client, error) {
	dyn, rc, err := newConn(c.base, true)
	if err != nil {
		return nil, fmt.Errorf("kube: dynamic client: %w", err)
	}
	return &Client{
		base:              c.base,
		fieldManager:      c.fieldManager,
		mapper:            c.mapper,
		invalidations:     c.invalidations,
		known:             map[gvKind]*meta.RESTMapping{},
		dynamic:           dyn,
		rc:                rc,
		dropManagedFields: true,
		impersonal:        map[string]conn{},
	}, nil
}

// Config returns a copy of the configuration the client was built from.
func (c *Client) Config() *rest.Config { return rest.CopyConfig(c.base) }

// Mapper returns the client's REST mapper, shared with whoever needs one
// (informers, for instance).
func (c *Client) Mapper() meta.RESTMapper { return c.mapper }

// Dynamic returns the dynamic client of the client's own identity.
func (c *Client) Dynamic() dynamic.Interface { return c.dynamic }

// gvKind keys remembered mappings by the apiVersion and kind asked for.
type gvKind struct{ apiVersion, kind string }

// invalidations is the cached discovery under the mapper, counting the
// times it is invalidated: the mapper resets it after a miss (by anyone,
// through the client or through Mapper), and whatever was remembered of the
// mappings before is then forgotten.
type invalidations struct {
	discovery.CachedDiscoveryInterfaceWithContext
	n atomic.Uint64
}

func (d *invalidations) InvalidateWithContext(ctx context.Context) {
	d.n.Add(1)
	d.CachedDiscoveryInterfaceWithContext.InvalidateWithContext(ctx)
}

func (d *invalidations) Invalidate() { d.InvalidateWithContext(context.Background()) }

// mapping resolves apiVersion/kind to a REST mapping. A miss refreshes the
// cached discovery once and tries again, so kinds served after the client
// was built (a CRD installed later) are found.
func (c *Client) mapping(ctx context.Context, apiVersion, kind string) (*meta.RESTMapping, error) {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, &meta.NoKindMatchError{GroupKind: schema.GroupKind{Kind: kind}, SearchedVersions: []string{apiVersion}}
	}
	if kind == "" || gv.Version == "" {
		return nil, &meta.NoKindMatchError{GroupKind: gv.WithKind(kind).GroupKind(), SearchedVersions: []string{gv.Version}}
	}
	key := gvKind{apiVersion, kind}
	at := c.invalidations.n.Load()
	c.knownMu.RLock()
	m := c.known[key]
	valid := c.knownAt == at
	c.knownMu.RUnlock()
	if m != nil && valid {
		return m, nil
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: kind}
	gen := c.generation()
	m, err = c.mapper.RESTMappingWithContext(ctx, gk, gv.Version)
	if err != nil && meta.IsNoMatchError(err) {
		c.refresh(ctx, gen)
		m, err = c.mapper.RESTMappingWithContext(ctx, gk, gv.Version)
	}
	if err == nil {
		c.remember(key, m, at)
	}
	return m, err
}

// remember keeps a mapping found while discovery had been invalidated at
// times, unless it was invalidated since.
func (c *Client) remember(key gvKind, m *meta.RESTMapping, at uint64) {
	c.knownMu.Lock()
	defer c.knownMu.Unlock()
	if now := c.invalidations.n.Load(); now != at {
		return
	}
	if c.knownAt != at {
		clear(c.known)
		c.knownAt = at
	}
	c.known[key] = m
}

func (c *Client) generation() uint64 {
	c.resetMu.Lock()
	defer c.resetMu.Unlock()
	return c.resets
}

// refresh drops the cached discovery, unless another request already did so
// after gen was read: concurrent misses cost one refresh, not one each.
func (c *Client) refresh(ctx context.Context, gen uint64) {
	c.resetMu.Lock()
	defer c.resetMu.Unlock()
	if c.resets != gen {
		return
	}
	c.mapper.ResetWithContext(ctx)
	c.resets++
}

// Refreshes reports how many times a miss refreshed the cached discovery.
func (c *Client) Refreshes() uint64 {
	c.resetMu.Lock()
	defer c.resetMu.Unlock()
	return c.resets
}

// Scope reports how apiVersion/kind is served: Namespaced, Cluster, or
// Unknown when discovery (refreshed once) does not know it or cannot be
// reached.
func (c *Client) Scope(ctx context.Context, apiVersion, kind string) adapters.Scope {
	m, err := c.mapping(ctx, apiVersion, kind)
	if err != nil {
		return adapters.Unknown
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		return adapters.Namespaced
	}
	return adapters.Cluster
}

// conn is a dynamic client with the REST client under it.
type conn struct {
	dynamic dynamic.Interface
	rc      rest.Interface
}

// clientFor returns the dynamic client that acts as identity ("" is the
// client's own identity), building and caching it on first use.
func (c *Client) clientFor(identity string) (dynamic.Interface, error) {
	cn, err := c.connFor(identity)
	return cn.dynamic, err
}

func (c *Client) connFor(identity string) (conn, error) {
	if identity == "" {
		return conn{c.dynamic, c.rc}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cn, ok := c.impersonal[identity]; ok {
		return cn, nil
	}
	cfg := rest.CopyConfig(c.base)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: identity}
	d, rc, err := newConn(cfg, c.dropManagedFields)
	if err != nil {
		return conn{}, err
	}
	cn := conn{d, rc}
	c.impersonal[identity] = cn
	return cn, nil
}

// fail builds a non-OK result from an error.
func fail(err error) adapters.Result {
	return adapters.Result{Outcome: Classify(err), Message: err.Error()}
}

// reject builds a result for a request the adapter refuses before sending.
func reject(outcome adapters.Outcome, format string, args ...any) adapters.Result {
	return adapters.Result{Outcome: outcome, Message: fmt.Sprintf(format, args...)}
}

// Do carries out one request and classifies its result.
func (c *Client) Do(ctx context.Context, req adapters.Request) adapters.Result {
	ref := req.Ref
	m, err := c.mapping(ctx, ref.APIVersion, ref.Kind)
	if err != nil {
		return fail(err)
	}
	namespaced := m.Scope.Name() == meta.RESTScopeNameNamespace

	var body *unstructured.Unstructured
	if req.Verb == adapters.Create || req.Verb == adapters.Update {
		if body, err = decodeObject(req); err != nil {
			return reject(adapters.Invalid, "%s %s: %v", req.Verb, ref, err)
		}
		if ref.Namespace == "" && namespaced {
			ref.Namespace = body.GetNamespace()
		}
		if ref.Name == "" {
			ref.Name = body.GetName()
		}
	}

	switch {
	case !namespaced && ref.Namespace != "":
		return reject(adapters.Unsupported, "%s %s: %s is cluster-scoped but a namespace was given", req.Verb, ref, ref.Kind)
	case namespaced && ref.Namespace == "" && req.Verb != adapters.List:
		return reject(adapters.Unsupported, "%s %s: %s is namespaced but no namespace was given", req.Verb, ref, ref.Kind)
	case ref.Name == "" && req.Verb != adapters.List && !(req.Verb == adapters.Create && body.GetGenerateName() != ""):
		return reject(adapters.Invalid, "%s %s: no name", req.Verb, ref)
	}

	dyn, err := c.clientFor(req.Identity)
	if err != nil {
		return fail(err)
	}
	var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
	if namespaced && ref.Namespace != "" {
		ri = dyn.Resource(m.Resource).Namespace(ref.Namespace)
	}
	var sub []string
	if req.Subresource != "" {
		sub = []string{req.Subresource}
	}
	var dryRun []string
	if req.DryRun {
		dryRun = []string{metav1.DryRunAll}
	}
	fieldManager := req.FieldManager
	if fieldManager == "" {
		fieldManager = c.fieldManager
	}

	var obj *unstructured.Unstructured
	switch req.Verb {
	case adapters.Get:
		obj, err = ri.Get(ctx, ref.Name, metav1.GetOptions{}, sub...)
	case adapters.List:
		if req.Subresource != "" {
			return reject(adapters.Invalid, "list %s: a list has no subresource", ref)
		}
		list, err := ri.List(ctx, metav1.ListOptions{LabelSelector: req.LabelSelector})
		if err != nil {
			return fail(err)
		}
		return adapters.Result{Outcome: adapters.OK, Items: canonicalItems(sortedItems(list.Items))}
	case adapters.Create:
		obj, err = ri.Create(ctx, body, metav1.CreateOptions{DryRun: dryRun, FieldManager: fieldManager}, sub...)
	case adapters.Update:
		obj, err = ri.Update(ctx, body, metav1.UpdateOptions{DryRun: dryRun, FieldManager: fieldManager}, sub...)
	case adapters.Patch:
		pt, ok := patchTypes[req.PatchType]
		if !ok {
			return reject(adapters.Invalid, "patch %s: unknown patch type %q", ref, req.PatchType)
		}
		opts := metav1.PatchOptions{DryRun: dryRun, FieldManager: fieldManager}
		if pt == types.ApplyPatchType {
			force := req.Force
			opts.Force = &force
		}
		body, perr := req.Payload()
		if perr != nil {
			return reject(adapters.Invalid, "patch %s: %v", ref, perr)
		}
		obj, err = ri.Patch(ctx, ref.Name, pt, body, opts, sub...)
	case adapters.Delete:
		opts := metav1.DeleteOptions{DryRun: dryRun}
		if req.Propagation != "" {
			p := metav1.DeletionPropagation(req.Propagation)
			switch p {
			case metav1.DeletePropagationForeground, metav1.DeletePropagationBackground, metav1.DeletePropagationOrphan:
			default:
				return reject(adapters.Invalid, "delete %s: unknown propagation policy %q", ref, req.Propagation)
			}
			opts.PropagationPolicy = &p
		}
		return c.delete(ctx, req.Identity, m, ref, opts, sub)
	default:
		return reject(adapters.Unsupported, "%s: unknown verb %q", ref, req.Verb)
	}
	if err != nil {
		return fail(err)
	}
	res := adapters.Result{Outcome: adapters.OK}
	if obj != nil {
		res.Object = canonicalObject(obj.Object)
	}
	return res
}

// canonicalObject returns obj as a canonical JSON value, as Results must
// hold (what the server sends nearly always is already).
func canonicalObject(obj map[string]any) map[string]any {
	if c, err := jsonvalue.Canonical(obj); err == nil {
		return c.(map[string]any)
	}
	return obj
}

func canonicalItems(items []map[string]any) []map[string]any {
	for i, it := range items {
		items[i] = canonicalObject(it)
	}
	return items
}

var patchTypes = map[adapters.PatchType]types.PatchType{
	"":                  types.MergePatchType,
	adapters.MergePatch: types.MergePatchType,
	adapters.JSONPatch:  types.JSONPatchType,
	adapters.ApplyPatch: types.ApplyPatchType,
}

// decodeObject reads the request body as an object, filling apiVersion and
// kind from the reference when the body leaves them out, and refusing a body
// that names another object than the reference.
func decodeObject(req adapters.Request) (*unstructured.Unstructured, error) {
	if req.Body == nil {
		return nil, fmt.Errorf("no body")
	}
	body, isObject := req.Body.(map[string]any)
	if !isObject {
		return nil, fmt.Errorf("body is not an object")
	}
	m, err := jsonvalue.Normalize(body) // a copy: the request's body is the caller's
	if err != nil {
		return nil, fmt.Errorf("body: %w", err)
	}
	u := &unstructured.Unstructured{Object: m.(map[string]any)}
	if u.GetAPIVersion() == "" {
		u.SetAPIVersion(req.Ref.APIVersion)
	}
	if u.GetKind() == "" {
		u.SetKind(req.Ref.Kind)
	}
	if u.GetAPIVersion() != req.Ref.APIVersion || u.GetKind() != req.Ref.Kind {
		return nil, fmt.Errorf("body is %s %s, the reference %s %s", u.GetAPIVersion(), u.GetKind(), req.Ref.APIVersion, req.Ref.Kind)
	}
	if req.Ref.Name != "" {
		if n := u.GetName(); n != "" && n != req.Ref.Name {
			return nil, fmt.Errorf("body names %q, the reference %q", n, req.Ref.Name)
		}
		u.SetName(req.Ref.Name)
	}
	if req.Ref.Namespace != "" {
		if ns := u.GetNamespace(); ns != "" && ns != req.Ref.Namespace {
			return nil, fmt.Errorf("body is in namespace %q, the reference in %q", ns, req.Ref.Namespace)
		}
		u.SetNamespace(req.Ref.Namespace)
	}
	return u, nil
}

// sortedItems returns the objects of a list sorted by namespace, then name.
func sortedItems(items []unstructured.Unstructured) []map[string]any {
	sort.SliceStable(items, func(i, j int) bool {
		if a, b := items[i].GetNamespace(), items[j].GetNamespace(); a != b {
			return a < b
		}
		return items[i].GetName() < items[j].GetName()
	})
	out := make([]map[string]any, len(items))
	for i := range items {
		out[i] = items[i].Object
	}
	return out
}

// delete sends a delete and answers as the server did: with the object
// when it stays (its finalizers hold it: deletionTimestamp set), with none
// when it is gone (the server's answer is then a Status).
func (c *Client) delete(ctx context.Context, identity string, m *meta.RESTMapping, ref adapters.Ref, opts metav1.DeleteOptions, sub []string) adapters.Result {
	cn, err := c.connFor(identity)
	if err != nil {
		return fail(err)
	}
	body, err := json.Marshal(&opts)
	if err != nil {
		return reject(adapters.Invalid, "delete %s: %v", ref, err)
	}
	gv := m.Resource.GroupVersion()
	segs := []string{"api", gv.Version}
	if gv.Group != "" {
		segs = []string{"apis", gv.Group, gv.Version}
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		segs = append(segs, "namespaces", ref.Namespace)
	}
	segs = append(append(segs, m.Resource.Resource, ref.Name), sub...)
	raw, err := cn.rc.Delete().AbsPath(segs...).SetHeader("Content-Type", runtime.ContentTypeJSON).Body(body).Do(ctx).Raw()
	if err != nil {
		return fail(err)
	}
	obj, ok := topObject(raw, c.dropManagedFields)
	if !ok || obj["kind"] == "Status" {
		return adapters.Result{Outcome: adapters.OK}
	}
	return adapters.Result{Outcome: adapters.OK, Object: canonicalObject(obj)}
}
