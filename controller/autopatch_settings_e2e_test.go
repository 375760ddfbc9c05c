package controller_test

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/internal/controlplane"
)

// The refusal of the settings gate, as examples/autopatch/deploy/admission.yaml
// words it.
const settingsRefusal = "changing spec.autoPatch (enabled, components, window, acknowledgedHalt) needs update on ichorinstallations/settings"

// TestAutoPatchSettingsNeedSettingsUpdate shows on a real kube-apiserver
// (authorization mode RBAC) that changing spec.autoPatch needs `update` on
// the virtual subresource ichorinstallations/settings (AP-11), the
// acknowledgement of a halt included (AP-63): the shipped
// ValidatingAdmissionPolicy ichor-settings-gate asks the authorizer about
// the requesting user, and the shipped ClusterRole ichor-settings-editor
// grants it. Users are impersonated with `kubectl --as`, the way a person
// would run the `ichor settings set` equivalent: dana may patch the
// installation but holds no settings grant; sam is bound to
// ichor-settings-editor.
func TestAutoPatchSettingsNeedSettingsUpdate(t *testing.T) {
	cp, kubectl := ownControlPlane(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	path := kubectlPath(t)
	as := func(user string, args ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return runKubectl(ctx, path, cp.KubeconfigPath, "", append([]string{"--as", user, "-n", "ichor-system"}, args...)...)
	}

	kubectl("", "create", "namespace", "ichor-system")
	kubectl("", "apply", "-f", filepath.Join(root, "examples", "autopatch", "deploy"))
	// dana: the ordinary writes of the installation, no settings grant.
	kubectl("", "create", "clusterrole", "ichor-installation-writer", "--verb=get,list,create,patch,update", "--resource=ichorinstallations.ichor.maesh.dev")
	kubectl("", "create", "rolebinding", "dana-writer", "-n", "ichor-system", "--clusterrole=ichor-installation-writer", "--user=dana")
	// sam: the shipped settings grant, in the installation's namespace (and
	// create, to show what a create with settings needs).
	kubectl("", "create", "rolebinding", "sam-settings", "-n", "ichor-system", "--clusterrole=ichor-settings-editor", "--user=sam")
	kubectl("", "create", "rolebinding", "sam-writer", "-n", "ichor-system", "--clusterrole=ichor-installation-writer", "--user=sam")
	kubectl(`apiVersion: ichor.maesh.dev/v1alpha1
kind: IchorInstallation
metadata:
  name: ichor
  namespace: ichor-system
spec:
  version: 1.4.0
  autoPatch:
    enabled: false
    window: "02:00-05:00"
`, "apply", "-f", "-")

	// The authorizer's answer the policy relies on: RBAC is on, the
	// subresource grant is sam's alone.
	for user, want := range map[string]string{"dana": "no", "sam": "yes"} {
		out, _ := as(user, "auth", "can-i", "update", "ichorinstallations.ichor.maesh.dev", "--subresource=settings")
		if strings.TrimSpace(out) != want {
			t.Fatalf("%s: can-i update ichorinstallations/settings: %q, want %s", user, out, want)
		}
		out, _ = as(user, "auth", "can-i", "patch", "ichorinstallations.ichor.maesh.dev")
		if strings.TrimSpace(out) != "yes" {
			t.Fatalf("%s: can-i patch ichorinstallations: %q, want yes", user, out)
		}
	}

	// A policy and its binding are in force once the API server has loaded
	// them, shortly after they are created: wait for dana's dry-run settings
	// edit to be refused.
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := as("dana", "patch", "ichorinstallation", "ichor", "--dry-run=server", "--type", "merge", "-p", `{"spec":{"autoPatch":{"window":"22:00-02:00"}}}`)
		if err != nil && strings.Contains(out, settingsRefusal) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the settings gate is not in force after 30s: %v\n%s", err, out)
		}
		time.Sleep(200 * time.Millisecond)
	}

	patch := func(user, body string) (string, error) {
		return as(user, "patch", "ichorinstallation", "ichor", "--type", "merge", "-p", body)
	}
	get := func(jsonpath string) string {
		return kubectl("", "get", "ichorinstallation", "ichor", "-n", "ichor-system", "-o", "jsonpath="+jsonpath)
	}
	settingsEdits := []struct{ what, body string }{
		{"spec.autoPatch.window", `{"spec":{"autoPatch":{"window":"22:00-02:00"}}}`},
		{"spec.autoPatch.enabled", `{"spec":{"autoPatch":{"enabled":true}}}`},
		{"spec.autoPatch.components", `{"spec":{"autoPatch":{"components":["talos"]}}}`},
		{"spec.autoPatch.acknowledgedHalt", `{"spec":{"autoPatch":{"acknowledgedHalt":"fleet/prod-autopatch-talos-v1-10-5"}}}`},
		{"spec.autoPatch removed", `{"spec":{"autoPatch":null}}`},
	}

	// Without the grant: every settings edit is refused by the gate, and
	// the installation keeps its settings; spec.version is written.
	for _, e := range settingsEdits {
		out, err := patch("dana", e.body)
		if err == nil || !strings.Contains(out, settingsRefusal) || !strings.Contains(out, "ichor-settings-gate") {
			t.Errorf("dana editing %s: %v\n%s\nwant a refusal by ichor-settings-gate", e.what, err, out)
		}
	}
	if got := get("{.spec.autoPatch}"); got != `{"enabled":false,"window":"02:00-05:00"}` {
		t.Errorf("after dana's refused edits spec.autoPatch is %s", got)
	}
	if out, err := patch("dana", `{"spec":{"version":"1.4.1"}}`); err != nil {
		t.Errorf("dana editing spec.version: %v\n%s", err, out)
	}
	if got := get("{.spec.version}"); got != "1.4.1" {
		t.Errorf("spec.version %q, want 1.4.1 (dana's edit)", got)
	}
	// Labels too are not settings.
	if out, err := as("dana", "label", "ichorinstallation", "ichor", "team=platform"); err != nil {
		t.Errorf("dana labelling the installation: %v\n%s", err, out)
	}

	// With the grant: the same edits, and spec.version, are allowed.
	for _, e := range settingsEdits[:4] {
		if out, err := patch("sam", e.body); err != nil {
			t.Errorf("sam editing %s: %v\n%s", e.what, err, out)
		}
	}
	if got := get("{.spec.autoPatch}"); got != `{"acknowledgedHalt":"fleet/prod-autopatch-talos-v1-10-5","components":["talos"],"enabled":true,"window":"22:00-02:00"}` {
		t.Errorf("after sam's edits spec.autoPatch is %s", got)
	}
	if out, err := patch("sam", `{"spec":{"version":"1.4.2"}}`); err != nil {
		t.Errorf("sam editing spec.version: %v\n%s", err, out)
	}
	if out, err := patch("sam", settingsEdits[4].body); err != nil {
		t.Errorf("sam removing spec.autoPatch: %v\n%s", err, out)
	}

	// A create: with spec.autoPatch it needs the grant, without it only
	// create.
	install := func(name string, autoPatch bool) string {
		y := "apiVersion: ichor.maesh.dev/v1alpha1\nkind: IchorInstallation\nmetadata:\n  name: " + name + "\n  namespace: ichor-system\nspec:\n  version: 1.4.0\n"
		if autoPatch {
			y += "  autoPatch:\n    enabled: true\n"
		}
		return y
	}
	createAs := func(user, manifest string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		return runKubectl(ctx, path, cp.KubeconfigPath, manifest, "--as", user, "create", "-f", "-")
	}
	if out, err := createAs("dana", install("dana-with-settings", true)); err == nil || !strings.Contains(out, settingsRefusal) {
		t.Errorf("dana creating an installation with spec.autoPatch: %v\n%s\nwant a refusal by ichor-settings-gate", err, out)
	}
	if out, err := createAs("dana", install("dana-plain", false)); err != nil {
		t.Errorf("dana creating an installation without spec.autoPatch: %v\n%s", err, out)
	}
	if out, err := createAs("sam", install("sam-with-settings", true)); err != nil {
		t.Errorf("sam creating an installation with spec.autoPatch: %v\n%s", err, out)
	}

	// The engine writes status only: the gate does not match the status
	// subresource, and an admin (system:masters) passes the authorizer.
	if out, err := runKubectl(context.Background(), path, cp.KubeconfigPath, "", "-n", "ichor-system", "patch", "ichorinstallation", "ichor", "--subresource=status", "--type", "merge", "-p", `{"status":{"state":"Off"}}`); err != nil {
		t.Errorf("a status write: %v\n%s", err, out)
	}
}

// TestAutoPatchPrinterColumns shows the kubectl equivalents of Ichor's UI on
// a real kube-apiserver, with the shipped CRDs and the engine running the
// autopatch policy: `kubectl get talosoperation` shows the operation the
// policy started as STARTED-BY ichor-auto-patch (the operation page's
// "Started by: Automatic patching", AP-45), a person's operation an empty
// cell; once the automatic operation is Paused, `kubectl get
// ichorinstallation` shows AUTOPATCH Halted, REASON AutoPatchHalted and
// HALTED with the operation (the Overview's attention item, AP-55).
func TestAutoPatchPrinterColumns(t *testing.T) {
	cp, kubectl := ownControlPlane(t)
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	admin := dynamic.NewForConfigOrDie(cp.Config)

	for _, ns := range []string{"ichor-system", "fleet", "statecraft-system"} {
		kubectl("", "create", "namespace", ns)
	}
	kubectl("", "apply", "-f", filepath.Join(root, "examples", "autopatch", "deploy"))

	create := func(gvr schema.GroupVersionResource, ns string, obj map[string]any) {
		t.Helper()
		st, hasStatus := obj["status"]
		created, err := admin.Resource(gvr).Namespace(ns).Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if hasStatus {
			created.Object["status"] = st
			if _, err := admin.Resource(gvr).Namespace(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	create(installGVR, "ichor-system", map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "IchorInstallation",
		"metadata": map[string]any{"name": "ichor", "namespace": "ichor-system"},
		"spec":     map[string]any{"version": "1.4.0", "autoPatch": map[string]any{"enabled": true}},
		"status": map[string]any{"installedVersion": "1.4.0", "upgradeTargets": map[string]any{
			"checkedAt":     time.Now().UTC().Format(time.RFC3339),
			"talos":         []any{"v1.10.3", "v1.10.5", "v1.11.0"},
			"kubernetes":    []any{"v1.32.4", "v1.32.6"},
			"compatibility": []any{map[string]any{"talos": "1.10", "kubernetes": []any{"1.31", "1.32"}, "cilium": []any{"1.17"}}},
		}},
	})
	create(clusterGVR, "fleet", map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "TalosCluster",
		"metadata": map[string]any{"name": "prod", "namespace": "fleet"},
		"spec":     map[string]any{"talosVersion": "v1.10.2", "kubernetesVersion": "v1.32.3", "endpoint": "https://prod.fleet.example:6443", "cni": map[string]any{"preset": "cilium"}},
		"status": map[string]any{"ciliumVersion": "v1.17.4", "machines": []any{
			map[string]any{"name": "cp-1", "approved": true, "ready": true},
		}},
	})
	// A person's reboot of another cluster: no started-by annotation.
	create(opGVR2, "fleet", map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "TalosOperation",
		"metadata": map[string]any{"name": "lab-reboot", "namespace": "fleet"},
		"spec":     map[string]any{"cluster": "lab", "type": "reboot"},
		"status":   map[string]any{"phase": "Running"},
	})

	// The engine, as its own ServiceAccount, runs the shipped policy.
	engineCfg, err := cp.AddUser(engineUser, "system:serviceaccounts", "system:serviceaccounts:statecraft-system")
	if err != nil {
		t.Fatal(err)
	}
	ms := shippedMachines(t, nil, "autopatch")
	start(t, engineCfg, controller.Options{}, ms...)

	const opName = "prod-autopatch-talos-v1-10-5"
	waitFor := func(what string, cond func() bool, poke func()) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for !cond() {
			if time.Now().After(deadline) {
				inst, _ := admin.Resource(installGVR).Namespace("ichor-system").Get(ctx, "ichor", metav1.GetOptions{})
				t.Fatalf("%s: not within 90s; installation status: %v", what, inst.Object["status"])
			}
			if poke != nil {
				poke()
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	waitFor("the policy starts "+opName, func() bool {
		_, err := admin.Resource(opGVR2).Namespace("fleet").Get(ctx, opName, metav1.GetOptions{})
		return err == nil
	}, nil)
	// Ichor's executor runs it.
	setPhase := func(phase string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"status": map[string]any{"phase": phase, "failureReason": "step 2 (upgrade cp-1) failed: node did not come back"}})
		if _, err := admin.Resource(opGVR2).Namespace("fleet").Patch(ctx, opName, types.MergePatchType, body, metav1.PatchOptions{}, "status"); err != nil {
			t.Fatal(err)
		}
	}
	setPhase("Running")

	// AP-45: the Started-By column, by default and with -o wide.
	for _, wide := range []bool{false, true} {
		args := []string{"get", "talosoperations", "-n", "fleet"}
		if wide {
			args = append(args, "-o", "wide")
		}
		rows := kubectlTable(t, kubectl("", args...))
		for name, want := range map[string]map[string]string{
			opName:       {"CLUSTER": "prod", "TYPE": "talos", "PHASE": "Running", "STARTED-BY": "ichor-auto-patch"},
			"lab-reboot": {"CLUSTER": "lab", "TYPE": "reboot", "PHASE": "Running", "STARTED-BY": ""},
		} {
			row, ok := rows[name]
			if !ok {
				t.Fatalf("kubectl %s: no row %s in %v", strings.Join(args, " "), name, rows)
			}
			for col, v := range want {
				if row[col] != v {
					t.Errorf("kubectl %s: %s %s = %q, want %q", strings.Join(args, " "), name, col, row[col], v)
				}
			}
		}
	}
	rows := kubectlTable(t, kubectl("", "get", "ichorinstallations", "-n", "ichor-system"))
	if r := rows["ichor"]; r["AUTOPATCH"] != "Active" || r["HALTED"] != "" {
		t.Errorf("before the halt: kubectl get ichorinstallations: %v", r)
	}

	// AP-55: the automatic operation pauses (a failed step); the policy
	// halts. (Observed objects do not wake the installation: a change of
	// its annotations does, so the test need not wait for the minute.)
	setPhase("Paused")
	poke := 0
	waitFor("the halt", func() bool {
		inst, err := admin.Resource(installGVR).Namespace("ichor-system").Get(ctx, "ichor", metav1.GetOptions{})
		if err != nil {
			return false
		}
		h, _, _ := unstructured.NestedString(inst.Object, "status", "autoPatch", "haltedOperation")
		return h != ""
	}, func() {
		poke++
		body := fmt.Sprintf(`{"metadata":{"annotations":{"test/poke":"%d"}}}`, poke)
		if _, err := admin.Resource(installGVR).Namespace("ichor-system").Patch(ctx, "ichor", types.MergePatchType, []byte(body), metav1.PatchOptions{}); err != nil {
			t.Fatal(err)
		}
	})
	for _, wide := range []bool{false, true} {
		args := []string{"get", "ichorinstallations", "-n", "ichor-system"}
		if wide {
			args = append(args, "-o", "wide")
		}
		r := kubectlTable(t, kubectl("", args...))["ichor"]
		for col, v := range map[string]string{"AUTOPATCH": "Halted", "REASON": "AutoPatchHalted", "HALTED": "fleet/" + opName, "VERSION": "1.4.0"} {
			if r[col] != v {
				t.Errorf("kubectl %s: %s = %q, want %q (row %v)", strings.Join(args, " "), col, r[col], v, r)
			}
		}
	}
	// The same item across namespaces, as an overview lists it.
	r := kubectlTable(t, kubectl("", "get", "ichorinstallations", "--all-namespaces"))["ichor"]
	if r["NAMESPACE"] != "ichor-system" || r["HALTED"] != "fleet/"+opName {
		t.Errorf("kubectl get ichorinstallations --all-namespaces: %v", r)
	}
	// The condition behind it.
	cond := kubectl("", "get", "ichorinstallation", "ichor", "-n", "ichor-system", "-o", `jsonpath={.status.conditions[?(@.type=="AutoPatchHalted")].status}`)
	if cond != "True" {
		t.Errorf("condition AutoPatchHalted = %q, want True", cond)
	}
}

// kubectlTable parses the table kubectl get prints: for each row, keyed by
// its NAME cell, the cells by column header. A column starts where its
// header starts (kubectl aligns the cells under it); a printer column whose
// JSONPath finds nothing is an empty cell.
func kubectlTable(t *testing.T, out string) map[string]map[string]string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < 1 {
		t.Fatalf("no table in %q", out)
	}
	header := lines[0]
	var starts []int
	for i := 0; i < len(header); i++ {
		if header[i] != ' ' && (i == 0 || header[i-1] == ' ') {
			starts = append(starts, i)
		}
	}
	cell := func(line string, k int) string {
		from, to := starts[k], len(line)
		if k+1 < len(starts) && starts[k+1] < to {
			to = starts[k+1]
		}
		if from >= len(line) {
			return ""
		}
		return strings.TrimSpace(line[from:to])
	}
	rows := map[string]map[string]string{}
	for _, line := range lines[1:] {
		row := map[string]string{}
		for k := range starts {
			row[cell(header, k)] = cell(line, k)
		}
		rows[row["NAME"]] = row
	}
	return rows
}
