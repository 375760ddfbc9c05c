package controller_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/rules"
)

var ceGVR = schema.GroupVersionResource{Group: "olm.operatorframework.io", Version: "v1", Resource: "clusterextensions"}

// TestClusterExtensionWithKubectl runs the shipped clusterextension policy
// with the two rollout policies against a real kube-apiserver, driven with
// kubectl (claims COD-95 .. COD-102): the conformance scenarios' cache
// extension, applied verbatim, gets a ClusterObjectDeployment of its name
// that it controls, whose revision cache-1 controls the bundle's ConfigMap,
// and reports bundle 1.0.0 installed. Another controller's revision cache-2
// then becomes the highest of the group and the extension is upgraded to
// 2.0.0: the COD reports OwnerConflict, the extension Progressing=True/
// Retrying with the COD's message, keeping bundle 1.0.0 and Installed=True
// while acknowledging generation 2. Deleting the blocking revision lets the
// upgrade finish on its own. The COD's poll interval is tuned down to 2s
// here (a foreign revision's deletion does not wake it; by default it
// notices at its 10-minute poll).
func TestClusterExtensionWithKubectl(t *testing.T) {
	cp, run := ownControlPlane(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	kc := kubernetes.NewForConfigOrDie(cp.Config)
	dyn := dynamic.NewForConfigOrDie(cp.Config)

	ms := shippedMachines(t, func(m *rules.Machine) {
		for _, p := range m.Params {
			if m.Name == "clusterobjectdeployment" && p.Name == "poll_interval" {
				p.Default = "2s"
			}
		}
	}, "clusterextension", "clusterobjectdeployment", "clusterobjectset")
	start(t, cp.Config, controller.Options{}, ms...)

	get := func(gvr schema.GroupVersionResource, name string) *unstructured.Unstructured {
		u, err := dyn.Resource(gvr).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return u
	}
	str := func(u *unstructured.Unstructured, path ...string) string {
		if u == nil {
			return ""
		}
		v, _, _ := unstructured.NestedString(u.Object, path...)
		return v
	}
	cond := func(u *unstructured.Unstructured, typ string) map[string]any {
		if u == nil {
			return nil
		}
		cs, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		for _, c := range cs {
			if m, ok := c.(map[string]any); ok && m["type"] == typ {
				return m
			}
		}
		return nil
	}
	controllerOf := func(u *unstructured.Unstructured) metav1.OwnerReference {
		if u != nil {
			for _, r := range u.GetOwnerReferences() {
				if r.Controller != nil && *r.Controller {
					return r
				}
			}
		}
		return metav1.OwnerReference{}
	}
	waitFor := func(what string, check func() (bool, string)) {
		t.Helper()
		deadline := time.Now().Add(3 * time.Minute)
		last := ""
		for time.Now().Before(deadline) {
			ok, state := check()
			if ok {
				return
			}
			last = state
			time.Sleep(200 * time.Millisecond)
		}
		t.Fatalf("%s: not reached; last seen: %s", what, last)
	}
	ceState := func() string {
		u := get(ceGVR, "cache")
		return fmt.Sprintf("state %s, reason %s, message %q, Installed %v, bundle %s",
			str(u, "status", "state"), str(u, "status", "reason"), str(u, "status", "message"),
			cond(u, "Installed"), str(u, "status", "install", "bundle", "version"))
	}

	// The scenarios' extension, applied verbatim.
	manifest, err := os.ReadFile(filepath.Join(root, "spec", "conformance", "clusterextension", "cache-v1.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run(string(manifest), "apply", "-f", "-")
	waitFor("bundle 1.0.0 installed", func() (bool, string) {
		u := get(ceGVR, "cache")
		return str(u, "status", "state") == "Installed" && str(u, "status", "install", "bundle", "version") == "1.0.0", ceState()
	})
	ce := get(ceGVR, "cache")
	if c := cond(ce, "Installed"); c["status"] != "True" || c["reason"] != "Succeeded" || c["message"] != "Installed bundle cache-operator.v1.0.0 successfully" {
		t.Errorf("Installed after the first install: %v", c)
	}
	if c := cond(ce, "Progressing"); c["status"] != "True" || c["reason"] != "Succeeded" {
		t.Errorf("Progressing after the first install: %v", c)
	}

	// The ownership chain: extension → COD of its name → revision → object.
	cod := get(codGVR, "cache")
	if r := controllerOf(cod); r.Kind != "ClusterExtension" || r.Name != "cache" || r.UID != ce.GetUID() {
		t.Fatalf("COD cache is not controlled by the ClusterExtension: %+v", cod.GetOwnerReferences())
	}
	cos1 := get(cosGVR, "cache-1")
	if r := controllerOf(cos1); r.Kind != "ClusterObjectDeployment" || r.UID != cod.GetUID() || str(cos1, "spec", "group") != "cache" {
		t.Fatalf("cache-1 is not the COD's revision: %+v group %s", cos1.GetOwnerReferences(), str(cos1, "spec", "group"))
	}
	cm, err := kc.CoreV1().ConfigMaps("default").Get(ctx, "cache-config", metav1.GetOptions{})
	if err != nil || cm.Data["version"] != "1.0.0" {
		t.Fatalf("ConfigMap after the install: %v %v", cm, err)
	}
	if r := metav1.GetControllerOf(cm); r == nil || r.Name != "cache-1" || r.UID != cos1.GetUID() {
		t.Fatalf("the ConfigMap is not controlled by cache-1: %+v", cm.OwnerReferences)
	}

	// A foreign revision tops the group; then the upgrade.
	foreign, err := os.ReadFile(filepath.Join(root, "spec", "conformance", "clusterextension", "foreign-cache-2.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	run(string(foreign), "apply", "-f", "-")
	run("", "patch", "clusterextension", "cache", "--type", "merge", "-p",
		`{"spec":{"bundle":{"name":"cache-operator.v2.0.0","version":"2.0.0","phases":[{"name":"config","objects":[{"type":"InlineManifest","inlineManifest":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cache-config","namespace":"default"},"data":{"version":"2.0.0"}}}]}]}}}`)
	const conflict = "ClusterObjectSet cache-2 (revision 2) is controlled by Other someone; no new revision is created"
	// The foreign revision alone makes the COD report the conflict, before
	// the extension has seen its new generation: wait for that too.
	waitFor("the COD's OwnerConflict reported as Retrying at generation 2", func() (bool, string) {
		u := get(ceGVR, "cache")
		p := cond(u, "Progressing")
		g, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
		return str(u, "status", "state") == "Retrying" && p["message"] == conflict && g == 2, ceState()
	})
	ce = get(ceGVR, "cache")
	if c := cond(get(codGVR, "cache"), "Progressing"); c["status"] != "False" || c["reason"] != "OwnerConflict" || c["message"] != conflict {
		t.Errorf("the COD's Progressing during the conflict: %v", c)
	}
	if c := cond(ce, "Progressing"); c["status"] != "True" || c["reason"] != "Retrying" || c["observedGeneration"] != int64(2) {
		t.Errorf("the extension's Progressing during the conflict: %v", c)
	}
	if c := cond(ce, "Installed"); c["status"] != "True" || c["reason"] != "Succeeded" || c["observedGeneration"] != int64(2) {
		t.Errorf("Installed=True must be kept, at generation 2, during the conflict: %v", c)
	}
	if v := str(ce, "status", "install", "bundle", "version"); v != "1.0.0" {
		t.Errorf("the installed bundle during the conflict is %q, want 1.0.0", v)
	}
	if g, _, _ := unstructured.NestedInt64(ce.Object, "status", "observedGeneration"); g != 2 {
		t.Errorf("status.observedGeneration %d, want 2", g)
	}
	if get(cosGVR, "cache-3") != nil {
		t.Error("a revision was created despite the conflict")
	}

	// The conflict clears: the upgrade finishes without touching the
	// extension.
	run("", "delete", "clusterobjectset", "cache-2")
	waitFor("bundle 2.0.0 installed", func() (bool, string) {
		u := get(ceGVR, "cache")
		return str(u, "status", "state") == "Installed" && str(u, "status", "install", "bundle", "version") == "2.0.0", ceState()
	})
	cos2 := get(cosGVR, "cache-2")
	if r := controllerOf(cos2); r.Kind != "ClusterObjectDeployment" || r.UID != cod.GetUID() {
		t.Errorf("cache-2 after the conflict is not the COD's: %+v", cos2.GetOwnerReferences())
	}
	waitFor("cache-1 archived, the ConfigMap at 2.0.0", func() (bool, string) {
		cm, err := kc.CoreV1().ConfigMaps("default").Get(ctx, "cache-config", metav1.GetOptions{})
		l1 := str(get(cosGVR, "cache-1"), "spec", "lifecycleState")
		return err == nil && cm.Data["version"] == "2.0.0" && l1 == "Archived", fmt.Sprintf("cache-1 %s, ConfigMap %v", l1, cm.Data)
	})
	if n := len(get(codGVR, "cache").GetOwnerReferences()); n != 1 {
		t.Errorf("the COD has %d owner references, want the extension's only", n)
	}
}
