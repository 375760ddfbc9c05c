package fsm

import (
	"bytes"
	"fmt"
	"regexp"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/rules"
)

// selfType derives the CEL type of `self` from the CRD manifest a resource
// names: the OpenAPI v3 schema of the version the resource binds, made
// structural, its metadata given the full ObjectMeta (validation rules see
// only name and generateName; a lifecycle needs namespace, uid, generation,
// labels, annotations, owner references, timestamps), and turned into a CEL
// declaration type as the API server does. Formats that would change a
// field's CEL type (date-time, duration, byte, int-or-string) are dropped:
// the engine hands self over as the unstructured object the API returns, so
// a timestamp is a string, read with timestamp(...) as any status field.
// It returns the type and env options declaring its fields.
func selfType(r *rules.Resource, base types.Provider) (*cel.Type, []cel.EnvOption, error) {
	var crd apiextensionsv1.CustomResourceDefinition
	docs := bytes.Split(r.SchemaSource, []byte("\n---"))
	found := false
	for _, doc := range docs {
		if err := yaml.Unmarshal(doc, &crd); err != nil {
			return nil, nil, fmt.Errorf("not a CustomResourceDefinition: %v", err)
		}
		if crd.Kind == "CustomResourceDefinition" && crd.Spec.Names.Kind == r.Kind {
			found = true
			break
		}
	}
	if !found {
		return nil, nil, fmt.Errorf("the manifest holds no CustomResourceDefinition of kind %s", r.Kind)
	}
	group, version := splitAPIVersion(r.APIVersion)
	if crd.Spec.Group != group {
		return nil, nil, fmt.Errorf("the CRD's group is %q, the resource's %q", crd.Spec.Group, group)
	}
	var props *apiextensionsv1.JSONSchemaProps
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Schema != nil {
			props = v.Schema.OpenAPIV3Schema
		}
	}
	if props == nil {
		return nil, nil, fmt.Errorf("the CRD has no schema for version %s", version)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(props, &internal, nil); err != nil {
		return nil, nil, fmt.Errorf("converting the schema: %v", err)
	}
	structural, err := structuralschema.NewStructural(&internal)
	if err != nil {
		return nil, nil, fmt.Errorf("the schema is not structural: %v", err)
	}
	structural = withObjectMeta(structural)
	plainFormats(structural)
	decl := model.SchemaDeclType(structural, false) // not a "resource root": metadata keeps every field
	if decl == nil {
		return nil, nil, fmt.Errorf("the schema cannot be typed")
	}
	unescapeKeywords(decl, map[*apiservercel.DeclType]bool{})
	decl = decl.MaybeAssignTypeName("statecraft.self." + r.Kind)
	opts, err := apiservercel.NewDeclTypeProvider(decl).EnvOptions(base)
	if err != nil {
		return nil, nil, err
	}
	return decl.CelType(), opts, nil
}

// withObjectMeta returns a shallow copy of s whose apiVersion, kind and
// metadata carry the fields every Kubernetes object has.
func withObjectMeta(s *structuralschema.Structural) *structuralschema.Structural {
	str := func(format string) structuralschema.Structural {
		return structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}, ValueValidation: &structuralschema.ValueValidation{Format: format}}
	}
	stringMap := structuralschema.Structural{
		Generic:              structuralschema.Generic{Type: "object"},
		AdditionalProperties: &structuralschema.StructuralOrBool{Structural: &structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}},
	}
	boolean := structuralschema.Structural{Generic: structuralschema.Generic{Type: "boolean"}}
	owner := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
		"apiVersion": str(""), "kind": str(""), "name": str(""), "uid": str(""),
		"controller": boolean, "blockOwnerDeletion": boolean,
	}}
	meta := structuralschema.Structural{Generic: structuralschema.Generic{Type: "object"}, Properties: map[string]structuralschema.Structural{
		"name": str(""), "generateName": str(""), "namespace": str(""), "uid": str(""), "resourceVersion": str(""),
		"generation":        {Generic: structuralschema.Generic{Type: "integer"}, ValueValidation: &structuralschema.ValueValidation{Format: "int64"}},
		"creationTimestamp": str(""), "deletionTimestamp": str(""),
		"labels": stringMap, "annotations": stringMap,
		"finalizers":      {Generic: structuralschema.Generic{Type: "array"}, Items: &structuralschema.Structural{Generic: structuralschema.Generic{Type: "string"}}},
		"ownerReferences": {Generic: structuralschema.Generic{Type: "array"}, Items: &owner},
	}}
	out := *s
	out.Properties = make(map[string]structuralschema.Structural, len(s.Properties)+3)
	for k, v := range s.Properties {
		out.Properties[k] = v
	}
	out.Properties["apiVersion"] = str("")
	out.Properties["kind"] = str("")
	out.Properties["metadata"] = meta
	return &out
}

func splitAPIVersion(av string) (group, version string) {
	for i := 0; i < len(av); i++ {
		if av[i] == '/' {
			return av[:i], av[i+1:]
		}
	}
	return "", av
}

// plainFormats clears, in place, the string formats under which the API
// server would give a field another CEL type than string.
func plainFormats(s *structuralschema.Structural) {
	if s == nil {
		return
	}
	if s.ValueValidation != nil {
		switch s.ValueValidation.Format {
		case "date-time", "datetime", "date", "duration", "byte":
			v := *s.ValueValidation
			v.Format = ""
			s.ValueValidation = &v
		}
	}
	if s.XIntOrString {
		s.XIntOrString = false
	}
	for k, p := range s.Properties {
		plainFormats(&p)
		s.Properties[k] = p
	}
	plainFormats(s.Items)
	if s.AdditionalProperties != nil {
		plainFormats(s.AdditionalProperties.Structural)
	}
}

// unescapeKeywords gives back their plain names to fields the API server
// escapes because they are CEL keywords (namespace is __namespace__ in a
// CRD validation rule): the engine hands self over unconverted, and CEL
// selects a keyword after a dot without trouble (self.metadata.namespace).
func unescapeKeywords(t *apiservercel.DeclType, seen map[*apiservercel.DeclType]bool) {
	if t == nil || seen[t] {
		return
	}
	seen[t] = true
	if t.Fields != nil {
		fields := make(map[string]*apiservercel.DeclField, len(t.Fields))
		for name, f := range t.Fields {
			if plain, ok := apiservercel.Unescape(name); ok && plain != name && identifier.MatchString(plain) {
				f.Name, name = plain, plain
			}
			fields[name] = f
			unescapeKeywords(f.Type, seen)
		}
		t.Fields = fields
	}
	unescapeKeywords(t.ElemType, seen)
	unescapeKeywords(t.KeyType, seen)
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
