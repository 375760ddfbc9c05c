package controlplane

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// poll waits up to d for cond, failing the test with what it last said.
func poll(t *testing.T, d time.Duration, what string, cond func(ctx context.Context) (bool, string)) {
	t.Helper()
	last := ""
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	err := wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		ok, s := cond(ctx)
		last = s
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %v; last: %s", what, d, last)
	}
}

// TestControllersRunWorkloads starts a control plane with its controllers
// and shows each at work: the scheduler binds a Deployment's pod to the kwok
// node, kwok makes it Running and Ready, the Deployment becomes Available;
// the garbage collector deletes a dependent with its owner; the namespace
// controller finishes a namespace's deletion.
func TestControllersRunWorkloads(t *testing.T) {
	start := time.Now()
	cp := StartForTest(t, Options{Controllers: true})
	t.Logf("control plane with controllers started in %v", time.Since(start).Round(time.Millisecond))
	kc := kubernetes.NewForConfigOrDie(cp.Config)
	ctx := context.Background()

	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "work"}}
	if _, err := kc.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	dep := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "work"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
			},
		},
	}
	if _, err := kc.AppsV1().Deployments("work").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, 90*time.Second, "Deployment web Available with 2 ready replicas", func(ctx context.Context) (bool, string) {
		d, err := kc.AppsV1().Deployments("work").Get(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return false, err.Error()
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue && d.Status.ReadyReplicas == 2 {
				return true, ""
			}
		}
		return false, fmt.Sprintf("ready %d, conditions %v", d.Status.ReadyReplicas, d.Status.Conditions)
	})
	pods, err := kc.CoreV1().Pods("work").List(ctx, metav1.ListOptions{LabelSelector: "app=web"})
	if err != nil || len(pods.Items) != 2 {
		t.Fatalf("pods: %v %v", pods, err)
	}
	for _, p := range pods.Items {
		if p.Spec.NodeName != NodeName || p.Status.Phase != corev1.PodRunning {
			t.Errorf("pod %s on %q in phase %s, want Running on %s", p.Name, p.Spec.NodeName, p.Status.Phase, NodeName)
		}
	}

	// Garbage collection: a ConfigMap owned by another goes with it.
	owner, err := kc.CoreV1().ConfigMaps("work").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dependent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dependent", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID,
	}}}}
	if _, err := kc.CoreV1().ConfigMaps("work").Create(ctx, dependent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := kc.CoreV1().ConfigMaps("work").Delete(ctx, "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, 60*time.Second, "the garbage collector deletes the dependent", func(ctx context.Context) (bool, string) {
		_, err := kc.CoreV1().ConfigMaps("work").Get(ctx, "dependent", metav1.GetOptions{})
		return apierrors.IsNotFound(err), fmt.Sprint(err)
	})

	// Namespace deletion completes (its pods and Deployment go first).
	if err := kc.CoreV1().Namespaces().Delete(ctx, "work", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	poll(t, 90*time.Second, "namespace work is deleted", func(ctx context.Context) (bool, string) {
		n, err := kc.CoreV1().Namespaces().Get(ctx, "work", metav1.GetOptions{})
		if err != nil {
			return apierrors.IsNotFound(err), err.Error()
		}
		return false, fmt.Sprintf("phase %s, conditions %v", n.Status.Phase, n.Status.Conditions)
	})
}

// TestDataDirKeepsObjects stops a control plane and starts another on the
// same DataDir: the objects are still there. A CRD file name that is a
// path is refused.
func TestDataDirKeepsObjects(t *testing.T) {
	SkipOrFail(t)
	if _, err := Start(context.Background(), Options{CRDFiles: map[string][]byte{"../x.yaml": nil}}); err == nil || !strings.Contains(err.Error(), `CRD file name "../x.yaml"`) {
		t.Errorf("a CRD file name with a path: %v", err)
	}
	data := t.TempDir()
	cp, err := Start(context.Background(), Options{DataDir: data})
	if err != nil {
		t.Fatal(err)
	}
	kc := kubernetes.NewForConfigOrDie(cp.Config)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	if _, err := kc.CoreV1().ConfigMaps("default").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(data, "etcd")); err != nil {
		t.Fatalf("etcd data gone after Stop: %v", err)
	}
	// The second start also installs a CRD given as bytes (as statecraft dev
	// does outside the repository, from the CRDs embedded in the binary).
	crd, err := os.ReadFile(filepath.Join("..", "..", "adapters", "kube", "testdata", "crds", "widgets.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cp = StartForTest(t, Options{DataDir: data, CRDFiles: map[string][]byte{"widgets.yaml": crd}})
	if !contains(cp.CRDs, "widgets.test.statecraft.dev") {
		t.Errorf("CRDFiles not installed: %v", cp.CRDs)
	}
	kc = kubernetes.NewForConfigOrDie(cp.Config)
	got, err := kc.CoreV1().ConfigMaps("default").Get(context.Background(), "kept", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v" {
		t.Fatalf("after a restart on the same data dir: %v %v", got, err)
	}
}

// The helper process of TestSIGKILLLeavesNothing: it starts a control plane
// (with its controllers), prints its folder and the pids of its processes,
// and waits to be killed.
func TestMain(m *testing.M) {
	if os.Getenv("STATECRAFT_CONTROLPLANE_HELPER") == "1" {
		cp, err := Start(context.Background(), Options{Controllers: true})
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println("dir", cp.workDir)
		// etcd, kube-apiserver and the controllers: every child whose
		// command line names the folder.
		for _, pid := range childrenIn(cp.workDir) {
			fmt.Println("pid", pid)
		}
		fmt.Println("ready")
		select {}
	}
	os.Exit(m.Run())
}

// TestSIGKILLLeavesNothing kills, with SIGKILL, a process running a control
// plane with its controllers: etcd, kube-apiserver, the controllers and the
// temporary folder all go (the controllers by their parent-death signal,
// the rest by the janitor).
func TestSIGKILLLeavesNothing(t *testing.T) {
	SkipOrFailControllers(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "STATECRAFT_CONTROLPLANE_HELPER=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var dir string
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "dir":
			dir = f[1]
		case "pid":
			n, _ := strconv.Atoi(f[1])
			pids = append(pids, n)
		case "error":
			t.Fatalf("helper: %s", sc.Text())
		}
		if f[0] == "ready" {
			break
		}
	}
	if dir == "" || len(pids) != 5 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper said dir %q and pids %v; want a folder and 5 processes (etcd, kube-apiserver, three controllers)", dir, pids)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	poll(t, 20*time.Second, "every process gone and the folder removed", func(context.Context) (bool, string) {
		var alive []string
		for _, p := range pids {
			if running(p) {
				alive = append(alive, strconv.Itoa(p))
			}
		}
		_, err := os.Stat(dir)
		return len(alive) == 0 && os.IsNotExist(err), fmt.Sprintf("alive %v, folder: %v", alive, err)
	})
}

// running reports whether pid is a live process (not a zombie).
func running(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && len(s) > i+2 && s[i+2] != 'Z'
}
