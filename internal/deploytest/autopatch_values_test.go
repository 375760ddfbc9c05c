package deploytest

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// TestChartAutoPatchValues: the chart's value group autoPatch (enabled,
// components, window, settingsReadOnly) renders the autopatch policy's
// controller flags as `statecraft run --param autopatch.NAME=VALUE`, each
// only when it differs from the policy's default (so the default render
// stays examples/deploy); every rendered flag names a param the shipped
// policy declares, with a value of its type; the schema refuses a malformed
// window, an unknown component and an unknown key.
func TestChartAutoPatchValues(t *testing.T) {
	args := func(set map[string]any) []string {
		t.Helper()
		a, _, _ := unstructured.NestedStringSlice(container(t, render(t, set)), "args")
		return a
	}
	base := []string{"run", "--leader-elect", "--metrics-addr=:8080", "--health-addr=:8081"}
	if got := args(map[string]any{}); !slices.Equal(got, base) {
		t.Errorf("defaults: args %v, want %v", got, base)
	}
	if got := args(map[string]any{"autoPatch.enabled": false, "autoPatch.components": []any{}, "autoPatch.window": ""}); !slices.Equal(got, base) {
		t.Errorf("explicit defaults: args %v, want %v", got, base)
	}
	all := args(map[string]any{
		"autoPatch.enabled":          true,
		"autoPatch.components":       []any{"talos", "kubernetes"},
		"autoPatch.window":           "22:00-02:00",
		"autoPatch.settingsReadOnly": true,
	})
	want := append(slices.Clone(base),
		"--param=autopatch.auto_patch=true",
		"--param=autopatch.auto_patch_components=talos,kubernetes",
		"--param=autopatch.auto_patch_window=22:00-02:00",
		"--param=autopatch.settings_read_only=true",
	)
	if !slices.Equal(all, want) {
		t.Errorf("args %v, want %v", all, want)
	}
	if got := args(map[string]any{"autoPatch.window": "02:00-05:00"}); !slices.Equal(got, append(slices.Clone(base), "--param=autopatch.auto_patch_window=02:00-05:00")) {
		t.Errorf("window only: args %v", got)
	}

	// Each flag is a param of the shipped policy, of the right type.
	f, diags := rules.LoadRef("autopatch")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, a := range all[len(base):] {
		kv := strings.TrimPrefix(a, "--param=")
		key, value, _ := strings.Cut(kv, "=")
		machine, name, _ := strings.Cut(key, ".")
		var param *rules.Param
		for _, m := range f.Machines {
			for _, p := range m.Params {
				if m.Name == machine && p.Name == name {
					param = p
				}
			}
		}
		if param == nil {
			t.Errorf("%s: the shipped policy has no machine %q with param %q", a, machine, name)
			continue
		}
		var v any = value
		if param.Type == "bool" {
			b, err := strconv.ParseBool(value)
			if err != nil {
				t.Errorf("%s: not a bool", a)
			}
			v = b
		}
		if _, err := fsm.ParamValue(param.Type, v); err != nil {
			t.Errorf("%s: %v", a, err)
		}
	}

	for _, set := range []map[string]any{
		{"autoPatch.window": "2:00-05:00"},
		{"autoPatch.window": "02:00-24:00"},
		{"autoPatch.components": []any{"talos", "flannel"}},
		{"autoPatch.components": "talos"},
		{"autoPatch.enabled": "true"},
		{"autoPatch.auto": true},
	} {
		if _, err := renderList(loadChart(t), set); err == nil {
			t.Errorf("%v: rendered without error", set)
		}
	}
}

// TestIchorInstallationAutoPatchFieldsOptional: what automatic patching
// adds to the IchorInstallation CRD (spec.autoPatch, status.effective,
// status.autoPatch) is optional throughout: no parent requires it and
// nothing inside it is required, so an installation written without them
// stays valid (the seed's "the CRD gains optional fields only").
func TestIchorInstallationAutoPatchFieldsOptional(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(specCRDDir, "ichor.maesh.dev_ichorinstallations.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(data, &crd); err != nil {
		t.Fatal(err)
	}
	versions, _, _ := unstructured.NestedSlice(crd, "spec", "versions")
	if len(versions) == 0 {
		t.Fatal("no versions")
	}
	for _, v := range versions {
		schema, _, _ := unstructured.NestedMap(v.(map[string]any), "schema", "openAPIV3Schema")
		for _, path := range [][]string{{"spec", "autoPatch"}, {"status", "effective"}, {"status", "autoPatch"}} {
			node := schema
			for i, p := range path {
				req, _, _ := unstructured.NestedStringSlice(node, "required")
				if i == len(path)-1 && slices.Contains(req, p) {
					t.Errorf("%s: %s requires %s", v.(map[string]any)["name"], strings.Join(path[:i], "."), p)
				}
				next, ok, _ := unstructured.NestedMap(node, "properties", p)
				if !ok {
					t.Fatalf("no %s in the schema", strings.Join(path[:i+1], "."))
				}
				node = next
			}
			var walk func(where string, n map[string]any)
			walk = func(where string, n map[string]any) {
				if req, ok := n["required"]; ok {
					t.Errorf("%s requires %v", where, req)
				}
				props, _ := n["properties"].(map[string]any)
				for k, sub := range props {
					walk(where+"."+k, sub.(map[string]any))
				}
				if items, ok := n["items"].(map[string]any); ok {
					walk(where+"[]", items)
				}
			}
			walk(strings.Join(path, "."), node)
		}
	}
}
