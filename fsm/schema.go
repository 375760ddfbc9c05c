package fsm

import (
	"bytes"
	"fmt"

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
// structural and turned into a CEL declaration type as the API server does
// for validation rules. It returns env options declaring the type's fields.
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
	decl := model.SchemaDeclType(structural, true)
	if decl == nil {
		return nil, nil, fmt.Errorf("the schema cannot be typed")
	}
	decl = decl.MaybeAssignTypeName("statecraft.self." + r.Kind)
	opts, err := apiservercel.NewDeclTypeProvider(decl).EnvOptions(base)
	if err != nil {
		return nil, nil, err
	}
	return decl.CelType(), opts, nil
}

func splitAPIVersion(av string) (group, version string) {
	for i := 0; i < len(av); i++ {
		if av[i] == '/' {
			return av[:i], av[i+1:]
		}
	}
	return "", av
}
