package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/statecraft/statecraft/internal/controlplane"
)

// writeKubeconfig writes a kubeconfig with one context per name, each
// reaching https://NAME.example:443, the first one current.
func writeKubeconfig(t *testing.T, path string, names ...string) {
	t.Helper()
	kc := clientcmdapi.NewConfig()
	for _, n := range names {
		kc.Clusters[n] = &clientcmdapi.Cluster{Server: "https://" + n + ".example:443"}
		kc.AuthInfos[n] = &clientcmdapi.AuthInfo{Token: n + "-token"}
		kc.Contexts[n] = &clientcmdapi.Context{Cluster: n, AuthInfo: n}
	}
	kc.CurrentContext = names[0]
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
}

// isolate leaves the test with no kubeconfig anywhere and not in a pod.
func isolate(t *testing.T) string {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("KUBECONFIG", "")
	os.Unsetenv("KUBECONFIG")
	t.Setenv("KUBERNETES_SERVICE_HOST", "")
	os.Unsetenv("KUBERNETES_SERVICE_HOST")
	// client-go reads $HOME once, when it starts.
	saved := clientcmd.RecommendedHomeFile
	clientcmd.RecommendedHomeFile = filepath.Join(home, ".kube", "config")
	t.Cleanup(func() { clientcmd.RecommendedHomeFile = saved })
	return home
}

// TestKubeconfigLoadingRules: the files and context are chosen as kubectl
// chooses them.
func TestKubeconfigLoadingRules(t *testing.T) {
	home := isolate(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeKubeconfig(t, a, "alpha")
	writeKubeconfig(t, b, "beta", "gamma")
	host := func(k kubeFlags) string {
		t.Helper()
		cfg, err := k.restConfig()
		if err != nil {
			t.Fatalf("%+v: %v", k, err)
		}
		return cfg.Host
	}

	// A $KUBECONFIG list is merged; the first file's current-context wins.
	t.Setenv("KUBECONFIG", a+string(os.PathListSeparator)+b)
	if h := host(kubeFlags{}); h != "https://alpha.example:443" {
		t.Errorf("KUBECONFIG=a:b: %s", h)
	}
	// --context picks a context of any file of the list.
	if h := host(kubeFlags{context: "gamma"}); h != "https://gamma.example:443" {
		t.Errorf("KUBECONFIG=a:b --context gamma: %s", h)
	}
	if got := (&kubeFlags{context: "gamma"}).contextName(); got != "gamma" {
		t.Errorf("contextName = %q", got)
	}
	// --kubeconfig wins over $KUBECONFIG.
	if h := host(kubeFlags{kubeconfig: b}); h != "https://beta.example:443" {
		t.Errorf("--kubeconfig b: %s", h)
	}
	// An unknown context is a clear error.
	if _, err := (&kubeFlags{context: "delta"}).restConfig(); err == nil || !strings.Contains(err.Error(), `context "delta"`) {
		t.Errorf("--context delta: %v", err)
	}
	// Without $KUBECONFIG: ~/.kube/config.
	os.Unsetenv("KUBECONFIG")
	writeKubeconfig(t, filepath.Join(home, ".kube", "config"), "homeconfig")
	if h := host(kubeFlags{}); h != "https://homeconfig.example:443" {
		t.Errorf("~/.kube/config: %s", h)
	}
}

// TestNoConfiguration: nothing to load is one message saying what was
// looked for, not client-go's about in-cluster variables.
func TestNoConfiguration(t *testing.T) {
	isolate(t)
	code, _, errOut := run("run")
	if code != 2 || !strings.Contains(errOut, "no Kubernetes configuration found") || !strings.Contains(errOut, "~/.kube/config") || strings.Contains(errOut, "KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined") {
		t.Errorf("run without any configuration: exit %d, %q", code, errOut)
	}
	// In a pod (the variables set) without its token, client-go's own
	// error says which file is missing.
	t.Setenv("KUBERNETES_SERVICE_HOST", "10.0.0.1")
	t.Setenv("KUBERNETES_SERVICE_PORT", "443")
	if _, err := (&kubeFlags{}).restConfig(); err == nil || !strings.Contains(err.Error(), "in-cluster configuration is unusable") || !strings.Contains(err.Error(), "serviceaccount/token") {
		t.Errorf("in-cluster without a token: %v", err)
	}
}

// TestUnreachableServer: one message naming the server, nothing about CRDs.
func TestUnreachableServer(t *testing.T) {
	isolate(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := controlplane.WriteKubeconfig(path, &rest.Config{Host: "https://" + addr, BearerToken: "x", TLSClientConfig: rest.TLSClientConfig{Insecure: true}}, "someone"); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"run", "plan"} {
		code, _, errOut := run(cmd, "--kubeconfig", path)
		if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "cannot reach the API server at https://"+addr+` (context "statecraft")`) ||
			!strings.Contains(errOut, "connection refused") || strings.Contains(errOut, "CRD") {
			t.Errorf("%s against a closed port: exit %d, %q", cmd, code, errOut)
		}
	}
}

var (
	bareOnce sync.Once
	bare     *controlplane.ControlPlane
	bareErr  error
)

// bareControlPlane is a control plane without CRDs, shared by the tests
// below and stopped by TestMain's caller (the process exit; its janitor
// cleans up).
func bareControlPlane(t *testing.T) *controlplane.ControlPlane {
	t.Helper()
	controlplane.SkipOrFail(t)
	bareOnce.Do(func() {
		bare, bareErr = controlplane.Start(t.Context(), controlplane.Options{})
	})
	if bareErr != nil {
		t.Fatal(bareErr)
	}
	return bare
}

// TestRefusedCredentials: a token the server does not know is named as such.
func TestRefusedCredentials(t *testing.T) {
	isolate(t)
	cp := bareControlPlane(t)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	cfg := &rest.Config{Host: cp.Config.Host, BearerToken: "not-a-token", TLSClientConfig: rest.TLSClientConfig{CAData: cp.Config.CAData}}
	if err := controlplane.WriteKubeconfig(path, cfg, "stranger"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run("plan", "--kubeconfig", path)
	if code != 2 || !strings.Contains(errOut, "the API server at "+cp.Config.Host+` refused the credentials (context "statecraft") (401 Unauthorized)`) || strings.Contains(errOut, "CRD") {
		t.Errorf("plan with an unknown token: exit %d, %q", code, errOut)
	}
	// A CA that did not sign the server's certificate is a trust problem.
	other := &rest.Config{Host: cp.Config.Host, BearerToken: "x"} // no CA: the system's roots
	otherPath := filepath.Join(t.TempDir(), "kubeconfig")
	if err := controlplane.WriteKubeconfig(otherPath, other, "stranger"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = run("plan", "--kubeconfig", otherPath)
	if code != 2 || !strings.Contains(errOut, "cannot trust the API server at "+cp.Config.Host) {
		t.Errorf("plan without the cluster's CA: exit %d, %q", code, errOut)
	}
}

// TestMissingCRDs: a server that serves none of the shipped policies' kinds
// is one message listing them, not one line per machine.
func TestMissingCRDs(t *testing.T) {
	isolate(t)
	cp := bareControlPlane(t)
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := controlplane.WriteKubeconfig(path, cp.Config, "admin"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := run("plan", "--kubeconfig", path)
	if code != 2 || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "the API server at "+cp.Config.Host+" serves none of the kinds the shipped policies drive (") ||
		!strings.Contains(errOut, "ObjectPatch (rightsizing.kubex.ai/v1alpha1)") || !strings.Contains(errOut, "kubectl apply --server-side -f spec/crds") {
		t.Errorf("plan on a server without CRDs: exit %d, %q", code, errOut)
	}
	// Explicit rules whose kind is not served name it.
	code, _, errOut = run("plan", "--kubeconfig", path, "--rules", "objectpatch")
	if code != 2 || !strings.Contains(errOut, "machine objectpatch drives rightsizing.kubex.ai/v1alpha1 ObjectPatch, which the API server at "+cp.Config.Host+" does not serve: install its CRD") {
		t.Errorf("plan --rules objectpatch without its CRD: exit %d, %q", code, errOut)
	}
}

// TestLeaseNamespace: the flag, else $POD_NAMESPACE, else (outside a pod)
// statecraft-system.
func TestLeaseNamespace(t *testing.T) {
	t.Setenv("POD_NAMESPACE", "ops-system")
	if got := leaseNamespace(""); got != "ops-system" {
		t.Errorf("with POD_NAMESPACE: %q", got)
	}
	if got := leaseNamespace("elsewhere"); got != "elsewhere" {
		t.Errorf("the flag over POD_NAMESPACE: %q", got)
	}
	os.Unsetenv("POD_NAMESPACE")
	if _, err := os.Stat("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		t.Skip("running in a pod")
	}
	if got := leaseNamespace(""); got != "statecraft-system" {
		t.Errorf("neither: %q", got)
	}
}
