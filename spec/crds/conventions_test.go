package crds

// Conventions every shipped CRD follows, as a kubectl user meets them: short
// names, the statecraft category (`kubectl get statecraft`), a description on
// every field (`kubectl explain KIND --recursive` shows none empty), and a
// readiness column.

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"sigs.k8s.io/yaml"
)

func loadCRD(t *testing.T, name string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	data, err := Read(name)
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.UnmarshalStrict(data, crd); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return crd
}

// undescribed returns the path of every property below s that has no
// description: object properties, array items' properties and map values'
// properties, as `kubectl explain` walks them.
func undescribed(s *apiextensionsv1.JSONSchemaProps, path string) []string {
	var out []string
	if path != "" && strings.TrimSpace(s.Description) == "" {
		out = append(out, path)
	}
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		p := s.Properties[n]
		out = append(out, undescribed(&p, path+"."+n)...)
	}
	if s.Items != nil && s.Items.Schema != nil {
		out = append(out, elements(s.Items.Schema, path+"[]")...)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		out = append(out, elements(s.AdditionalProperties.Schema, path+"{}")...)
	}
	return out
}

// elements walks an array's items or a map's values: they are not fields of
// their own (kubectl explain shows the array's description for them), but
// their properties are.
func elements(s *apiextensionsv1.JSONSchemaProps, path string) []string {
	d := *s
	d.Description = "-"
	return undescribed(&d, path)
}

func TestEveryFieldDescribed(t *testing.T) {
	for _, name := range Names() {
		crd := loadCRD(t, name)
		for _, v := range crd.Spec.Versions {
			if v.Schema == nil || v.Schema.OpenAPIV3Schema == nil {
				t.Errorf("%s %s: no schema", name, v.Name)
				continue
			}
			root := v.Schema.OpenAPIV3Schema
			if strings.TrimSpace(root.Description) == "" {
				t.Errorf("%s %s: the kind has no description", name, v.Name)
			}
			// The API server refuses anything but type in the root's
			// metadata; kubectl explain shows ObjectMeta's own there.
			r := *root
			r.Properties = maps.Clone(root.Properties)
			delete(r.Properties, "metadata")
			if missing := undescribed(&r, ""); len(missing) > 0 {
				t.Errorf("%s %s: %d fields without a description (kubectl explain would show them empty):\n  %s",
					name, v.Name, len(missing), strings.Join(missing, "\n  "))
			}
		}
	}
}

func TestUndescribedFindsMissing(t *testing.T) {
	s := &apiextensionsv1.JSONSchemaProps{Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Description: "d", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"a": {},
			"list": {Description: "d", Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"b": {}, "c": {Description: "d"}}}}},
			"map": {Description: "d", AdditionalProperties: &apiextensionsv1.JSONSchemaPropsOrBool{Schema: &apiextensionsv1.JSONSchemaProps{
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"e": {}}}}},
		}},
	}}
	got := undescribed(s, "")
	want := []string{".spec.a", ".spec.list[].b", ".spec.map{}.e"}
	if !slices.Equal(got, want) {
		t.Errorf("undescribed = %v, want %v", got, want)
	}
}

// wantShortNames are the short names of every shipped kind.
var wantShortNames = map[string]string{
	"ObjectPatch":             "op",
	"ClusterObjectPatch":      "cop",
	"ClusterObjectDeployment": "cod",
	"ClusterObjectSet":        "cos",
	"ClusterExtension":        "ce",
	"IchorInstallation":       "ichor",
	"TalosCluster":            "tc",
	"TalosOperation":          "talosop",
}

// readyColumns name each kind's readiness column and the condition it
// shows: Ready where the kind has a Ready condition (a wide column on the
// patch kinds, whose default columns library/objpatch pins), else the
// condition that plays its part (Available for a deployment, Installed for
// an extension),
// The Ichor kinds keep no readiness condition; their columns show the
// machine's state (AutoPatch, Phase) instead.
var readyColumns = map[string]struct{ column, jsonPath string }{
	"ObjectPatch":             {"Ready", `.status.conditions[?(@.type=="Ready")].status`},
	"ClusterObjectPatch":      {"Ready", `.status.conditions[?(@.type=="Ready")].status`},
	"ClusterObjectSet":        {"Ready", `.status.conditions[?(@.type=="Ready")].reason`},
	"ClusterObjectDeployment": {"Available", `.status.conditions[?(@.type=="Available")].status`},
	"ClusterExtension":        {"Installed", `.status.conditions[?(@.type=="Installed")].status`},
}

func TestNamesCategoryAndReadyColumn(t *testing.T) {
	seen := map[string]string{}
	for _, name := range Names() {
		crd := loadCRD(t, name)
		n := crd.Spec.Names
		want, ok := wantShortNames[n.Kind]
		if !ok {
			t.Errorf("%s: kind %s has no short name in this test; add one to the CRD and here", name, n.Kind)
		} else if !slices.Contains(n.ShortNames, want) {
			t.Errorf("%s: shortNames %v, want %q among them", name, n.ShortNames, want)
		}
		for _, s := range n.ShortNames {
			if other, dup := seen[s]; dup {
				t.Errorf("short name %q is used by %s and %s", s, other, n.Kind)
			}
			seen[s] = n.Kind
		}
		if !slices.Contains(n.Categories, "statecraft") {
			t.Errorf("%s: categories %v lack statecraft (kubectl get statecraft lists every kind)", name, n.Categories)
		}
		rc, ok := readyColumns[n.Kind]
		if !ok {
			continue
		}
		for _, v := range crd.Spec.Versions {
			found := false
			for _, c := range v.AdditionalPrinterColumns {
				if c.Name == rc.column && c.JSONPath == rc.jsonPath {
					found = true
				}
			}
			if !found {
				t.Errorf("%s %s: no printer column %s on %s", name, v.Name, rc.column, rc.jsonPath)
			}
		}
	}
}
