package deploytest

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"helm.sh/helm/v3/pkg/action"
	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

var syncCRDs = flag.Bool("sync-crds", false, "copy the ObjectPatch CRDs from spec/crds into the chart and examples/deploy before testing")

const (
	root        = "../.."
	chartDir    = root + "/charts/statecraft"
	examplesDir = root + "/examples/deploy"
	specCRDDir  = root + "/spec/crds"

	releaseName = "statecraft"
	namespace   = "statecraft-system"
	sa          = "statecraft"
)

// shippedCRDs are the spec/crds files the controller needs; the chart and
// examples/deploy carry exactly these. (spec/crds may hold CRDs of other
// machines, which this deployment does not run.)
var shippedCRDs = []string{
	"rightsizing.kubex.ai_clusterobjectpatches.yaml",
	"rightsizing.kubex.ai_objectpatches.yaml",
}

// grant is one of the seed's optional object-patch grants.
type grant struct {
	flag     string // rbac.objectPatches.<flag>
	name     string // ClusterRole and ClusterRoleBinding name
	group    string
	resource string
}

var grants = []grant{
	{"nodePools", "statecraft-objectpatch-nodepools", "karpenter.sh", "nodepools"},
	{"horizontalPodAutoscalers", "statecraft-objectpatch-horizontalpodautoscalers", "autoscaling", "horizontalpodautoscalers"},
	{"podDisruptionBudgets", "statecraft-objectpatch-poddisruptionbudgets", "policy", "poddisruptionbudgets"},
	{"clusterAutoscalers", "statecraft-objectpatch-clusterautoscalers", "autoscaling.openshift.io", "clusterautoscalers"},
}

var rbacKinds = []string{"Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding"}

// helmLabels are the labels only the chart sets; comparisons ignore them.
var helmLabels = []string{"helm.sh/chart", "app.kubernetes.io/managed-by", "app.kubernetes.io/version"}

func TestMain(m *testing.M) {
	flag.Parse()
	if *syncCRDs {
		for _, dir := range []string{chartDir + "/crds", examplesDir + "/crds"} {
			for _, name := range shippedCRDs {
				data, err := os.ReadFile(filepath.Join(specCRDDir, name))
				if err == nil {
					err = os.WriteFile(filepath.Join(dir, name), data, 0o644)
				}
				if err != nil {
					fmt.Fprintln(os.Stderr, "sync-crds:", err)
					os.Exit(2)
				}
			}
		}
	}
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath)) // the binary run_e2e_test.go built
	}
	os.Exit(code)
}

// objects is a set of manifests keyed by kind/namespace/name.
type objects map[string]*unstructured.Unstructured

func key(u *unstructured.Unstructured) string {
	return u.GetKind() + "/" + u.GetNamespace() + "/" + u.GetName()
}

func (o objects) keys() []string {
	ks := make([]string, 0, len(o))
	for k := range o {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

func (o objects) ofKind(kinds ...string) objects {
	out := objects{}
	for k, u := range o {
		if slices.Contains(kinds, u.GetKind()) {
			out[k] = u
		}
	}
	return out
}

func (o objects) without(kinds ...string) objects {
	out := objects{}
	for k, u := range o {
		if !slices.Contains(kinds, u.GetKind()) {
			out[k] = u
		}
	}
	return out
}

// decode splits a multi-document YAML stream into objects, in order.
func decode(t testing.TB, source string, data []byte) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		u, err := next(dec)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		if u == nil {
			continue
		}
		if u.GetAPIVersion() == "" || u.GetKind() == "" || u.GetName() == "" {
			t.Fatalf("%s: a document without apiVersion, kind or metadata.name: %v", source, u.Object)
		}
		out = append(out, u)
	}
}

// next decodes one document as unstructured.Unstructured does (integers as
// int64); it returns nil for an empty document.
func next(dec *utilyaml.YAMLOrJSONDecoder) (*unstructured.Unstructured, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil, nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(raw); err != nil {
		return nil, err
	}
	return u, nil
}

func index(t testing.TB, source string, list []*unstructured.Unstructured) objects {
	t.Helper()
	o := objects{}
	for _, u := range list {
		if _, dup := o[key(u)]; dup {
			t.Fatalf("%s: %s appears twice", source, key(u))
		}
		o[key(u)] = u
	}
	return o
}

// kustomizationResources returns examples/deploy's resources, in the order
// kustomization.yaml lists them.
func kustomizationResources(t testing.TB) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(examplesDir, "kustomization.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var k struct {
		Resources []string `json:"resources"`
	}
	if err := yaml.UnmarshalStrict(data, &k); err != nil {
		// The file has apiVersion and kind too; read leniently.
		if err := yaml.Unmarshal(data, &k); err != nil {
			t.Fatalf("kustomization.yaml: %v", err)
		}
	}
	return k.Resources
}

// examples returns every object of examples/deploy in kustomization order.
func examples(t testing.TB) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, r := range kustomizationResources(t) {
		data, err := os.ReadFile(filepath.Join(examplesDir, r))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, decode(t, r, data)...)
	}
	return out
}

func loadChart(t testing.TB) *chart.Chart {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	return ch
}

// render renders the chart the way `helm template statecraft charts/statecraft
// -n statecraft-system --set ...` does (client-only dry-run install), without
// its CRDs. set holds dotted value paths, such as "rbac.create".
func render(t testing.TB, set map[string]any) objects {
	t.Helper()
	list, err := renderList(loadChart(t), set)
	if err != nil {
		t.Fatal(err)
	}
	return index(t, "chart", list)
}

func renderList(ch *chart.Chart, set map[string]any) ([]*unstructured.Unstructured, error) {
	return renderRelease(ch, releaseName, namespace, set)
}

// renderRelease renders the chart as release name in namespace ns.
func renderRelease(ch *chart.Chart, name, ns string, set map[string]any) ([]*unstructured.Unstructured, error) {
	vals := map[string]any{}
	for path, v := range set {
		m := vals
		parts := strings.Split(path, ".")
		for _, p := range parts[:len(parts)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[parts[len(parts)-1]] = v
	}
	inst := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
	inst.DryRun = true
	inst.ClientOnly = true
	inst.Replace = true
	inst.ReleaseName = name
	inst.Namespace = ns
	rel, err := inst.Run(ch, vals)
	if err != nil {
		return nil, fmt.Errorf("render with %v: %w", set, err)
	}
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(rel.Manifest), 4096)
	for {
		u, err := next(dec)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("rendered manifest: %w", err)
		}
		if u != nil {
			out = append(out, u)
		}
	}
}

// normalize drops the labels only Helm sets, and an emptied labels map.
func normalize(u *unstructured.Unstructured) *unstructured.Unstructured {
	u = u.DeepCopy()
	labels := u.GetLabels()
	for _, l := range helmLabels {
		delete(labels, l)
	}
	if len(labels) == 0 {
		unstructured.RemoveNestedField(u.Object, "metadata", "labels")
	} else {
		u.SetLabels(labels)
	}
	return u
}

func TestKustomizationListsEveryManifest(t *testing.T) {
	listed := kustomizationResources(t)
	var onDisk []string
	err := filepath.WalkDir(examplesDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(examplesDir, path)
		if (strings.HasSuffix(rel, ".yaml") || strings.HasSuffix(rel, ".yml")) && rel != "kustomization.yaml" {
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sorted := slices.Sorted(slices.Values(listed))
	if !slices.Equal(sorted, onDisk) {
		t.Errorf("kustomization.yaml lists %v; the folder holds %v", sorted, onDisk)
	}
	// CRDs before the objects that might use them, the Namespace before
	// anything namespaced: a plain `kubectl apply` in this order works.
	for i, r := range listed {
		if strings.HasPrefix(r, "crds/") && i >= len(shippedCRDs) {
			t.Errorf("%s listed after other resources", r)
		}
	}
}

func TestCRDsAreSpecCRDs(t *testing.T) {
	want := map[string][]byte{}
	for _, name := range shippedCRDs {
		data, err := os.ReadFile(filepath.Join(specCRDDir, name))
		if err != nil {
			t.Fatal(err)
		}
		want[name] = data
	}
	check := func(where string, got map[string][]byte) {
		t.Helper()
		for name, data := range got {
			w, ok := want[name]
			switch {
			case !ok:
				t.Errorf("%s/%s is not one of the shipped CRDs %v", where, name, shippedCRDs)
			case !bytes.Equal(data, w):
				t.Errorf("%s/%s differs from spec/crds/%s; run `go test ./internal/deploytest -sync-crds`", where, name, name)
			}
		}
		for name := range want {
			if _, ok := got[name]; !ok {
				t.Errorf("%s lacks %s; run `go test ./internal/deploytest -sync-crds`", where, name)
			}
		}
	}

	fromChart := map[string][]byte{}
	for _, crd := range loadChart(t).CRDObjects() {
		fromChart[strings.TrimPrefix(crd.Name, "crds/")] = crd.File.Data
	}
	check("charts/statecraft/crds", fromChart)

	fromExamples := map[string][]byte{}
	entries, err := os.ReadDir(examplesDir + "/crds")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(examplesDir, "crds", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		fromExamples[e.Name()] = data
	}
	check("examples/deploy/crds", fromExamples)
}

// TestChartMatchesExamples: with default values, release "statecraft" in
// "statecraft-system", the chart renders exactly examples/deploy's objects
// (less the Namespace, which `helm install --create-namespace` makes, and the
// CRDs, which Helm installs from crds/), field for field, Helm's own labels
// aside.
func TestChartMatchesExamples(t *testing.T) {
	want := index(t, "examples/deploy", examples(t)).without("Namespace", "CustomResourceDefinition")
	got := render(t, nil)
	if !slices.Equal(got.keys(), want.keys()) {
		t.Fatalf("chart renders %v\nexamples/deploy has %v", got.keys(), want.keys())
	}
	for k, w := range want {
		if d := cmp.Diff(w.Object, normalize(got[k]).Object); d != "" {
			t.Errorf("%s: examples/deploy (-) and chart (+) differ:\n%s", k, d)
		}
	}
	for k, u := range got {
		labels := u.GetLabels()
		if labels["app.kubernetes.io/managed-by"] != "Helm" || labels["helm.sh/chart"] == "" {
			t.Errorf("%s: chart labels missing: %v", k, labels)
		}
	}
}

func TestExamplesNamespaceAndSubjects(t *testing.T) {
	all := index(t, "examples/deploy", examples(t))
	if _, ok := all["Namespace//"+namespace]; !ok {
		t.Errorf("examples/deploy has no Namespace %s", namespace)
	}
	for k, u := range all.without("Namespace", "CustomResourceDefinition", "ClusterRole", "ClusterRoleBinding") {
		if u.GetNamespace() != namespace {
			t.Errorf("%s: namespace %q, want %s", k, u.GetNamespace(), namespace)
		}
	}
	for k, u := range all.ofKind("RoleBinding", "ClusterRoleBinding") {
		subjects, _, _ := unstructured.NestedSlice(u.Object, "subjects")
		want := []any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": namespace}}
		if !reflect.DeepEqual(subjects, want) {
			t.Errorf("%s: subjects %v, want only ServiceAccount %s/%s", k, subjects, namespace, sa)
		}
		roleKind, _, _ := unstructured.NestedString(u.Object, "roleRef", "kind")
		roleName, _, _ := unstructured.NestedString(u.Object, "roleRef", "name")
		if _, ok := all[roleKind+"/"+u.GetNamespace()+"/"+roleName]; !ok {
			t.Errorf("%s: roleRef %s %s is not among the manifests", k, roleKind, roleName)
		}
	}
}

func TestRBACCreateFalseRendersNoRBAC(t *testing.T) {
	def := render(t, nil)
	got := render(t, map[string]any{"rbac.create": false})
	if rbac := got.ofKind(rbacKinds...); len(rbac) > 0 {
		t.Errorf("rbac.create=false still renders %v", rbac.keys())
	}
	if want := def.without(rbacKinds...); !slices.Equal(got.keys(), want.keys()) {
		t.Errorf("rbac.create=false renders %v, want %v", got.keys(), want.keys())
	}
	// Even with every optional grant asked for explicitly.
	set := map[string]any{"rbac.create": false}
	for _, g := range grants {
		set["rbac.objectPatches."+g.flag] = true
	}
	if rbac := render(t, set).ofKind(rbacKinds...); len(rbac) > 0 {
		t.Errorf("rbac.create=false with every grant true still renders %v", rbac.keys())
	}
}

func TestEachObjectPatchFlagRemovesExactlyItsGrant(t *testing.T) {
	def := render(t, nil)
	for _, g := range grants {
		t.Run(g.flag, func(t *testing.T) {
			got := render(t, map[string]any{"rbac.objectPatches." + g.flag: false})
			removed := []string{"ClusterRole//" + g.name, "ClusterRoleBinding//" + g.name}
			for _, k := range removed {
				if _, ok := def[k]; !ok {
					t.Fatalf("defaults lack %s", k)
				}
			}
			var wantKeys []string
			for _, k := range def.keys() {
				if !slices.Contains(removed, k) {
					wantKeys = append(wantKeys, k)
				}
			}
			if !slices.Equal(got.keys(), wantKeys) {
				t.Fatalf("rbac.objectPatches.%s=false renders %v, want %v", g.flag, got.keys(), wantKeys)
			}
			for _, k := range wantKeys {
				if d := cmp.Diff(def[k].Object, got[k].Object); d != "" {
					t.Errorf("%s changed:\n%s", k, d)
				}
			}
		})
	}
	// All four off: the main role (with its HPA reads) stays.
	set := map[string]any{}
	for _, g := range grants {
		set["rbac.objectPatches."+g.flag] = false
	}
	got := render(t, set)
	if n := len(got.ofKind("ClusterRole")); n != 1 {
		t.Errorf("every grant off: %d ClusterRoles, want only the main one", n)
	}
	checkMainRole(t, "chart, every grant off", got["ClusterRole//statecraft"])
}

// checkGrant: one rule, exactly one group and one resource, exactly get and
// patch, no resourceNames or nonResourceURLs; its binding binds only the
// controller's ServiceAccount.
func checkGrant(t *testing.T, where string, all objects, g grant) {
	t.Helper()
	role, ok := all["ClusterRole//"+g.name]
	if !ok {
		t.Errorf("%s: no ClusterRole %s", where, g.name)
		return
	}
	rules, _, _ := unstructured.NestedSlice(role.Object, "rules")
	want := []any{map[string]any{
		"apiGroups": []any{g.group},
		"resources": []any{g.resource},
		"verbs":     []any{"get", "patch"},
	}}
	if !reflect.DeepEqual(rules, want) {
		t.Errorf("%s: ClusterRole %s rules %v, want only get and patch on %s.%s", where, g.name, rules, g.resource, g.group)
	}
	binding, ok := all["ClusterRoleBinding//"+g.name]
	if !ok {
		t.Errorf("%s: no ClusterRoleBinding %s", where, g.name)
		return
	}
	ref, _, _ := unstructured.NestedMap(binding.Object, "roleRef")
	if !reflect.DeepEqual(ref, map[string]any{"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": g.name}) {
		t.Errorf("%s: ClusterRoleBinding %s roleRef %v", where, g.name, ref)
	}
	subjects, _, _ := unstructured.NestedSlice(binding.Object, "subjects")
	if !reflect.DeepEqual(subjects, []any{map[string]any{"kind": "ServiceAccount", "name": sa, "namespace": namespace}}) {
		t.Errorf("%s: ClusterRoleBinding %s subjects %v", where, g.name, subjects)
	}
}

func TestOptionalGrantsAreGetAndPatchOnOneResource(t *testing.T) {
	sources := map[string]objects{
		"examples/deploy": index(t, "examples/deploy", examples(t)),
		"chart":           render(t, nil),
	}
	for where, all := range sources {
		for _, g := range grants {
			checkGrant(t, where, all, g)
		}
		// Every ClusterRole but the main one is one of the grants.
		for k := range all.ofKind("ClusterRole") {
			name := strings.TrimPrefix(k, "ClusterRole//")
			if name != "statecraft" && !slices.ContainsFunc(grants, func(g grant) bool { return g.name == name }) {
				t.Errorf("%s: unexpected ClusterRole %s", where, name)
			}
		}
	}
}

// rule is one PolicyRule, flattened.
type rule struct{ groups, resources, verbs []string }

func rulesOf(t *testing.T, u *unstructured.Unstructured) []rule {
	t.Helper()
	raw, _, _ := unstructured.NestedSlice(u.Object, "rules")
	var out []rule
	for _, r := range raw {
		m := r.(map[string]any)
		strs := func(f string) []string {
			v, _, _ := unstructured.NestedStringSlice(m, f)
			return v
		}
		for _, f := range []string{"resourceNames", "nonResourceURLs"} {
			if _, ok := m[f]; ok {
				t.Errorf("%s: a rule with %s", key(u), f)
			}
		}
		out = append(out, rule{strs("apiGroups"), strs("resources"), strs("verbs")})
	}
	return out
}

// allows reports whether rules grant verb on group/resource.
func allows(rules []rule, group, resource, verb string) bool {
	for _, r := range rules {
		if slices.Contains(r.groups, group) && slices.Contains(r.resources, resource) && slices.Contains(r.verbs, verb) {
			return true
		}
	}
	return false
}

// checkMainRole: the controller's own needs, nothing more.
func checkMainRole(t *testing.T, where string, role *unstructured.Unstructured) {
	t.Helper()
	if role == nil {
		t.Errorf("%s: no main ClusterRole", where)
		return
	}
	rules := rulesOf(t, role)
	const g = "rightsizing.kubex.ai"
	need := []struct{ group, resource, verbs string }{
		{g, "objectpatches", "get list watch patch update"},
		{g, "clusterobjectpatches", "get list watch patch update"},
		{g, "objectpatches/status", "patch update"},
		{g, "clusterobjectpatches/status", "patch update"},
		{"", "events", "create patch"},
		{"autoscaling", "horizontalpodautoscalers", "get list watch"}, // HPA reads for safety checks
	}
	for _, n := range need {
		for _, v := range strings.Fields(n.verbs) {
			if !allows(rules, n.group, n.resource, v) {
				t.Errorf("%s: main ClusterRole does not grant %s on %s (group %q)", where, v, n.resource, n.group)
			}
		}
	}
	for _, r := range rules {
		for _, s := range slices.Concat(r.groups, r.resources, r.verbs) {
			if s == "*" {
				t.Errorf("%s: main ClusterRole has a wildcard: %+v", where, r)
			}
		}
		for _, v := range r.verbs {
			if slices.Contains([]string{"delete", "deletecollection", "escalate", "bind", "impersonate"}, v) {
				t.Errorf("%s: main ClusterRole grants %s: %+v", where, v, r)
			}
		}
	}
	// The main role writes no target: patching targets is the grants' job.
	for _, target := range grants {
		if allows(rules, target.group, target.resource, "patch") || allows(rules, target.group, target.resource, "update") {
			t.Errorf("%s: main ClusterRole writes %s.%s", where, target.resource, target.group)
		}
	}
}

func TestMainRoleIsLeastPrivilege(t *testing.T) {
	ex := index(t, "examples/deploy", examples(t))
	checkMainRole(t, "examples/deploy", ex["ClusterRole//statecraft"])
	checkMainRole(t, "chart", render(t, nil)["ClusterRole//statecraft"])
	// HPA reads stay in the main role when the HPA grant is off.
	off := render(t, map[string]any{"rbac.objectPatches.horizontalPodAutoscalers": false})
	checkMainRole(t, "chart, horizontalPodAutoscalers=false", off["ClusterRole//statecraft"])

	lease := ex["Role/"+namespace+"/statecraft-leader-election"]
	if lease == nil {
		t.Fatal("examples/deploy: no leader-election Role")
	}
	want := []rule{{[]string{"coordination.k8s.io"}, []string{"leases"}, []string{"get", "create", "update"}}}
	if got := rulesOf(t, lease); !reflect.DeepEqual(got, want) {
		t.Errorf("leader-election Role rules %+v, want %+v", got, want)
	}
}

func container(t *testing.T, all objects) map[string]any {
	t.Helper()
	d := all["Deployment/"+namespace+"/statecraft"]
	if d == nil {
		t.Fatalf("no Deployment among %v", all.keys())
	}
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	if len(cs) != 1 {
		t.Fatalf("%d containers, want 1", len(cs))
	}
	return cs[0].(map[string]any)
}

func TestDeployment(t *testing.T) {
	c := container(t, index(t, "examples/deploy", examples(t)))
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	if want := []string{"run", "--leader-elect", "--metrics-addr=:8080", "--health-addr=:8081"}; !slices.Equal(args, want) {
		t.Errorf("args %v, want %v", args, want)
	}
	for _, p := range []struct{ probe, path string }{{"livenessProbe", "/healthz"}, {"readinessProbe", "/readyz"}} {
		path, _, _ := unstructured.NestedString(c, p.probe, "httpGet", "path")
		port, _, _ := unstructured.NestedFieldNoCopy(c, p.probe, "httpGet", "port")
		if path != p.path || port != "health" {
			t.Errorf("%s: %s on %v, want %s on port health", p.probe, path, port, p.path)
		}
	}
	ports, _, _ := unstructured.NestedSlice(c, "ports")
	found := false
	for _, p := range ports {
		m := p.(map[string]any)
		if m["name"] == "health" && m["containerPort"] == int64(8081) {
			found = true
		}
	}
	if !found {
		t.Errorf("no port health=8081 in %v", ports)
	}
	for _, f := range [][]string{{"readOnlyRootFilesystem"}, {"runAsNonRoot"}} {
		if v, _, _ := unstructured.NestedBool(c, append([]string{"securityContext"}, f...)...); !v {
			t.Errorf("securityContext.%s is not true", f[0])
		}
	}
	if v, ok, _ := unstructured.NestedBool(c, "securityContext", "allowPrivilegeEscalation"); !ok || v {
		t.Error("securityContext.allowPrivilegeEscalation is not false")
	}
	if _, ok, _ := unstructured.NestedMap(c, "resources", "requests"); !ok {
		t.Error("no resource requests")
	}
}

func TestChartValues(t *testing.T) {
	t.Run("leaderElect=false", func(t *testing.T) {
		got := render(t, map[string]any{"leaderElect": false})
		args, _, _ := unstructured.NestedStringSlice(container(t, got), "args")
		if slices.Contains(args, "--leader-elect") {
			t.Errorf("args %v still elect a leader", args)
		}
		if r := got.ofKind("Role", "RoleBinding"); len(r) > 0 {
			t.Errorf("leaderElect=false still renders %v", r.keys())
		}
		if len(got.ofKind("ClusterRole")) != 1+len(grants) {
			t.Errorf("leaderElect=false changed the ClusterRoles: %v", got.ofKind("ClusterRole").keys())
		}
	})
	t.Run("image, replicas, resources", func(t *testing.T) {
		got := render(t, map[string]any{
			"image.repository": "registry.example/statecraft",
			"image.tag":        "v1.2.3",
			"replicas":         3,
			"resources":        map[string]any{"requests": map[string]any{"cpu": "1"}},
		})
		c := container(t, got)
		if c["image"] != "registry.example/statecraft:v1.2.3" {
			t.Errorf("image %v", c["image"])
		}
		if r, _, _ := unstructured.NestedFieldNoCopy(got["Deployment/"+namespace+"/statecraft"].Object, "spec", "replicas"); r != int64(3) {
			t.Errorf("replicas %v (%T), want 3", r, r)
		}
		// Helm merges maps: the default memory request and limit stay.
		res, _, _ := unstructured.NestedMap(c, "resources")
		want := map[string]any{"requests": map[string]any{"cpu": "1", "memory": "128Mi"}, "limits": map[string]any{"memory": "512Mi"}}
		if !reflect.DeepEqual(res, want) {
			t.Errorf("resources %v, want %v", res, want)
		}
	})
	t.Run("release name", func(t *testing.T) {
		// Another release name prefixes every object and binds its own
		// ServiceAccount.
		ch := loadChart(t)
		inst := action.NewInstall(&action.Configuration{Log: func(string, ...any) {}})
		inst.DryRun, inst.ClientOnly, inst.Replace = true, true, true
		inst.ReleaseName, inst.Namespace = "ops", "ops-system"
		rel, err := inst.Run(ch, map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		got := index(t, "chart", decode(t, "chart", []byte(rel.Manifest)))
		for k, u := range got {
			if !strings.HasPrefix(u.GetName(), "ops-statecraft") {
				t.Errorf("%s: name not prefixed by the release", k)
			}
		}
		for k, u := range got.ofKind("RoleBinding", "ClusterRoleBinding") {
			subjects, _, _ := unstructured.NestedSlice(u.Object, "subjects")
			if !reflect.DeepEqual(subjects, []any{map[string]any{"kind": "ServiceAccount", "name": "ops-statecraft", "namespace": "ops-system"}}) {
				t.Errorf("%s: subjects %v", k, subjects)
			}
		}
	})
	t.Run("schema rejects unknown grant flags and non-booleans", func(t *testing.T) {
		for _, set := range []map[string]any{
			{"rbac.objectPatches.nodepools": false},
			{"rbac.create": "no"},
			{"rbac.objectPatches.clusterAutoscalers": "false"},
		} {
			if _, err := renderList(loadChart(t), set); err == nil {
				t.Errorf("%v: rendered without error", set)
			}
		}
	})
}
