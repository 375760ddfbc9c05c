package crds

// The olm.operatorframework.io CRDs validated as an API server validates
// custom resources: OpenAPI schema, defaults, and the CEL validation rules
// (x-kubernetes-validations, transition rules with oldSelf). Claims COD-01,
// COD-10, COD-19, COD-20, COD-68, COD-86, COD-87 and the ClusterObjectSet
// immutability of spec/conformance/README.md, and the ClusterExtension's
// shape (COD-95 .. COD-102).

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	celvalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celdefaults "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

type olmSchema struct {
	crd        apiextensionsv1.CustomResourceDefinition
	validator  apiservervalidation.SchemaValidator
	structural *structuralschema.Structural
	cel        *celvalidation.Validator
}

func loadOLM(t *testing.T, file string) *olmSchema {
	t.Helper()
	b, err := Read(file)
	if err != nil {
		t.Fatal(err)
	}
	s := &olmSchema{}
	if err := yaml.Unmarshal(b, &s.crd); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(s.crd.Spec.Versions[0].Schema.OpenAPIV3Schema, &internal, nil); err != nil {
		t.Fatal(err)
	}
	if s.validator, _, err = apiservervalidation.NewSchemaValidator(&internal); err != nil {
		t.Fatal(err)
	}
	if s.structural, err = structuralschema.NewStructural(&internal); err != nil {
		t.Fatal(err)
	}
	s.cel = celvalidation.NewValidator(s.structural, true, celdefaults.PerCallLimit)
	return s
}

// check returns the errors an API server would report for obj (created, or
// updated from old when old is not nil), after defaulting.
func (s *olmSchema) check(obj, old map[string]any) field.ErrorList {
	defaulting.Default(obj, s.structural)
	var errs field.ErrorList
	if old == nil {
		errs = apiservervalidation.ValidateCustomResource(nil, obj, s.validator)
	} else {
		defaulting.Default(old, s.structural)
		errs = apiservervalidation.ValidateCustomResourceUpdate(nil, obj, old, s.validator)
	}
	var oldObj any
	if old != nil {
		oldObj = old
	}
	celErrs, _ := s.cel.Validate(context.Background(), nil, s.structural, obj, oldObj, celdefaults.RuntimeCELCostBudget)
	return append(errs, celErrs...)
}

func parse(t *testing.T, doc string) map[string]any {
	t.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return ints(m).(map[string]any)
}

// ints turns JSON numbers into int64 (or float64), as the API server decodes them.
func ints(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = ints(e)
		}
	case []any:
		for i, e := range x {
			x[i] = ints(e)
		}
	case json.Number:
		if n, err := x.Int64(); err == nil {
			return n
		}
		f, _ := x.Float64()
		return f
	}
	return v
}

func cod(name, specExtra string) string {
	return `
apiVersion: olm.operatorframework.io/v1
kind: ClusterObjectDeployment
metadata: {name: "` + name + `"}
spec:
` + specExtra + `
  template:
    metadata: {labels: {app.kubernetes.io/name: my-app}}
    spec:
      collisionProtection: Prevent
      phases:
      - name: configuration
        objects:
        - type: InlineManifest
          inlineManifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: my-app-settings, namespace: default}, data: {message: hi}}
`
}

func TestClusterObjectDeploymentCRD(t *testing.T) {
	s := loadOLM(t, "olm.operatorframework.io_clusterobjectdeployments.yaml")
	if s.crd.Spec.Group != "olm.operatorframework.io" || s.crd.Spec.Scope != apiextensionsv1.ClusterScoped ||
		s.crd.Spec.Versions[0].Name != "v1" || s.crd.Spec.Versions[0].Subresources == nil || s.crd.Spec.Versions[0].Subresources.Status == nil {
		t.Fatal("COD-01: a cluster-scoped olm.operatorframework.io/v1 API with a status subresource")
	}
	spec := s.crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"]
	for _, f := range []string{"template", "progressDeadlineMinutes", "revisionHistoryLimit"} {
		if _, ok := spec.Properties[f]; !ok {
			t.Errorf("COD-10: spec.%s missing", f)
		}
	}

	// Defaults: revisionHistoryLimit 5; no deadline unless set.
	obj := parse(t, cod("my-app", ""))
	if errs := s.check(obj, nil); len(errs) > 0 {
		t.Fatalf("the seed's example must be valid: %v", errs)
	}
	sp := obj["spec"].(map[string]any)
	if sp["revisionHistoryLimit"] != int64(5) {
		t.Errorf("COD-86: revisionHistoryLimit defaults to 5, got %v", sp["revisionHistoryLimit"])
	}
	if _, has := sp["progressDeadlineMinutes"]; has {
		t.Error("COD-69: progressDeadlineMinutes has no default")
	}

	cases := []struct {
		name, doc string
		valid     bool
	}{
		{"COD-68 deadline 1", cod("a", "  progressDeadlineMinutes: 1"), true},
		{"COD-68 deadline 720", cod("a", "  progressDeadlineMinutes: 720"), true},
		{"COD-68 deadline 0", cod("a", "  progressDeadlineMinutes: 0"), false},
		{"COD-68 deadline 721", cod("a", "  progressDeadlineMinutes: 721"), false},
		{"COD-87 history 0", cod("a", "  revisionHistoryLimit: 0"), true},
		{"COD-87 history 50", cod("a", "  revisionHistoryLimit: 50"), true},
		{"COD-87 history -1", cod("a", "  revisionHistoryLimit: -1"), false},
		{"COD-87 history 51", cod("a", "  revisionHistoryLimit: 51"), false},
		{"COD-19 name 52", cod("a"+strings.Repeat("b", 51), ""), true},
		{"COD-19 name 53", cod("a"+strings.Repeat("b", 52), ""), false},
		{"COD-20 name digits and hyphens", cod("my-app-2", ""), true},
		{"COD-20 name starts with a digit", cod("2-app", ""), false},
		{"COD-20 name ends with a hyphen", cod("app-", ""), false},
		{"COD-20 name uppercase", cod("myApp", ""), false},
		{"COD-20 name with a dot", cod("my.app", ""), false},
		{"collision protection enum", strings.Replace(cod("a", ""), "collisionProtection: Prevent", "collisionProtection: Sometimes", 1), false},
	}
	for _, c := range cases {
		errs := s.check(parse(t, c.doc), nil)
		if (len(errs) == 0) != c.valid {
			t.Errorf("%s: valid=%v, errors %v", c.name, c.valid, errs)
		}
	}
}

const cosDoc = `
apiVersion: olm.operatorframework.io/v1
kind: ClusterObjectSet
metadata: {name: my-app-1}
spec:
  group: my-app
  revision: 1
  lifecycleState: Active
  phases:
  - name: configuration
    objects:
    - type: InlineManifest
      inlineManifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: my-app-settings, namespace: default}}
`

func TestClusterObjectSetCRD(t *testing.T) {
	s := loadOLM(t, "olm.operatorframework.io_clusterobjectsets.yaml")
	if errs := s.check(parse(t, cosDoc), nil); len(errs) > 0 {
		t.Fatalf("valid COS: %v", errs)
	}
	if errs := s.check(parse(t, strings.Replace(cosDoc, "revision: 1", "revision: 10000000000", 1)), nil); len(errs) == 0 {
		t.Error("COD-28: revisions end at 9999999999")
	}
	if s.crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["spec"].Properties["progressDeadlineMinutes"].Type != "" {
		t.Error("COD-70: a COS carries no deadline field")
	}
	updates := []struct {
		name, from, to string
		valid          bool
	}{
		{"archive", "lifecycleState: Active", "lifecycleState: Archived", true},
		{"phases are immutable", "name: configuration", "name: other", false},
		{"group is immutable", "group: my-app", "group: other", false},
	}
	for _, u := range updates {
		errs := s.check(parse(t, strings.Replace(cosDoc, u.from, u.to, 1)), parse(t, cosDoc))
		if (len(errs) == 0) != u.valid {
			t.Errorf("%s: valid=%v, errors %v", u.name, u.valid, errs)
		}
	}
	archived := strings.Replace(cosDoc, "lifecycleState: Active", "lifecycleState: Archived", 1)
	if errs := s.check(parse(t, cosDoc), parse(t, archived)); len(errs) == 0 {
		t.Error("lifecycleState cannot leave Archived")
	}
}

func ce(name, bundleExtra string) string {
	return `
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata: {name: "` + name + `"}
spec:
  namespace: argocd
  serviceAccount: {name: argocd-installer}
  source:
    sourceType: Catalog
    catalog: {packageName: argocd-operator, version: 0.6.0}
  bundle:
    name: argocd-operator.v0.6.0
    version: 0.6.0
` + bundleExtra + `
    phases:
    - name: config
      objects:
      - type: InlineManifest
        inlineManifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: argocd-operator-config, namespace: default}}
`
}

// TestClusterExtensionCRD: the ClusterExtension (COD-95 .. COD-102) is a
// cluster-scoped olm.operatorframework.io/v1 API with a status subresource;
// its name becomes its ClusterObjectDeployment's, so it obeys the COD's
// naming rule; spec.bundle (statecraft's stand-in for the resolved bundle)
// is required and holds ClusterObjectSet phases.
func TestClusterExtensionCRD(t *testing.T) {
	s := loadOLM(t, "olm.operatorframework.io_clusterextensions.yaml")
	if s.crd.Spec.Group != "olm.operatorframework.io" || s.crd.Spec.Names.Kind != "ClusterExtension" || s.crd.Spec.Scope != apiextensionsv1.ClusterScoped ||
		s.crd.Spec.Versions[0].Name != "v1" || s.crd.Spec.Versions[0].Subresources == nil || s.crd.Spec.Versions[0].Subresources.Status == nil {
		t.Fatal("a cluster-scoped olm.operatorframework.io/v1 ClusterExtension with a status subresource")
	}
	st := s.crd.Spec.Versions[0].Schema.OpenAPIV3Schema.Properties["status"]
	if _, ok := st.Properties["install"].Properties["bundle"].Properties["version"]; !ok {
		t.Error("COD-101: status.install.bundle.version holds the installed bundle")
	}
	if errs := s.check(parse(t, ce("argocd", "    image: quay.io/operatorhubio/argocd-operator@sha256:0a1b")), nil); len(errs) > 0 {
		t.Fatalf("a ClusterExtension as the conformance scenarios write it must be valid: %v", errs)
	}
	withoutBundle := `
apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata: {name: argocd}
spec:
  namespace: argocd
  serviceAccount: {name: argocd-installer}
  source: {sourceType: Catalog, catalog: {packageName: argocd-operator}}
`
	cases := []struct {
		name, doc string
		valid     bool
	}{
		{"name 52", ce("a"+strings.Repeat("b", 51), ""), true},
		{"name 53 (too long for its COD)", ce("a"+strings.Repeat("b", 52), ""), false},
		{"name starts with a digit", ce("2-argocd", ""), false},
		{"name with a dot", ce("argo.cd", ""), false},
		{"no bundle", withoutBundle, false},
		{"bundle without version", strings.Replace(ce("argocd", ""), "    version: 0.6.0\n", "", 1), false},
		{"bundle without phases", strings.SplitAfter(ce("argocd", ""), "    version: 0.6.0\n")[0], false},
		{"collision protection enum", ce("argocd", "    collisionProtection: Sometimes"), false},
		{"collision protection", ce("argocd", "    collisionProtection: IfNoController"), true},
		{"source type", strings.Replace(ce("argocd", ""), "sourceType: Catalog", "sourceType: Image", 1), false},
		{"object with neither manifest nor secret", strings.Replace(ce("argocd", ""), "inlineManifest: {apiVersion: v1, kind: ConfigMap, metadata: {name: argocd-operator-config, namespace: default}}", "collisionProtection: None", 1), false},
	}
	for _, c := range cases {
		errs := s.check(parse(t, c.doc), nil)
		if (len(errs) == 0) != c.valid {
			t.Errorf("%s: valid=%v, errors %v", c.name, c.valid, errs)
		}
	}
}
