package sim

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// Field ownership is structured-merge-diff's, through apimachinery's
// managedfields.FieldManager, as kube-apiserver runs it: every write
// records its manager's fields in metadata.managedFields (an Update
// operation, or an Apply), server-side apply merges with the list types
// and map keys of the kind's schema (containers by name, finalizers as a
// set), conflicts are the library's, and the fields a strategy resets
// (status for the main resource, all but status for the status
// subresource) are never owned through the other. The one difference:
// the times the library stamps from the wall clock are replaced by the
// virtual clock's.

// builtinTypes is the type converter of the built-in kinds: the schemas
// client-go carries for server-side apply, generated from the same
// OpenAPI as kube-apiserver's.
var builtinTypes = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(legacyscheme.Scheme)
})

// fieldManager is one kind's field manager for one subresource.
type fieldOwner struct {
	fm *managedfields.FieldManager
}

// managerCache keeps a server's field managers, one per subresource.
type managerCache struct {
	mu sync.Mutex
	m  map[string]*fieldOwner
}

func (mc *managerCache) get(subresource string, make func() (*fieldOwner, error)) (*fieldOwner, error) {
	mc.mu.Lock()
	defer mc.mu.Unlock()
	if f, ok := mc.m[subresource]; ok {
		return f, nil
	}
	f, err := make()
	if err != nil {
		return nil, err
	}
	if mc.m == nil {
		mc.m = map[string]*fieldOwner{}
	}
	mc.m[subresource] = f
	return f, nil
}

func newFieldManager(types managedfields.TypeConverter, gvk schema.GroupVersionKind, subresource string, resets rest.ResetFieldsStrategy, srv server) (*fieldOwner, error) {
	var filters map[fieldpath.APIVersion]fieldpath.Filter
	if resets != nil {
		filters = fieldpath.NewExcludeFilterSetMap(resets.GetResetFields())
	}
	fm, err := managedfields.NewDefaultCRDFieldManager(types, sameVersion{}, serverDefaulter{srv}, unstructuredCreater{}, gvk, gvk.GroupVersion(), subresource, filters)
	if err != nil {
		return nil, err
	}
	return &fieldOwner{fm: fm}, nil
}

// update records an Update operation of manager that turned live (nil for
// a create) into obj, in obj's metadata.managedFields; obj is changed.
func (f *fieldOwner) update(live, obj map[string]any, manager string, now time.Time, gvk schema.GroupVersionKind) (map[string]any, error) {
	liveObj := runtime.Object(emptyObject(gvk))
	if live != nil {
		liveObj = unstructuredOf(shallowMeta(live))
	}
	out, err := f.fm.Update(liveObj, unstructuredOf(obj), manager)
	if err != nil {
		return nil, err
	}
	u := out.(*unstructured.Unstructured).Object
	stampTimes(live, u, now)
	return u, nil
}

// apply merges the applied configuration cfg into live (nil: the object
// does not exist) for manager.
func (f *fieldOwner) apply(live, cfg map[string]any, manager string, force bool, now time.Time, gvk schema.GroupVersionKind) (map[string]any, error) {
	liveObj := emptyObject(gvk)
	if live != nil {
		liveObj = unstructuredOf(shallowMeta(live))
	}
	out, err := f.fm.Apply(liveObj, unstructuredOf(cfg), manager, force)
	if err != nil {
		return nil, err
	}
	u := out.(*unstructured.Unstructured).Object
	stampTimes(live, u, now)
	return u, nil
}

func emptyObject(gvk schema.GroupVersionKind) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	u.SetGroupVersionKind(gvk)
	return u
}

// shallowMeta copies the top level and the metadata of obj, which the
// field manager's wrappers may set.
func shallowMeta(obj map[string]any) map[string]any {
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

// stampTimes replaces the wall-clock times the library gave the entries
// it changed with the virtual time: an entry whose manager, operation,
// subresource, version, fields and time are those of an entry of live is
// unchanged and keeps its time.
func stampTimes(live, obj map[string]any, now time.Time) {
	md, _ := obj["metadata"].(map[string]any)
	entries, _ := md["managedFields"].([]any)
	if len(entries) == 0 {
		return
	}
	var old []any
	if live != nil {
		lm, _ := live["metadata"].(map[string]any)
		old, _ = lm["managedFields"].([]any)
	}
	stamp := now.UTC().Format(time.RFC3339)
	out := make([]any, len(entries))
	stamped := false
	for i, e := range entries {
		m, _ := e.(map[string]any)
		keep := false
		for _, o := range old {
			if om, _ := o.(map[string]any); om != nil && sameEntry(om, m) {
				keep = true
				break
			}
		}
		if keep || m == nil {
			out[i] = e
			continue
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			c[k] = v
		}
		if _, has := c["time"]; has {
			c["time"] = stamp
			stamped = true
		}
		out[i] = c
	}
	if stamped {
		sortManagedFields(out)
	}
	md["managedFields"] = out
}

// sortManagedFields puts entries in the order the library encodes them
// in (managedfields' sortEncodedManagedFields: by operation, time in
// seconds, manager, apiVersion, subresource), by their virtual times: the
// library sorted them by the wall-clock times stampTimes replaced, which
// put the entry just written last. Without this, the next write that
// changes nothing would find them in another order, and store a change
// the server does not make.
func sortManagedFields(entries []any) {
	type key struct {
		operation, manager, apiVersion, subresource string
		seconds                                     int64
	}
	keyOf := func(e any) key {
		m, _ := e.(map[string]any)
		var k key
		k.operation, _ = m["operation"].(string)
		k.manager, _ = m["manager"].(string)
		k.apiVersion, _ = m["apiVersion"].(string)
		k.subresource, _ = m["subresource"].(string)
		if s, _ := m["time"].(string); s != "" {
			if t, err := time.Parse(time.RFC3339, s); err == nil {
				k.seconds = t.Unix()
			}
		}
		return k
	}
	sort.SliceStable(entries, func(i, j int) bool {
		p, q := keyOf(entries[i]), keyOf(entries[j])
		if p.operation != q.operation {
			return p.operation < q.operation
		}
		if p.seconds != q.seconds {
			return p.seconds < q.seconds
		}
		if p.manager != q.manager {
			return p.manager < q.manager
		}
		if p.apiVersion != q.apiVersion {
			return p.apiVersion < q.apiVersion
		}
		return p.subresource < q.subresource
	})
}

func sameEntry(a, b map[string]any) bool {
	for _, k := range []string{"manager", "operation", "subresource", "apiVersion", "time", "fieldsType"} {
		if a[k] != b[k] {
			return false
		}
	}
	return reflect.DeepEqual(a["fieldsV1"], b["fieldsV1"])
}

// sameVersion is the object converter of a kind served at one version:
// conversion to that version changes nothing.
type sameVersion struct{}

func (sameVersion) Convert(in, out, context interface{}) error {
	return fmt.Errorf("the simulator converts no object between versions")
}

func (sameVersion) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}

func (sameVersion) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// serverDefaulter defaults what server-side apply merged, as the kind's
// codec would.
type serverDefaulter struct{ srv server }

func (d serverDefaulter) Default(in runtime.Object) {
	u, ok := in.(*unstructured.Unstructured)
	if !ok {
		return
	}
	if out, err := d.srv.defaults(u.Object); err == nil {
		u.Object = out
	}
}

type unstructuredCreater struct{}

func (unstructuredCreater) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	return emptyObject(gvk), nil
}

// ManagedFields is one field manager's entry of an object's
// metadata.managedFields.
type ManagedFields struct {
	Manager     string
	Operation   string // "Apply" or "Update"
	Subresource string
	APIVersion  string
	Time        string
	// Fields lists the owned fields as structured-merge-diff prints
	// paths (".metadata.labels.app", ".spec.template.spec.containers[name=\"app\"].image"), sorted.
	Fields []string
}

// managedFieldsOf decodes the managedFields of an object.
func managedFieldsOf(obj map[string]any) ([]ManagedFields, error) {
	entries := unstructuredOf(obj).GetManagedFields()
	var out []ManagedFields
	for _, e := range entries {
		mf := ManagedFields{Manager: e.Manager, Operation: string(e.Operation), Subresource: e.Subresource, APIVersion: e.APIVersion}
		if e.Time != nil {
			mf.Time = e.Time.UTC().Format(time.RFC3339)
		}
		if e.FieldsV1 != nil {
			set := &fieldpath.Set{}
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
				return nil, err
			}
			set.Leaves().Iterate(func(p fieldpath.Path) { mf.Fields = append(mf.Fields, p.String()) })
			sort.Strings(mf.Fields)
		}
		out = append(out, mf)
	}
	return out, nil
}
