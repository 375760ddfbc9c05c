package sim

import (
	"sync"
	"sync/atomic"

	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/statecraft/statecraft/jsonvalue"
)

// Shortcuts. Most writes of a long simulation are of two shapes: a label
// patch of a stored object (the drift an actor makes, the engine's repair
// and its dry run) and a status write of a custom resource (every
// transition of a driven object). For each, the server's full path (decode
// the whole object into its types or coerce it by its schema, run the
// strategy and validate everything) is spent mostly on what did not
// change. The shortcuts below answer as the full path does, with the same
// library calls on the part that changed; where they cannot be sure (a
// validation error, whose message the full path words, or a shape they do
// not cover) they decline and the full path runs. TestShortcutsAgree
// checks them against the full path on random writes.

// labelsOnly returns the object the server stores for an update of old to
// obj (both canonical, obj sharing with old what did not change) when the
// two differ at most in metadata.labels, ok false otherwise or when the
// full path must answer. What the server does with such an update, for
// every kind served here but Namespace (whose defaulting sets the label
// kubernetes.io/metadata.name): decoding changes nothing stored (it was
// stored decoded), the strategies change nothing for labels (a
// Deployment's generation follows its spec and annotations, a custom
// resource's everything but metadata) and validation checks the labels
// with apimachinery's ValidateLabels; a CRD's schema and rules cannot see
// labels.
func labelsOnly(isNamespace bool, obj, old map[string]any) (map[string]any, bool) {
	if isNamespace {
		return nil, false
	}
	if len(obj) != len(old) {
		return nil, false
	}
	for key, v := range obj {
		if key == "metadata" {
			continue
		}
		ov, has := old[key]
		if !has || !identical(v, ov) {
			return nil, false
		}
	}
	md, _ := obj["metadata"].(map[string]any)
	omd, _ := old["metadata"].(map[string]any)
	if md == nil || omd == nil {
		return nil, false
	}
	n := 0
	for key, v := range md {
		if key == "labels" {
			continue
		}
		n++
		ov, has := omd[key]
		if !has || !identical(v, ov) {
			return nil, false
		}
	}
	if _, has := omd["labels"]; has {
		n++
	}
	if n != len(omd) {
		return nil, false
	}
	labels, isMap := md["labels"].(map[string]any)
	if _, has := md["labels"]; has && !isMap {
		return nil, false
	}
	strs := make(map[string]string, len(labels))
	for key, v := range labels {
		s, isString := v.(string)
		if !isString {
			return nil, false
		}
		strs[key] = s
	}
	if errs := metav1validation.ValidateLabels(strs, fieldpath.NewPath("metadata", "labels")); len(errs) > 0 {
		return nil, false
	}
	if len(labels) == 0 {
		// Without labels a kind's defaulting may give it some (a Job
		// takes its template's when the server reads it back).
		return nil, false
	}
	out := shallowMeta(obj)
	shortcutsTaken.Add(1)
	return out, true
}

// shortcutsTaken counts the writes a shortcut answered (for tests).
var shortcutsTaken atomic.Int64

// identical reports whether two canonical values are equal, by identity
// first: a merge shares what it did not change.
func identical(a, b any) bool {
	if am, ok := a.(map[string]any); ok {
		if bm, ok := b.(map[string]any); ok && sameMap(am, bm) {
			return true
		}
	}
	return jsonvalue.Equal(a, b)
}

// statusShortcut is what a custom resource's status writes need to be
// answered without the full path: the status schema, and its validators.
type statusShortcut struct {
	structural *structuralschema.Structural
	prune      *pruneNode // of structural
	validate   *vnode
	defaults   bool // the status schema has defaults
	// lists is the status schema with only the branches that hold a list
	// of type set or map, the only ones ValidateListSetsAndMaps has
	// anything to say about (nil: none).
	lists *structuralschema.Structural
}

// newStatusShortcut returns the shortcut for a CRD version's status
// writes, nil when its schema puts validation rules on the root or
// anywhere in the status (then the full path's CEL validator must see the
// object), or embeds resources in the status.
func newStatusShortcut(s *structuralschema.Structural, props *apiextensionsinternal.JSONSchemaProps) *statusShortcut {
	if s == nil || props == nil || len(s.XValidations) > 0 {
		return nil
	}
	st, ok := s.Properties["status"]
	sp, hasProps := props.Properties["status"]
	if !ok || !hasProps || hasRulesOrEmbedded(&st) {
		return nil
	}
	v, err := newVnode(&sp)
	if err != nil {
		return nil
	}
	return &statusShortcut{structural: &st, prune: newPruneNode(&st), validate: v, defaults: hasDefaults(&st), lists: listBranches(&st)}
}

// listBranches returns a copy of s keeping only the properties, items and
// additional properties that lead to a list of type set or map, nil when
// none does.
func listBranches(s *structuralschema.Structural) *structuralschema.Structural {
	if s == nil {
		return nil
	}
	out := &structuralschema.Structural{Extensions: structuralschema.Extensions{XListType: s.XListType, XListMapKeys: s.XListMapKeys}}
	found := s.XListType != nil && (*s.XListType == "set" || *s.XListType == "map")
	for name := range s.Properties {
		p := s.Properties[name]
		if b := listBranches(&p); b != nil {
			if out.Properties == nil {
				out.Properties = map[string]structuralschema.Structural{}
			}
			out.Properties[name] = *b
			found = true
		}
	}
	if b := listBranches(s.Items); b != nil {
		out.Items, found = b, true
	}
	if s.AdditionalProperties != nil {
		if b := listBranches(s.AdditionalProperties.Structural); b != nil {
			out.AdditionalProperties, found = &structuralschema.StructuralOrBool{Structural: b}, true
		}
	}
	if !found {
		return nil
	}
	return out
}

// mayPrune reports whether pruning v by s could remove anything: a member
// no property, additional property or preserved unknown field keeps. It
// answers yes where it is not sure (an embedded resource, a value it does
// not know), and pruning then decides; no only where pruning would remove
// nothing, so that it need not walk (pruning is the server's: this only
// spares a walk that finds nothing).
func mayPrune(v any, s *pruneNode) bool {
	if s == nil {
		_, scalar := v.(map[string]any)
		_, list := v.([]any)
		return scalar || list
	}
	if s.embedded {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if p, ok := s.props[k]; ok {
				if mayPrune(e, p) {
					return true
				}
				continue
			}
			if s.additional {
				if s.additionalSchema == nil || mayPrune(e, s.additionalSchema) {
					return true
				}
				continue
			}
			if !s.preserve {
				return true
			}
			// kept as it is: pruning does not look below an unknown
			// field x-kubernetes-preserve-unknown-fields keeps
		}
	case []any:
		for _, e := range x {
			if mayPrune(e, s.items) {
				return true
			}
		}
	}
	return false
}

// pruneNode is what mayPrune reads of a structural schema, made once per
// schema: the properties are held by pointer, where the schema holds them
// by value (reading one there copies it).
type pruneNode struct {
	embedded, preserve bool
	props              map[string]*pruneNode
	additional         bool       // additionalProperties is set
	additionalSchema   *pruneNode // nil when additionalProperties is a bool
	items              *pruneNode
}

func newPruneNode(s *structuralschema.Structural) *pruneNode {
	if s == nil {
		return nil
	}
	n := &pruneNode{embedded: s.XEmbeddedResource, preserve: s.XPreserveUnknownFields, items: newPruneNode(s.Items)}
	if len(s.Properties) > 0 {
		n.props = make(map[string]*pruneNode, len(s.Properties))
		for k, p := range s.Properties {
			n.props[k] = newPruneNode(&p)
		}
	}
	if s.AdditionalProperties != nil {
		n.additional = true
		n.additionalSchema = newPruneNode(s.AdditionalProperties.Structural)
	}
	return n
}

func hasDefaults(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.Default.Object != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefaults(&p) {
			return true
		}
	}
	if s.Items != nil && hasDefaults(s.Items) {
		return true
	}
	return s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil && hasDefaults(s.AdditionalProperties.Structural)
}

// hasNull reports whether v holds a null anywhere.
func hasNull(v any) bool {
	switch t := v.(type) {
	case nil:
		return true
	case map[string]any:
		for _, e := range t {
			if hasNull(e) {
				return true
			}
		}
	case []any:
		for _, e := range t {
			if hasNull(e) {
				return true
			}
		}
	}
	return false
}

// vnode validates one node of a schema with the server's validator
// (apiextensions-apiserver's SchemaValidator, kube-openapi's), and knows
// where it may look at less: an object whose schema constrains nothing but
// its properties' values and which ones are present is valid when those
// are and each property is; a list of type map when its items are. Values
// the write did not change are skipped: the full path's ratcheting lets
// their errors pass, and a stored object was validated when it was
// written (see statusShortcut.status). It only ever says valid where the
// validator would: a "no" sends the write down the full path.
type vnode struct {
	validator apiservervalidation.SchemaValidator
	props     map[string]*vnode // a plain object's properties
	required  []string          // and the ones it requires
	items     *vnode            // a plain list of type map's items
	keys      []string          // its map keys

	// memo remembers the verdicts on scalars (a pure function of the
	// value and the schema), up to memoSize of them.
	mu   sync.Mutex
	memo map[any]bool
}

const memoSize = 4096

func newVnode(p *apiextensionsinternal.JSONSchemaProps) (*vnode, error) {
	v, _, err := apiservervalidation.NewSchemaValidator(p)
	if err != nil {
		return nil, err
	}
	n := &vnode{validator: v}
	plain := len(p.AllOf) == 0 && len(p.AnyOf) == 0 && len(p.OneOf) == 0 && p.Not == nil && len(p.Enum) == 0 &&
		len(p.XValidations) == 0 && !p.Nullable
	switch {
	case plain && p.Type == "object" && p.MinProperties == nil && p.MaxProperties == nil &&
		p.AdditionalProperties == nil && len(p.PatternProperties) == 0 && len(p.Dependencies) == 0 && len(p.Properties) > 0:
		n.props = map[string]*vnode{}
		n.required = p.Required
		for name := range p.Properties {
			c := p.Properties[name]
			if n.props[name], err = newVnode(&c); err != nil {
				return nil, err
			}
		}
	case plain && p.Type == "array" && p.MinItems == nil && p.MaxItems == nil && !p.UniqueItems &&
		p.XListType != nil && *p.XListType == "map" && len(p.XListMapKeys) > 0 && p.Items != nil && p.Items.Schema != nil:
		if n.items, err = newVnode(p.Items.Schema); err != nil {
			return nil, err
		}
		n.keys = p.XListMapKeys
	}
	return n, nil
}

// valid reports whether the server's validator finds no error in v where
// it changed from old (nil: v is new).
func (n *vnode) valid(v, old any, changed bool) bool {
	if changed && identical(v, old) {
		return true
	}
	switch {
	case n.props != nil:
		if m, isMap := v.(map[string]any); isMap {
			for _, k := range n.required {
				if _, has := m[k]; !has {
					return false
				}
			}
			om, _ := old.(map[string]any)
			for k, cv := range m {
				c, declared := n.props[k]
				if !declared {
					continue // kept by x-kubernetes-preserve-unknown-fields: nothing to check
				}
				ov, had := om[k]
				if !c.valid(cv, ov, had) {
					return false
				}
			}
			return true
		}
	case n.items != nil:
		if l, isList := v.([]any); isList {
			ol, _ := old.([]any)
			for _, it := range l {
				o, had := sameKeys(ol, it, n.keys)
				if !n.items.valid(it, o, had) {
					return false
				}
			}
			return true
		}
	}
	switch v.(type) {
	case string, int64, float64, bool:
	default:
		return len(apiservervalidation.ValidateCustomResource(nil, v, n.validator)) == 0
	}
	n.mu.Lock()
	ok, known := n.memo[v]
	n.mu.Unlock()
	if known {
		return ok
	}
	ok = len(apiservervalidation.ValidateCustomResource(nil, v, n.validator)) == 0
	n.mu.Lock()
	if n.memo == nil || len(n.memo) >= memoSize {
		n.memo = map[any]bool{}
	}
	n.memo[v] = ok
	n.mu.Unlock()
	return ok
}

// sameKeys finds the item of l whose map keys are those of it.
func sameKeys(l []any, it any, keys []string) (any, bool) {
	m, _ := it.(map[string]any)
	for _, o := range l {
		om, _ := o.(map[string]any)
		same := om != nil && m != nil
		for _, k := range keys {
			if !same || !jsonvalue.Equal(om[k], m[k]) {
				same = false
				break
			}
		}
		if same {
			return o, true
		}
	}
	return nil, false
}

func hasRulesOrEmbedded(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if len(s.XValidations) > 0 || s.XEmbeddedResource {
		return true
	}
	for _, p := range s.Properties {
		if hasRulesOrEmbedded(&p) {
			return true
		}
	}
	if s.Items != nil && hasRulesOrEmbedded(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil && hasRulesOrEmbedded(s.AdditionalProperties.Structural) {
		return true
	}
	return false
}

// status answers a status write of a custom resource (obj the result of
// the request, old the stored object) as the status strategy does: the
// stored object with the new status, pruned, coerced and defaulted by the
// status schema, validated by the status schema and by the list types.
// The CEL validator has nothing to say: no rule is on the root or in the
// status, and rules elsewhere see unchanged values, whose errors ratchet.
func (sc *statusShortcut) status(obj, old map[string]any) (map[string]any, bool) {
	out := shallowMeta(old)
	st, has := obj["status"]
	if !has {
		delete(out, "status")
		return out, true
	}
	m, isMap := st.(map[string]any)
	if !isMap {
		return nil, false
	}
	// What the codec does to the status, by its schema: prune unknown
	// fields, drop nulls that may not be null, default. (No embedded
	// resource in the status: there is no metadata to coerce.) What the
	// write did not change was stored so already, pruned, defaulted and
	// checked for its list types (and unchanged, its errors would
	// ratchet): only the changed members are copied (pruning changes in
	// place), pruned and checked. Defaults may fill absent members: with
	// defaults in the schema, the whole status is.
	//
	// The changed members are the request's own (a merge patch builds
	// new maps where it merges and copies what it sets; a body is
	// decoded into a copy), and what they share with the stored status
	// is stored pruned and defaulted already, which pruning and
	// defaulting leave as they are: they are processed where they are.
	oldMap, _ := old["status"].(map[string]any)
	status := make(map[string]any, len(m))
	changed := make(map[string]any, len(m))
	for k, v := range m {
		status[k] = v
		if ov, had := oldMap[k]; !had || !identical(v, ov) || sc.defaults {
			changed[k] = v
		}
	}
	// The changed members' names, kept apart: pruning deletes from
	// work, which may be changed itself.
	names := make([]string, 0, len(changed))
	for k := range changed {
		names = append(names, k)
	}
	work := changed
	if sc.defaults {
		work = status
	}
	if mayPrune(work, sc.prune) {
		structuralpruning.PruneWithOptions(work, sc.structural, false, structuralschema.UnknownFieldPathOptions{})
	}
	if hasNull(work) {
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(work, sc.structural)
	}
	if sc.defaults {
		structuraldefaulting.Default(status, sc.structural)
	}
	for _, k := range names {
		// Pruning may have dropped a member: it goes from status too.
		if v, still := work[k]; still {
			status[k] = v
		} else {
			delete(status, k)
		}
	}
	// What is unchanged is not validated again: the full path's
	// ratcheting lets its errors pass. Any error sends the write down the
	// full path, which words it.
	oldStatus, had := old["status"]
	if !sc.validate.valid(status, oldStatus, had) {
		return nil, false
	}
	if sc.lists != nil {
		if errs := structurallisttype.ValidateListSetsAndMaps(fieldpath.NewPath("status"), sc.lists, work); len(errs) > 0 {
			return nil, false
		}
	}
	if sc.defaults {
		// Defaults come from the schema's JSON: make them canonical.
		n, err := jsonvalue.Normalize(status)
		if err != nil {
			return nil, false
		}
		status = n.(map[string]any)
	}
	out["status"] = status
	shortcutsTaken.Add(1)
	return out, true
}
