package controlplane

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRepoRootAndBinDir(t *testing.T) {
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if !isRootModule(filepath.Join(root, "go.mod")) {
		t.Fatalf("RepoRoot %s: go.mod is not module %s", root, RootModule)
	}
	t.Setenv(EnvBinDir, "")
	dir, err := BinDir()
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, "bin"); dir != want {
		t.Fatalf("BinDir = %s, want %s", dir, want)
	}
	t.Setenv(EnvBinDir, "/nonexistent/statecraft-bin")
	if dir, _ := BinDir(); dir != "/nonexistent/statecraft-bin" {
		t.Fatalf("BinDir with %s set = %s", EnvBinDir, dir)
	}
	if _, err := CheckBinaries(""); err == nil || !strings.Contains(err.Error(), "/nonexistent/statecraft-bin/kube-apiserver") {
		t.Fatalf("CheckBinaries on a missing dir = %v", err)
	}
}

func TestStartInstallsCRDsAndWritesKubeconfig(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	dirs := []string{filepath.Join("..", "..", "adapters", "kube", "testdata", "crds")}
	start := time.Now()
	cp := StartForTest(t, Options{CRDDirs: dirs, KubeconfigPath: kubeconfig})
	t.Logf("control plane started in %v; CRDs %v", time.Since(start).Round(time.Millisecond), cp.CRDs)

	if !contains(cp.CRDs, "widgets.test.statecraft.dev") || !contains(cp.CRDs, "gadgets.test.statecraft.dev") {
		t.Fatalf("CRDs = %v", cp.CRDs)
	}
	st, err := os.Stat(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("kubeconfig mode %v, want 0600", st.Mode().Perm())
	}

	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Logf("no kubectl: %v; not checking the kubeconfig with it", err)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "get", "crd", "widgets.test.statecraft.dev", "-o", "name").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "customresourcedefinition.apiextensions.k8s.io/widgets.test.statecraft.dev" {
		t.Fatalf("kubectl get crd: %v: %s", err, out)
	}
	out, err = exec.CommandContext(ctx, kubectl, "--kubeconfig", kubeconfig, "auth", "can-i", "*", "*").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "yes" {
		t.Fatalf("kubectl auth can-i '*' '*' (admin): %v: %s", err, out)
	}

	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
		t.Errorf("kubeconfig still there after Stop: %v", err)
	}
	if err := cp.Stop(); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// TestSpecCRDsInstall installs every CRD of spec/crds into a real API server,
// which checks what a schema test cannot: CEL rule cost budgets, structural
// schema rules, defaults against the schema.
func TestSpecCRDsInstall(t *testing.T) {
	dir := filepath.Join("..", "..", "spec", "crds")
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skip("no spec/crds yet")
	}
	cp := StartForTest(t, Options{CRDDirs: []string{dir}})
	if len(cp.CRDs) == 0 {
		t.Skip("spec/crds holds no CRD yet")
	}
	t.Logf("installed %v", cp.CRDs)
}

func TestStartRejectsMissingCRDDir(t *testing.T) {
	SkipOrFail(t)
	_, err := Start(context.Background(), Options{CRDDirs: []string{filepath.Join(t.TempDir(), "absent")}})
	if err == nil || !strings.Contains(err.Error(), "absent") {
		t.Fatalf("Start with a missing CRD dir = %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
