package deploytest

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

const autoPatchDir = root + "/examples/autopatch"

// installerLabels are the labels every installed object carries, in
// examples/deploy, in examples/autopatch and in the chart: what `kubectl
// apply --prune -l app.kubernetes.io/instance=statecraft` and Helm's release
// select.
var installerLabels = map[string]string{
	"app.kubernetes.io/name":     "statecraft",
	"app.kubernetes.io/instance": "statecraft",
}

func readDir(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []*unstructured.Unstructured
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".yaml" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decode(t, e.Name(), data)...)
	}
	return out
}

// policyRules returns a role's rules, resourceNames included.
func policyRules(t *testing.T, u *unstructured.Unstructured) []rbacv1.PolicyRule {
	t.Helper()
	var role rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &role); err != nil {
		t.Fatalf("%s: %v", key(u), err)
	}
	return role.Rules
}

func autoPatchRBAC(t *testing.T) objects {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(autoPatchDir, "deploy", "rbac.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return index(t, "examples/autopatch/deploy/rbac.yaml", decode(t, "rbac.yaml", data))
}

// TestChartAutoPatchRBACMatchesManifests (AP-77): with autoPatch.rbac=true
// the chart renders, besides its defaults, exactly the objects of
// examples/autopatch/deploy/rbac.yaml, field for field (Helm's own labels
// aside); without it, or with rbac.create=false, none of them.
func TestChartAutoPatchRBACMatchesManifests(t *testing.T) {
	want := autoPatchRBAC(t)
	def := render(t, nil)
	for k := range want {
		if _, ok := def[k]; ok {
			t.Errorf("the default render already holds %s", k)
		}
	}
	with := render(t, map[string]any{"autoPatch.rbac": true})
	added := objects{}
	for k, u := range with {
		if _, ok := def[k]; !ok {
			added[k] = u
		}
	}
	if !slices.Equal(added.keys(), want.keys()) {
		t.Fatalf("autoPatch.rbac=true adds %v\nexamples/autopatch/deploy/rbac.yaml has %v", added.keys(), want.keys())
	}
	for k, w := range want {
		if d := cmp.Diff(w.Object, normalize(added[k]).Object); d != "" {
			t.Errorf("%s: examples/autopatch/deploy/rbac.yaml (-) and chart (+) differ:\n%s", k, d)
		}
		if l := added[k].GetLabels(); l["app.kubernetes.io/managed-by"] != "Helm" {
			t.Errorf("%s: chart labels missing: %v", k, l)
		}
	}
	off := render(t, map[string]any{"autoPatch.rbac": true, "rbac.create": false})
	for k := range want {
		if _, ok := off[k]; ok {
			t.Errorf("rbac.create=false still renders %s", k)
		}
	}
}

// TestManagerRoleUnchangedByAutoPatch (AP-76): the controller's own
// ClusterRole (the chart's and examples/deploy's `statecraft`, Ichor's
// manager-role) is the same object whatever the autoPatch values are, and
// equals examples/deploy/rbac.yaml; it grants nothing on the Ichor kinds.
// Every other object of the default render is unchanged too, but for the
// Deployment's args (the autopatch flags).
func TestManagerRoleUnchangedByAutoPatch(t *testing.T) {
	const managerRole = "ClusterRole//statecraft"
	want := index(t, "examples/deploy", examples(t))[managerRole]
	if want == nil {
		t.Fatalf("examples/deploy has no %s", managerRole)
	}
	def := render(t, nil)
	for _, set := range []map[string]any{
		nil,
		{"autoPatch.enabled": true},
		{"autoPatch.rbac": true},
		{"autoPatch.enabled": true, "autoPatch.rbac": true, "autoPatch.components": []any{"talos"}, "autoPatch.window": "02:00-05:00", "autoPatch.settingsReadOnly": true},
	} {
		got := render(t, set)
		if d := cmp.Diff(want.Object, normalize(got[managerRole]).Object); d != "" {
			t.Errorf("%v: %s: examples/deploy (-) and chart (+) differ:\n%s", set, managerRole, d)
		}
		for k, u := range def {
			if u.GetKind() == "Deployment" {
				continue
			}
			if d := cmp.Diff(u.Object, got[k].Object); d != "" {
				t.Errorf("%v: %s changed:\n%s", set, k, d)
			}
		}
		for _, r := range policyRules(t, got[managerRole]) {
			if slices.Contains(r.APIGroups, "ichor.maesh.dev") || slices.Contains(r.APIGroups, "*") {
				t.Errorf("%v: %s grants %v on the Ichor kinds", set, managerRole, r)
			}
		}
	}
}

// TestAutoPatchObjectsCarryInstallerLabels (AP-78): every object of
// examples/autopatch (deploy and installer) carries the installer's labels,
// like every object of examples/deploy; so does every object the chart
// renders with autoPatch.rbac=true.
func TestAutoPatchObjectsCarryInstallerLabels(t *testing.T) {
	check := func(where string, list []*unstructured.Unstructured) {
		t.Helper()
		if len(list) == 0 {
			t.Fatalf("%s: no objects", where)
		}
		for _, u := range list {
			for k, v := range installerLabels {
				if u.GetLabels()[k] != v {
					t.Errorf("%s: %s: label %s=%q, want %q", where, key(u), k, u.GetLabels()[k], v)
				}
			}
		}
	}
	var deploy []*unstructured.Unstructured
	for _, u := range examples(t) {
		if u.GetKind() != "CustomResourceDefinition" {
			deploy = append(deploy, u)
		}
	}
	check("examples/deploy", deploy)
	check("examples/autopatch/deploy", readDir(t, filepath.Join(autoPatchDir, "deploy")))
	check("examples/autopatch/installer", readDir(t, filepath.Join(autoPatchDir, "installer")))
	var chart []*unstructured.Unstructured
	for _, u := range render(t, map[string]any{"autoPatch.rbac": true}) {
		chart = append(chart, u)
	}
	check("chart with autoPatch.rbac=true", chart)
}

// TestInstallerEscalationListsNameAutoPatchRoles (AP-78): the installer's
// bind and escalate rules name exactly the ClusterRoles and the Roles of
// examples/autopatch/deploy/rbac.yaml, by name, and no rule grants bind,
// escalate or impersonate without names.
func TestInstallerEscalationListsNameAutoPatchRoles(t *testing.T) {
	installer := index(t, "examples/autopatch/installer", readDir(t, filepath.Join(autoPatchDir, "installer")))
	role := installer["ClusterRole//statecraft-autopatch-installer"]
	if role == nil {
		t.Fatalf("examples/autopatch/installer has no ClusterRole statecraft-autopatch-installer: %v", installer.keys())
	}
	names := func(kind string) []string {
		var out []string
		for _, u := range autoPatchRBAC(t).ofKind(kind) {
			out = append(out, u.GetName())
		}
		sort.Strings(out)
		return out
	}
	for _, verb := range []string{"bind", "escalate"} {
		for resource, kind := range map[string]string{"clusterroles": "ClusterRole", "roles": "Role"} {
			var listed []string
			for _, r := range policyRules(t, role) {
				if !slices.Contains(r.Verbs, verb) && !slices.Contains(r.Verbs, "*") {
					continue
				}
				if len(r.ResourceNames) == 0 {
					t.Errorf("rule %v grants %s without resourceNames", r, verb)
					continue
				}
				if slices.Contains(r.APIGroups, "rbac.authorization.k8s.io") && slices.Contains(r.Resources, resource) {
					listed = append(listed, r.ResourceNames...)
				}
			}
			sort.Strings(listed)
			if want := names(kind); !slices.Equal(listed, want) {
				t.Errorf("%s on %s names %v, want the %ss of examples/autopatch/deploy/rbac.yaml %v", verb, resource, listed, kind, want)
			}
		}
	}
	for _, r := range policyRules(t, role) {
		if slices.Contains(r.Verbs, "impersonate") || slices.Contains(r.Verbs, "*") || slices.Contains(r.Resources, "*") {
			t.Errorf("the installer role grants %v", r)
		}
	}
}
