package deploytest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"

	"github.com/statecraft/statecraft/internal/controlplane"
)

// The end-to-end tests of the manifests: the chart (and the kustomize
// manifests) rendered for a namespace other than statecraft-system, their
// objects applied to a real kube-apiserver, and the statecraft binary run
// with the container's args and env exactly as rendered, authenticated as
// the rendered ServiceAccount with a token from the TokenRequest API (in a
// kubeconfig, standing in for the token a pod would mount: outside a pod,
// client-go's in-cluster configuration cannot be used). No kubelet runs the
// pod; the test process is it.

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// statecraftBinary builds cmd/statecraft once per test run.
func statecraftBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "statecraft-deploytest-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "statecraft")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/statecraft")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// cluster is a control plane with the objects of one rendering applied.
type cluster struct {
	t      *testing.T
	cp     *controlplane.ControlPlane
	kc     *kubernetes.Clientset
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
	ctx    context.Context
}

func newCluster(t *testing.T) *cluster {
	t.Helper()
	cp := controlplane.StartForTest(t, controlplane.Options{CRDDirs: []string{filepath.Join(chartDir, "crds")}})
	disc := discovery.NewDiscoveryClientForConfigOrDie(cp.Config)
	return &cluster{
		t: t, cp: cp,
		kc:     kubernetes.NewForConfigOrDie(cp.Config),
		dyn:    dynamic.NewForConfigOrDie(cp.Config),
		mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		ctx:    context.Background(),
	}
}

func (c *cluster) apply(u *unstructured.Unstructured) {
	c.t.Helper()
	gvk := u.GroupVersionKind()
	m, err := c.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		c.t.Fatalf("%s: %v", key(u), err)
	}
	var ri dynamic.ResourceInterface = c.dyn.Resource(m.Resource)
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = c.dyn.Resource(m.Resource).Namespace(u.GetNamespace())
	}
	if _, err := ri.Apply(c.ctx, u.GetName(), u, metav1.ApplyOptions{FieldManager: "statecraft-deploytest", Force: true}); err != nil {
		c.t.Fatalf("apply %s: %v", key(u), err)
	}
}

func (c *cluster) applyYAML(doc string) {
	c.t.Helper()
	for _, u := range decode(c.t, "test", []byte(doc)) {
		c.apply(u)
	}
}

// kubeconfigFor writes a kubeconfig that authenticates as the ServiceAccount
// ns/name with a token from the TokenRequest API.
func (c *cluster) kubeconfigFor(ns, name string) string {
	c.t.Helper()
	tr, err := c.kc.CoreV1().ServiceAccounts(ns).CreateToken(c.ctx, name, &authenticationv1.TokenRequest{
		Spec: authenticationv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		c.t.Fatalf("TokenRequest for %s/%s: %v", ns, name, err)
	}
	path := filepath.Join(c.t.TempDir(), "kubeconfig")
	cfg := &rest.Config{Host: c.cp.Config.Host, BearerToken: tr.Status.Token, TLSClientConfig: rest.TLSClientConfig{CAData: c.cp.Config.CAData}}
	if err := controlplane.WriteKubeconfig(path, cfg, "system:serviceaccount:"+ns+":"+name); err != nil {
		c.t.Fatal(err)
	}
	return path
}

// replica is the binary run as one pod of the rendered Deployment.
type replica struct {
	name         string
	cmd          *exec.Cmd
	healthPort   int
	metricsPort  int
	livenessPath string
	readyPath    string
	logs         *lockedBuffer
	done         chan struct{}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// identity is the holder identity the replica writes into the Lease.
func (r *replica) identity() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s_%d", host, r.cmd.Process.Pid)
}

// deployment returns the one Deployment of a rendering and its container.
func deployment(t *testing.T, all objects) (*unstructured.Unstructured, map[string]any) {
	t.Helper()
	for _, u := range all.ofKind("Deployment") {
		cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
		if len(cs) != 1 {
			t.Fatalf("%s: %d containers", key(u), len(cs))
		}
		return u, cs[0].(map[string]any)
	}
	t.Fatalf("no Deployment among %v", all.keys())
	return nil, nil
}

// start runs the binary as a pod named podName of the rendered Deployment
// would run: the container's args after its entrypoint, its env (downward
// API fields resolved as the kubelet resolves them), and the ServiceAccount's
// credentials in $KUBECONFIG.
func start(t *testing.T, all objects, podName, kubeconfig string) *replica {
	t.Helper()
	d, c := deployment(t, all)
	args, _, _ := unstructured.NestedStringSlice(c, "args")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "KUBECONFIG=" + kubeconfig}
	envs, _, _ := unstructured.NestedSlice(c, "env")
	for _, e := range envs {
		m := e.(map[string]any)
		name := m["name"].(string)
		if v, ok := m["value"].(string); ok {
			env = append(env, name+"="+v)
			continue
		}
		path, _, _ := unstructured.NestedString(m, "valueFrom", "fieldRef", "fieldPath")
		switch path {
		case "metadata.namespace":
			env = append(env, name+"="+d.GetNamespace())
		case "metadata.name":
			env = append(env, name+"="+podName)
		default:
			t.Fatalf("env %s: valueFrom %v is not resolved by this test", name, m["valueFrom"])
		}
	}
	r := &replica{name: podName, logs: &lockedBuffer{}, done: make(chan struct{})}
	ports := map[string]int{}
	ps, _, _ := unstructured.NestedSlice(c, "ports")
	for _, p := range ps {
		m := p.(map[string]any)
		ports[m["name"].(string)] = int(m["containerPort"].(int64))
	}
	r.metricsPort = ports["metrics"]
	probePort := func(probe string) (string, int) {
		path, _, _ := unstructured.NestedString(c, probe, "httpGet", "path")
		port, _, _ := unstructured.NestedFieldNoCopy(c, probe, "httpGet", "port")
		switch p := port.(type) {
		case string:
			return path, ports[p]
		case int64:
			return path, int(p)
		}
		t.Fatalf("%s: port %v", probe, port)
		return "", 0
	}
	var lp, rp int
	r.livenessPath, lp = probePort("livenessProbe")
	r.readyPath, rp = probePort("readinessProbe")
	if lp != rp || lp == 0 || r.metricsPort == 0 {
		t.Fatalf("probe ports %d and %d, metrics port %d", lp, rp, r.metricsPort)
	}
	r.healthPort = lp
	r.cmd = exec.Command(statecraftBinary(t), args...)
	r.cmd.Env = env
	r.cmd.Stdout = r.logs
	r.cmd.Stderr = r.logs
	r.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { r.cmd.Wait(); close(r.done) }()
	t.Cleanup(func() {
		r.kill(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("%s (%v) said:\n%s", podName, args, r.logs.String())
		}
	})
	return r
}

func (r *replica) kill(sig syscall.Signal) {
	select {
	case <-r.done:
		return
	default:
	}
	r.cmd.Process.Signal(sig)
	select {
	case <-r.done:
	case <-time.After(15 * time.Second):
		r.cmd.Process.Kill()
		<-r.done
	}
}

func (r *replica) get(port int, path string) (int, string) {
	client := &http.Client{Timeout: 2 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d%s", port, path))
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func eventually(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	last := ""
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, d, true, func(context.Context) (bool, error) {
		ok, s := cond()
		last = s
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %v; last: %s", what, d, last)
	}
}

// freePorts returns n ports nothing listens on now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var out []int
	var lns []net.Listener
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		lns = append(lns, ln)
		out = append(out, ln.Addr().(*net.TCPAddr).Port)
	}
	for _, ln := range lns {
		ln.Close()
	}
	return out
}

// renderFor renders the chart as release ops in namespace ns.
func renderFor(t *testing.T, ns string, set map[string]any) objects {
	t.Helper()
	list, err := renderRelease(loadChart(t), "ops", ns, set)
	if err != nil {
		t.Fatal(err)
	}
	return index(t, "chart", list)
}

// metricValue is the sum of the samples of family name whose labels include
// match, from Prometheus text.
func metricValue(text, name string, match map[string]string) (float64, bool) {
	sum, found := 0.0, false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for k, v := range match {
			if !strings.Contains(line, k+`="`+v+`"`) {
				ok = false
			}
		}
		if !ok {
			continue
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			sum += v
			found = true
		}
	}
	return sum, found
}

// setupRelease applies the rendered objects (its namespace first) and the
// seed's demo target with a grant on it, and returns the ServiceAccount's
// kubeconfig.
func setupRelease(c *cluster, all objects, ns string) string {
	t := c.t
	c.applyYAML("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n")
	var saName string
	for _, u := range all {
		if u.GetKind() == "CustomResourceDefinition" {
			continue
		}
		c.apply(u)
		if u.GetKind() == "ServiceAccount" {
			saName = u.GetName()
		}
	}
	if saName == "" {
		t.Fatalf("no ServiceAccount rendered")
	}
	// The demo target and its grant, as README.md's "Deploying" shows for
	// targets beyond the seed's optional ones.
	c.applyYAML(fmt.Sprintf(`apiVersion: v1
kind: Namespace
metadata:
  name: patches-demo
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: patches-demo
data:
  a: "1"
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: statecraft-objectpatch-configmaps
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, patch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: statecraft-objectpatch-configmaps
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: statecraft-objectpatch-configmaps
subjects:
- kind: ServiceAccount
  name: %s
  namespace: %s
`, saName, ns))
	return c.kubeconfigFor(ns, saName)
}

const demoPatch = `apiVersion: rightsizing.kubex.ai/v1alpha1
kind: ObjectPatch
metadata:
  name: settings-patch
  namespace: patches-demo
spec:
  targetRef:
    apiVersion: v1
    kind: ConfigMap
    name: settings
  patch:
    metadata:
      labels:
        managed-by: statecraft
`

var opGVR = schema.GroupVersionResource{Group: "rightsizing.kubex.ai", Version: "v1alpha1", Resource: "objectpatches"}

// waitApplied waits for the demo ObjectPatch to be Applied and its target
// patched, and returns both.
func (c *cluster) waitApplied() (*unstructured.Unstructured, *corev1.ConfigMap) {
	c.t.Helper()
	var op *unstructured.Unstructured
	var cm *corev1.ConfigMap
	eventually(c.t, 90*time.Second, "the ObjectPatch converges", func() (bool, string) {
		var err error
		op, err = c.dyn.Resource(opGVR).Namespace("patches-demo").Get(c.ctx, "settings-patch", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		state, _, _ := unstructured.NestedString(op.Object, "status", "state")
		cm, err = c.kc.CoreV1().ConfigMaps("patches-demo").Get(c.ctx, "settings", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return state == "Applied" && cm.Labels["managed-by"] == "statecraft", fmt.Sprintf("state %q, labels %v", state, cm.Labels)
	})
	// Settled: the reconcile that applied may still be writing (its
	// status write lands after the state a read saw), and what a later
	// check compares with must be the last write. Two reads two seconds
	// apart with the same resourceVersions.
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); {
		time.Sleep(2 * time.Second)
		op2, err := c.dyn.Resource(opGVR).Namespace("patches-demo").Get(c.ctx, "settings-patch", metav1.GetOptions{})
		if err != nil {
			c.t.Fatal(err)
		}
		cm2, err := c.kc.CoreV1().ConfigMaps("patches-demo").Get(c.ctx, "settings", metav1.GetOptions{})
		if err != nil {
			c.t.Fatal(err)
		}
		if op2.GetResourceVersion() == op.GetResourceVersion() && cm2.ResourceVersion == cm.ResourceVersion {
			break
		}
		op, cm = op2, cm2
	}
	return op, cm
}

// checkEndpoints: the probes answer 200 on the probe port, /metrics on the
// metrics port carries the controller's and client-go's families.
func checkEndpoints(t *testing.T, r *replica) {
	t.Helper()
	for _, path := range []string{r.livenessPath, r.readyPath} {
		eventually(t, 60*time.Second, r.name+" "+path, func() (bool, string) {
			code, body := r.get(r.healthPort, path)
			return code == http.StatusOK, fmt.Sprintf("%d %s", code, body)
		})
	}
	var text string
	eventually(t, 60*time.Second, r.name+" /metrics with the work queue's and the REST client's families", func() (bool, string) {
		code, body := r.get(r.metricsPort, "/metrics")
		text = body
		_, q := metricValue(body, "workqueue_adds_total", map[string]string{"name": "statecraft"})
		_, rc := metricValue(body, "rest_client_requests_total", nil)
		return code == http.StatusOK && q && rc, fmt.Sprintf("%d; workqueue %v, rest client %v", code, q, rc)
	})
	for _, family := range []string{"go_goroutines", "process_cpu_seconds_total", "workqueue_depth", "rest_client_request_duration_seconds_count", "statecraft_queue_depth"} {
		if _, ok := metricValue(text, family, nil); !ok {
			t.Errorf("%s: /metrics has no %s", r.name, family)
		}
	}
}

// checkJSONLogs: with --log-format=json every line the replica wrote is a
// JSON object, client-go's (klog's) included.
func checkJSONLogs(t *testing.T, r *replica) {
	t.Helper()
	klogLines := 0
	for _, line := range strings.Split(strings.TrimSpace(r.logs.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Errorf("%s: a line that is not JSON: %q", r.name, line)
			continue
		}
		if msg, _ := m["msg"].(string); strings.Contains(msg, "lease") && !strings.HasPrefix(msg, "leading") {
			klogLines++ // leaderelection's "attempting to acquire leader lease..." is klog's
		}
	}
	if klogLines == 0 {
		t.Errorf("%s: no line of client-go's leader election among its logs:\n%s", r.name, r.logs.String())
	}
}

// TestChartRunsInAnotherNamespace: the chart rendered for namespace
// ops-system with two replicas. The first replica leads (the Lease is in
// ops-system), answers its probes and serves metrics, and converges an
// ObjectPatch; the second stands by (ready, writing nothing). Stopped with
// SIGTERM, the leader hands over within a retry period; a third replica
// then stands by, and the new leader, killed with SIGKILL, hands over within
// the lease duration (and two retries). After each handover the new leader
// reconciles the ObjectPatch and writes nothing (resourceVersions,
// managedFields and Events unchanged; no write request in its metrics).
func TestChartRunsInAnotherNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	const ns = "ops-system"
	c := newCluster(t)
	ports := freePorts(t, 4)
	set := func(metrics, health int) map[string]any {
		return map[string]any{"replicas": 2, "extraArgs": []any{"--log-format=json"}, "ports.metrics": metrics, "ports.health": health}
	}
	// Two renderings that differ only in the ports, so that two replicas
	// can listen on one host; each replica runs its rendering exactly.
	renderA, renderB := renderFor(t, ns, set(ports[0], ports[1])), renderFor(t, ns, set(ports[2], ports[3]))
	kubeconfig := setupRelease(c, renderA, ns)

	a := start(t, renderA, "ops-statecraft-a", kubeconfig)
	leases := c.kc.CoordinationV1().Leases(ns)
	eventually(t, 60*time.Second, "replica a holds the Lease in "+ns, func() (bool, string) {
		l, err := leases.Get(c.ctx, "statecraft", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return ptr.Deref(l.Spec.HolderIdentity, "") == a.identity(), ptr.Deref(l.Spec.HolderIdentity, "")
	})
	if _, err := c.kc.CoordinationV1().Leases("statecraft-system").Get(c.ctx, "statecraft", metav1.GetOptions{}); err == nil {
		t.Error("a Lease in statecraft-system too")
	}
	checkEndpoints(t, a)

	b := start(t, renderB, "ops-statecraft-b", kubeconfig)
	eventually(t, 30*time.Second, "replica b stands by, ready", func() (bool, string) {
		code, body := b.get(b.healthPort, b.readyPath)
		return code == http.StatusOK && strings.Contains(body, "standby"), fmt.Sprintf("%d %s", code, body)
	})

	c.applyYAML(demoPatch)
	op, cm := c.waitApplied()
	checkJSONLogs(t, a)

	// What a second writer would change.
	events := func() map[string]int32 {
		evs, err := c.kc.CoreV1().Events("patches-demo").List(c.ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]int32{}
		for _, e := range evs.Items {
			if e.InvolvedObject.Name == "settings-patch" {
				out[e.Reason] += e.Count
			}
		}
		return out
	}
	eventually(t, 30*time.Second, "the Applied Event", func() (bool, string) {
		e := events()
		return e["Applied"] == 1, fmt.Sprint(e)
	})
	before := events()
	managers := func(cm *corev1.ConfigMap) []string {
		var out []string
		for _, f := range cm.ManagedFields {
			out = append(out, f.Manager+"/"+string(f.Operation))
		}
		return out
	}
	cmManagers := managers(cm)
	if _, n := metricValue(mustMetrics(t, b), "statecraft_reconciles_total", nil); n {
		t.Errorf("replica b reconciled while standing by")
	}

	// Two handovers: a SIGTERM (what the kubelet sends first: the leader
	// releases the Lease as it stops) and a SIGKILL (a crash: the Lease
	// runs out). After each, the new leader reconciles the ObjectPatch and
	// writes nothing: it is Applied already.
	const leaseDuration, retryPeriod, jitter = 15 * time.Second, 2 * time.Second, 1.2
	leader, standby, spare := a, b, renderA
	for i, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL} {
		// Client-go's candidates retry every retryPeriod (jittered up to
		// 1.2 times) and count a Lease they saw renewed as held for
		// leaseDuration from when they saw it: after a crash the standby
		// takes over at most leaseDuration and two jittered retries later.
		bound := time.Duration(jitter*float64(retryPeriod)) + 5*time.Second // a retry, and slack for a loaded machine
		if sig == syscall.SIGKILL {
			bound = leaseDuration + 2*time.Duration(jitter*float64(retryPeriod)) + 5*time.Second // and the same slack
		}
		killed := time.Now()
		leader.kill(sig)
		eventually(t, bound+10*time.Second, fmt.Sprintf("%s takes the Lease over after %v of %s", standby.name, sig, leader.name), func() (bool, string) {
			l, err := leases.Get(c.ctx, "statecraft", metav1.GetOptions{})
			if err != nil {
				return false, err.Error()
			}
			return ptr.Deref(l.Spec.HolderIdentity, "") == standby.identity(), ptr.Deref(l.Spec.HolderIdentity, "")
		})
		handover := time.Since(killed)
		t.Logf("handover %v after %v (bound %v: lease duration %v, retry period %v)", handover.Round(100*time.Millisecond), sig, bound, leaseDuration, retryPeriod)
		if handover > bound {
			t.Errorf("handover after %v took %v, more than %v", sig, handover, bound)
		}
		checkEndpoints(t, standby)
		eventually(t, 60*time.Second, standby.name+" reconciled the ObjectPatch", func() (bool, string) {
			v, _ := metricValue(mustMetrics(t, standby), "statecraft_reconciles_total", map[string]string{"machine": "objectpatch", "result": "ok"})
			return v >= 1, fmt.Sprint(v)
		})
		// Nothing was written twice.
		op2, err := c.dyn.Resource(opGVR).Namespace("patches-demo").Get(c.ctx, "settings-patch", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm2, err := c.kc.CoreV1().ConfigMaps("patches-demo").Get(c.ctx, "settings", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if op2.GetResourceVersion() != op.GetResourceVersion() {
			t.Errorf("the ObjectPatch was written again after the handover: resourceVersion %s, was %s; status %v", op2.GetResourceVersion(), op.GetResourceVersion(), op2.Object["status"])
		}
		if cm2.ResourceVersion != cm.ResourceVersion || fmt.Sprint(managers(cm2)) != fmt.Sprint(cmManagers) {
			t.Errorf("the target was written again: resourceVersion %s (was %s), managers %v (were %v)", cm2.ResourceVersion, cm.ResourceVersion, managers(cm2), cmManagers)
		}
		if after := events(); fmt.Sprint(after) != fmt.Sprint(before) {
			t.Errorf("Events changed after the handover: %v, were %v", after, before)
		}
		for _, verb := range []string{"patch", "patch/status", "update", "create"} {
			if v, _ := metricValue(mustMetrics(t, standby), "statecraft_api_requests_total", map[string]string{"verb": verb}); v != 0 {
				t.Errorf("%s sent %v %s requests", standby.name, v, verb)
			}
		}
		checkJSONLogs(t, standby)
		if i == 0 {
			// A new standby for the next handover, on the ports the first
			// leader left.
			leader, standby = standby, start(t, spare, "ops-statecraft-c", kubeconfig)
			eventually(t, 30*time.Second, standby.name+" stands by", func() (bool, string) {
				code, body := standby.get(standby.healthPort, standby.readyPath)
				return code == http.StatusOK && strings.Contains(body, "standby"), fmt.Sprintf("%d %s", code, body)
			})
		}
	}
}

func mustMetrics(t *testing.T, r *replica) string {
	t.Helper()
	code, body := r.get(r.metricsPort, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("%s /metrics: %d %s", r.name, code, body)
	}
	return body
}

// TestKustomizeRunsInAnotherNamespace: examples/deploy through an overlay
// that moves it to namespace kust-system (kustomize's namespace
// transformer, the way a kustomize user does it) and sets free ports, built
// with kubectl's kustomize; one replica, run as rendered, leads in
// kust-system, answers its probes, serves metrics and converges an
// ObjectPatch.
func TestKustomizeRunsInAnotherNamespace(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		if controlplane.Required() {
			t.Fatalf("no kubectl: %v", err)
		}
		t.Skip("no kubectl")
	}
	const ns = "kust-system"
	ports := freePorts(t, 2)
	overlay := t.TempDir()
	base, err := filepath.Abs(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(overlay, base)
	if err != nil {
		t.Fatal(err)
	}
	kustomization := fmt.Sprintf(`apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
namespace: %s
resources:
  - %s
patches:
  - target: {kind: Deployment, name: statecraft}
    patch: |
      - {op: replace, path: /spec/template/spec/containers/0/args/2, value: "--metrics-addr=:%d"}
      - {op: replace, path: /spec/template/spec/containers/0/args/3, value: "--health-addr=:%d"}
      - {op: replace, path: /spec/template/spec/containers/0/ports/0/containerPort, value: %d}
      - {op: replace, path: /spec/template/spec/containers/0/ports/1/containerPort, value: %d}
`, ns, rel, ports[0], ports[1], ports[0], ports[1])
	if err := os.WriteFile(filepath.Join(overlay, "kustomization.yaml"), []byte(kustomization), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(kubectl, "kustomize", "--load-restrictor=LoadRestrictionsNone", overlay).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl kustomize: %v: %s", err, out)
	}
	all := index(t, "kustomize", decode(t, "kustomize", out))
	for k, u := range all {
		if u.GetNamespace() == namespace || u.GetKind() == "Namespace" && u.GetName() == namespace {
			t.Errorf("%s is still in %s", k, namespace)
		}
	}
	c := newCluster(t)
	kubeconfig := setupRelease(c, all, ns)

	r := start(t, all, "statecraft-0", kubeconfig)
	eventually(t, 60*time.Second, "the replica holds the Lease in "+ns, func() (bool, string) {
		l, err := c.kc.CoordinationV1().Leases(ns).Get(c.ctx, "statecraft", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		return ptr.Deref(l.Spec.HolderIdentity, "") == r.identity(), ptr.Deref(l.Spec.HolderIdentity, "")
	})
	checkEndpoints(t, r)
	c.applyYAML(demoPatch)
	c.waitApplied()
}
