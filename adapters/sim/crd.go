package sim

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	apiextensionshelpers "k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsinternal "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresource"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kube-openapi/pkg/spec3"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/statecraft/statecraft/jsonvalue"
)

// Custom resources are served by apiextensions-apiserver's own code,
// compiled once when their CustomResourceDefinition is stored, per served
// version, as the server builds its serving info: the structural schema
// (pruning unknown fields, coercing metadata, defaulting), the schema
// validators of the object and of its status, the CEL validator of the
// x-kubernetes-validations rules, transition rules included (inside the
// customresource strategy), and the type converter server-side apply
// merges with (list types and map keys from the schema).

// customServer serves one version of a custom resource.
type customServer struct {
	gvk        schema.GroupVersionKind
	structural *structuralschema.Structural
	preserve   bool // spec.preserveUnknownFields
	create     strategy
	status     rest.RESTUpdateStrategy // nil without a status subresource
	types      managedfields.TypeConverter
	managers   managerCache
	// statusWrites answers status writes without the full path; nil
	// when the schema does not allow it (see newStatusShortcut).
	statusWrites *statusShortcut
}

// newCustomServer compiles the serving of one version of crd.
func newCustomServer(crd *apiextensionsv1.CustomResourceDefinition, version string) (*customServer, error) {
	kind := schema.GroupVersionKind{Group: crd.Spec.Group, Version: version, Kind: crd.Spec.Names.Kind}
	val, err := apiextensionshelpers.GetSchemaForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	s := &customServer{gvk: kind, preserve: crd.Spec.PreserveUnknownFields}
	var internalValidation *apiextensionsinternal.CustomResourceValidation
	if val != nil {
		internalValidation = &apiextensionsinternal.CustomResourceValidation{}
		if err := apiextensionsv1.Convert_v1_CustomResourceValidation_To_apiextensions_CustomResourceValidation(val, internalValidation, nil); err != nil {
			return nil, fmt.Errorf("failed converting CRD validation to internal version: %v", err)
		}
		st, err := structuralschema.NewStructural(internalValidation.OpenAPIV3Schema)
		if err != nil && !crd.Spec.PreserveUnknownFields {
			return nil, fmt.Errorf("the schema of %s is not structural: %v", crd.Name, err)
		}
		if st != nil && !crd.Spec.PreserveUnknownFields {
			st = st.DeepCopy()
			if err := structuraldefaulting.PruneDefaults(st); err != nil {
				return nil, fmt.Errorf("failed to prune defaults: %v", err)
			}
		}
		s.structural = st
	}
	var props *apiextensionsinternal.JSONSchemaProps
	if internalValidation != nil {
		props = internalValidation.OpenAPIV3Schema
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(props)
	if err != nil {
		return nil, err
	}
	var statusSpec *apiextensionsinternal.CustomResourceSubresourceStatus
	var statusValidator apiservervalidation.SchemaValidator
	var scaleSpec *apiextensionsinternal.CustomResourceSubresourceScale
	subresources, err := apiextensionshelpers.GetSubresourcesForVersion(crd, version)
	if err != nil {
		return nil, err
	}
	if subresources != nil && subresources.Status != nil {
		statusSpec = &apiextensionsinternal.CustomResourceSubresourceStatus{}
		if props != nil && props.Properties != nil {
			if statusSchema, ok := props.Properties["status"]; ok {
				if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&statusSchema); err != nil {
					return nil, err
				}
			}
		}
	}
	if subresources != nil && subresources.Scale != nil {
		scaleSpec = &apiextensionsinternal.CustomResourceSubresourceScale{}
		if err := apiextensionsv1.Convert_v1_CustomResourceSubresourceScale_To_apiextensions_CustomResourceSubresourceScale(subresources.Scale, scaleSpec, nil); err != nil {
			return nil, err
		}
	}
	var selectable []apiextensionsv1.SelectableField
	for _, v := range crd.Spec.Versions {
		if v.Name == version {
			selectable = v.SelectableFields
		}
	}
	if statusValidator != nil {
		s.statusWrites = newStatusShortcut(s.structural, props)
	}
	st := customresource.NewStrategy(unstructuredTyper{}, crd.Spec.Scope == apiextensionsv1.NamespaceScoped, kind,
		validator, statusValidator, s.structural, statusSpec, scaleSpec, selectable)
	s.create = st
	if statusSpec != nil {
		s.status = customresource.NewStatusStrategy(st)
	}
	s.types, err = crdTypeConverter(crd, version)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// crdTypeConverter builds the type converter server-side apply uses for a
// custom resource, from the OpenAPI the server publishes for it (what
// apiextensions-apiserver's buildOpenAPIModelsForApply makes); a kind
// without a schema gets the deduced converter (every list atomic).
func crdTypeConverter(crd *apiextensionsv1.CustomResourceDefinition, version string) (managedfields.TypeConverter, error) {
	has := false
	for _, v := range crd.Spec.Versions {
		if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
			has = true
		}
	}
	if !has {
		return managedfields.NewDeducedTypeConverter(), nil
	}
	var specs []*spec3.OpenAPI
	for _, v := range crd.Spec.Versions {
		o, err := builder.BuildOpenAPIV3(crd, v.Name, builder.Options{})
		if err != nil {
			return nil, err
		}
		specs = append(specs, o)
	}
	merged, err := builder.MergeSpecsV3(specs...)
	if err != nil {
		return nil, err
	}
	models := map[string]*spec.Schema{}
	for name, s := range merged.Components.Schemas {
		models[name] = s
	}
	return managedfields.NewTypeConverter(models, crd.Spec.PreserveUnknownFields)
}

// unstructuredTyper types unstructured objects by their apiVersion and
// kind, as apiextensions-apiserver's UnstructuredObjectTyper does.
type unstructuredTyper struct{}

func (unstructuredTyper) ObjectKinds(obj runtime.Object) ([]schema.GroupVersionKind, bool, error) {
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Kind == "" {
		return nil, false, runtime.NewMissingKindErr("unstructured object has no kind")
	}
	return []schema.GroupVersionKind{gvk}, false, nil
}

func (unstructuredTyper) Recognizes(schema.GroupVersionKind) bool { return true }

func (s *customServer) hasStatus() bool           { return s.status != nil }
func (s *customServer) unconditionalUpdate() bool { return false }
func (s *customServer) createOnUpdate() bool      { return false }

func (s *customServer) empty(k *kindInfo) map[string]any {
	return map[string]any{"apiVersion": k.apiVersion, "kind": k.kind, "metadata": map[string]any{}}
}

// gcPolicy: the customresource strategy has no default policy of its own,
// which the registry store reads as DeleteDependents.
func (s *customServer) gcPolicy(context.Context) rest.GarbageCollectionPolicy {
	return rest.DeleteDependents
}

// coerce does what the custom resource codec does to every object it
// decodes: metadata through ObjectMeta, unknown fields pruned, nulls that
// may not be null dropped, embedded objects' metadata coerced; then
// defaulting. obj is changed in place.
func (s *customServer) coerce(obj map[string]any) error {
	kind, _ := obj["kind"].(string)
	apiVersion, _ := obj["apiVersion"].(string)
	objectMeta, found, _, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{})
	if err != nil {
		return apierrors.NewBadRequest(err.Error())
	}
	if s.structural != nil {
		if !s.preserve {
			structuralpruning.PruneWithOptions(obj, s.structural, true, structuralschema.UnknownFieldPathOptions{})
			structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, s.structural)
		}
		if err, _ := schemaobjectmeta.CoerceWithOptions(nil, obj, s.structural, false, schemaobjectmeta.CoerceOptions{}); err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
	}
	if kind != "" {
		obj["kind"] = kind
	}
	if apiVersion != "" {
		obj["apiVersion"] = apiVersion
	}
	if found {
		if err := schemaobjectmeta.SetObjectMeta(obj, objectMeta); err != nil {
			return apierrors.NewBadRequest(err.Error())
		}
	}
	if s.structural != nil {
		structuraldefaulting.Default(obj, s.structural)
	}
	return nil
}

func (s *customServer) defaults(obj map[string]any) (map[string]any, error) {
	u := jsonvalue.DeepCopy(obj).(map[string]any)
	if err := s.coerce(u); err != nil {
		return nil, err
	}
	return canonical(u)
}

func (s *customServer) prepare(ctx func() context.Context, obj, old map[string]any, subresource string, _ *any, shortcuts, _ bool) (map[string]any, error) {
	if old != nil && shortcuts {
		switch {
		case subresource == "status" && s.statusWrites != nil && s.status != nil:
			if out, ok := s.statusWrites.status(obj, old); ok {
				return out, nil
			}
		case subresource == "":
			if out, ok := labelsOnly(false, obj, old); ok {
				return out, nil
			}
		}
	}
	u := jsonvalue.DeepCopy(obj).(map[string]any)
	if err := s.coerce(u); err != nil {
		return nil, err
	}
	in := unstructuredOf(u)
	if old == nil {
		if err := rest.BeforeCreate(s.create, ctx(), in); err != nil {
			return nil, err
		}
	} else {
		var st rest.RESTUpdateStrategy = s.create
		if subresource == "status" {
			st = s.status
		}
		if err := rest.BeforeUpdate(st, ctx(), in, unstructuredOf(jsonvalue.DeepCopy(old).(map[string]any))); err != nil {
			return nil, err
		}
	}
	return canonical(in.Object)
}

func (s *customServer) fields(subresource string) (*fieldOwner, error) {
	return s.managers.get(subresource, func() (*fieldOwner, error) {
		var resets rest.ResetFieldsStrategy
		if subresource == "status" {
			resets, _ = s.status.(rest.ResetFieldsStrategy)
		} else {
			resets, _ = s.create.(rest.ResetFieldsStrategy)
		}
		return newFieldManager(s.types, s.gvk, subresource, resets, s)
	})
}

// genericCRD is the CustomResourceDefinition RegisterKind serves a kind
// with: no schema but one that keeps every field, a status subresource
// when asked for.
func genericCRD(apiVersion, kind, plural string, namespaced, hasStatus bool) *apiextensionsv1.CustomResourceDefinition {
	gv, _ := schema.ParseGroupVersion(apiVersion)
	preserve := true
	v := apiextensionsv1.CustomResourceDefinitionVersion{Name: gv.Version, Served: true, Storage: true,
		Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
			Type: "object", XPreserveUnknownFields: &preserve}}}
	if hasStatus {
		v.Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	}
	scope := apiextensionsv1.ClusterScoped
	if namespaced {
		scope = apiextensionsv1.NamespaceScoped
	}
	crd := &apiextensionsv1.CustomResourceDefinition{Spec: apiextensionsv1.CustomResourceDefinitionSpec{
		Group: gv.Group, Scope: scope, Versions: []apiextensionsv1.CustomResourceDefinitionVersion{v},
		Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural},
	}}
	crd.Name = plural + "." + gv.Group
	return crd
}

// customServers keeps the compiled serving of every CRD version seen in
// the process, keyed by the definition's spec: schemas, validators and CEL
// programs are compiled once, as the server compiles them once per CRD,
// however many clusters serve it.
var customServers sync.Map // string → *customServer or error

func cachedCustomServer(crd *apiextensionsv1.CustomResourceDefinition, version string) (*customServer, error) {
	spec, err := json.Marshal(crd.Spec)
	if err != nil {
		return nil, err
	}
	key := version + "\x00" + string(spec)
	if v, ok := customServers.Load(key); ok {
		if s, isServer := v.(*customServer); isServer {
			return s, nil
		}
		return nil, v.(error)
	}
	s, err := newCustomServer(crd, version)
	if err != nil {
		customServers.Store(key, err)
		return nil, err
	}
	v, _ := customServers.LoadOrStore(key, s)
	return v.(*customServer), nil
}

// crdOf decodes a stored CustomResourceDefinition.
func crdOf(obj map[string]any) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, crd); err != nil {
		return nil, err
	}
	return crd, nil
}
