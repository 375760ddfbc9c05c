package policies_test

import (
	"regexp"
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/rules/policies"
	"github.com/statecraft/statecraft/spec/crds"
)

// The auto-patch claims below hold by the shape of what statecraft ships
// rather than by anything a run does; these tests keep that shape from
// drifting (spec/conformance/README.md, AP-37, AP-44, AP-83).

func loadAutopatch(t *testing.T) *rules.Machine {
	t.Helper()
	src, name, ok := policies.Source("autopatch")
	if !ok {
		t.Fatal("no shipped autopatch policy")
	}
	f, diags := rules.Parse(src, name)
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	if len(f.Machines) != 1 {
		t.Fatalf("autopatch.hcl holds %d machines, want 1", len(f.Machines))
	}
	return f.Machines[0]
}

// AP-37: the release check alone reaches registries; the patcher only reads
// its results. Every request the policy makes is a Kubernetes API verb (an
// event action is the creation of an events.k8s.io Event), and none of
// them, nor any status field the machine sets, writes upgradeTargets; the
// policy does read them.
func TestAutoPatchOnlyReadsReleaseCheckResults(t *testing.T) {
	m := loadAutopatch(t)
	apiVerbs := map[string]bool{"get": true, "create": true, "update": true, "patch": true, "apply": true, "delete": true, "status": true, "event": true}
	var assignments []rules.Assignment
	for _, s := range m.States {
		assignments = append(assignments, s.Set...)
	}
	actions := 0
	for _, tr := range m.Transitions {
		for _, a := range tr.Actions {
			actions++
			if !apiVerbs[a.Verb] {
				t.Errorf("%s: transition %q action %q has verb %q, not a Kubernetes API verb", a.DeclRange, tr.Name, a.Name, a.Verb)
			}
			if a.Body != nil && strings.Contains(a.Body.Source, "upgradeTargets") {
				t.Errorf("%s: transition %q action %q writes upgradeTargets", a.DeclRange, tr.Name, a.Name)
			}
		}
		routes := append([]*rules.Route{tr.Done}, tr.Routes...)
		for _, r := range routes {
			if r != nil {
				assignments = append(assignments, r.Set...)
			}
		}
	}
	if actions == 0 {
		t.Fatal("the policy makes no request at all; the test would prove nothing")
	}
	for _, a := range assignments {
		if strings.Contains(a.Path, "upgradeTargets") {
			t.Errorf("%s: the machine sets %s", a.Range, a.Path)
		}
	}
	reads := false
	for _, l := range m.Lets {
		if strings.Contains(l.Value.Source, "status.?upgradeTargets") {
			reads = true
		}
	}
	if !reads {
		t.Error("no let reads status.upgradeTargets: the patcher no longer takes its targets from the release check")
	}
}

// schemaProps returns the property names of a CRD's first version, at every
// depth under root, as dotted paths.
func schemaProps(t *testing.T, file string) []string {
	t.Helper()
	b, err := crds.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	var crd struct {
		Spec struct {
			Versions []struct {
				Schema struct {
					OpenAPIV3Schema map[string]any `json:"openAPIV3Schema"`
				} `json:"schema"`
			} `json:"versions"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	if len(crd.Spec.Versions) == 0 {
		t.Fatalf("%s: no versions", file)
	}
	var out []string
	var walk func(prefix string, s map[string]any)
	walk = func(prefix string, s map[string]any) {
		props, _ := s["properties"].(map[string]any)
		for name, v := range props {
			p := strings.TrimPrefix(prefix+"."+name, ".")
			out = append(out, p)
			if sub, ok := v.(map[string]any); ok {
				walk(p, sub)
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			walk(prefix+"[]", items)
		}
	}
	walk("", crd.Spec.Versions[0].Schema.OpenAPIV3Schema)
	sort.Strings(out)
	return out
}

// AP-44: no spec field of a TalosOperation records who started it; the
// auto-patch annotations are the audit trail.
func TestTalosOperationSpecRecordsNoStarter(t *testing.T) {
	var spec []string
	for _, p := range schemaProps(t, "ichor.maesh.dev_talosoperations.yaml") {
		if strings.HasPrefix(p, "spec.") {
			spec = append(spec, p)
		}
	}
	if want := []string{"spec.cluster", "spec.cni", "spec.cni.chartVersion", "spec.cni.imageVersion", "spec.targetVersion", "spec.type"}; strings.Join(spec, " ") != strings.Join(want, " ") {
		t.Errorf("TalosOperation spec fields = %v, want %v (a new field must not record the starter: AP-44)", spec, want)
	}
	starter := regexp.MustCompile(`(?i)start|initiat|request|creat|author|owner|user|actor|by$|auto`)
	for _, p := range spec {
		if starter.MatchString(p) {
			t.Errorf("TalosOperation %s looks like a record of the starter", p)
		}
	}
	// The audit trail the policy writes instead.
	src, _, _ := policies.Source("autopatch")
	for _, mark := range []string{"'ichor.maesh.dev/auto-patch': 'true'", "'ichor.maesh.dev/started-by': 'ichor-auto-patch'"} {
		if !strings.Contains(string(src), mark) {
			t.Errorf("the policy no longer marks the operations it starts with %s", mark)
		}
	}
}

// AP-83: the setting is installation-wide. The IchorInstallation holds
// spec.autoPatch; a TalosCluster has no switch or window of its own, and the
// policy never reads one from a cluster.
func TestAutoPatchSettingIsInstallationWide(t *testing.T) {
	install := schemaProps(t, "ichor.maesh.dev_ichorinstallations.yaml")
	for _, want := range []string{"spec.autoPatch.enabled", "spec.autoPatch.window", "spec.autoPatch.components"} {
		if i := sort.SearchStrings(install, want); i == len(install) || install[i] != want {
			t.Errorf("IchorInstallation has no %s", want)
		}
	}
	setting := regexp.MustCompile(`(?i)autopatch|patch|window|enabled|components|halt`)
	for _, p := range schemaProps(t, "ichor.maesh.dev_talosclusters.yaml") {
		if setting.MatchString(p) {
			t.Errorf("TalosCluster has %s: a per-cluster auto-patch setting", p)
		}
	}
	m := loadAutopatch(t)
	if len(m.Resources) != 1 || m.Resources[0].Kind != "IchorInstallation" {
		t.Errorf("the autopatch machine is bound to %v, want the IchorInstallation alone", m.Resources)
	}
	clusterSetting := regexp.MustCompile(`clusters?\b[^;]*\.autoPatch`)
	for _, l := range m.Lets {
		if clusterSetting.MatchString(l.Value.Source) {
			t.Errorf("%s: let %s reads an autoPatch setting from a cluster", l.DeclRange, l.Name)
		}
	}
}
