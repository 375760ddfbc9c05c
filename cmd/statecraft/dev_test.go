package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/statecraft/statecraft/internal/controlplane"
)

// TestMain removes the binary builtBinary made.
func TestMain(m *testing.M) {
	code := m.Run()
	if devBin != "" {
		os.RemoveAll(filepath.Dir(devBin))
	}
	os.Exit(code)
}

var (
	devBinOnce sync.Once
	devBin     string
	devBinErr  error
)

func builtBinary(t *testing.T) string {
	t.Helper()
	devBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "statecraft-devtest-")
		if err != nil {
			devBinErr = err
			return
		}
		devBin = filepath.Join(dir, "statecraft")
		if out, err := exec.Command("go", "build", "-o", devBin, ".").CombinedOutput(); err != nil {
			devBinErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	if devBinErr != nil {
		t.Fatal(devBinErr)
	}
	return devBin
}

// descendants returns the live processes below pid, by walking /proc.
func descendants(pid int) []int {
	parent := map[int]int{}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[0] != "Z" {
			parent[p], _ = strconv.Atoi(f[1])
		}
	}
	var out []int
	var walk func(int)
	walk = func(p int) {
		for c, pp := range parent {
			if pp == p {
				out = append(out, c)
				walk(c)
			}
		}
	}
	walk(pid)
	return out
}

func alive(pid int) bool {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(stat)
	i := strings.LastIndexByte(s, ')')
	return len(s) > i+2 && s[i+2] != 'Z'
}

// devRun is one `statecraft dev` process.
type devRun struct {
	cmd      *exec.Cmd
	children []int
	tempDirs []string
}

// startDev runs `statecraft dev` and waits until it says the cluster runs.
func startDev(t *testing.T, kubeconfig string, args ...string) *devRun {
	t.Helper()
	cmd := exec.Command(builtBinary(t), append([]string{"dev", "--kubeconfig-out", kubeconfig}, args...)...)
	cmd.Env = append(os.Environ(), "STATECRAFT_BIN="+mustBinDir(t))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ready := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(out)
		ok := false
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "Press Ctrl-C") && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			cmd.Wait()
			t.Fatalf("statecraft dev ended before it was ready: %s", stderr.String())
		}
	case <-time.After(2 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("statecraft dev not ready in 2 minutes: %s", stderr.String())
	}
	d := &devRun{cmd: cmd, children: descendants(cmd.Process.Pid)}
	for _, c := range d.children {
		cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(c) + "/cmdline")
		for _, arg := range strings.Split(string(cmdline), "\x00") {
			if i := strings.Index(arg, "/statecraft-controlplane-"); i >= 0 {
				dir := arg[strings.LastIndex(arg[:i+1], "=")+1:]
				rest := arg[i+1:]
				if j := strings.IndexByte(rest, '/'); j >= 0 {
					dir = dir[:len(dir)-len(rest)+j]
				}
				d.tempDirs = append(d.tempDirs, dir)
			}
		}
	}
	return d
}

func mustBinDir(t *testing.T) string {
	dir, err := controlplane.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// gone waits until every child of the run is gone and its temporary folders
// are removed.
func (d *devRun) gone(t *testing.T, after string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		for _, c := range d.children {
			if alive(c) {
				return false, nil
			}
		}
		for _, dir := range d.tempDirs {
			if _, err := os.Stat(dir); err == nil {
				return false, nil
			}
		}
		return true, nil
	})
	if err != nil {
		var left []string
		for _, c := range d.children {
			if alive(c) {
				cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(c) + "/cmdline")
				left = append(left, strconv.Itoa(c)+" "+strings.ReplaceAll(string(cmdline), "\x00", " ")[:60])
			}
		}
		t.Fatalf("after %s: still running %v; folders %v", after, left, d.tempDirs)
	}
}

// TestDevStopsEverything: `statecraft dev` with its controllers, stopped by
// SIGINT, then by SIGTERM, then killed with SIGKILL: each time every process
// it started ends and its temporary folders go. With --data-dir, an object
// created before a stop is there after the next start.
func TestDevStopsEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("starts local clusters")
	}
	controlplane.SkipOrFailControllers(t)
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	data := t.TempDir()
	client := func() *kubernetes.Clientset {
		cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
		if err != nil {
			t.Fatal(err)
		}
		return kubernetes.NewForConfigOrDie(cfg)
	}
	ctx := context.Background()

	for i, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGKILL} {
		d := startDev(t, kubeconfig, "--data-dir", data)
		// etcd, kube-apiserver, the three controllers and the janitor.
		if len(d.children) < 6 || len(d.tempDirs) == 0 {
			d.cmd.Process.Kill()
			t.Fatalf("dev runs %v (folders %v); want etcd, kube-apiserver, three controllers and the janitor", d.children, d.tempDirs)
		}
		kc := client()
		if i == 0 {
			if _, err := kc.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		} else if cm, err := kc.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{}); err != nil || cm.Data["k"] != "v" {
			t.Errorf("start %d on the same --data-dir: the ConfigMap is gone: %v", i+1, err)
		}
		if err := d.cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := d.cmd.Wait()
		switch sig {
		case syscall.SIGKILL:
			if _, err := os.Stat(kubeconfig); err != nil {
				t.Logf("kubeconfig after SIGKILL: %v", err)
			}
		default:
			if err != nil {
				t.Errorf("statecraft dev after %v: %v, want exit 0", sig, err)
			}
			if _, err := os.Stat(kubeconfig); !os.IsNotExist(err) {
				t.Errorf("kubeconfig left after %v: %v", sig, err)
			}
		}
		d.gone(t, sig.String())
		if _, err := os.Stat(filepath.Join(data, "etcd")); err != nil {
			t.Errorf("--data-dir lost etcd's data after %v: %v", sig, err)
		}
	}
}

// TestMakeRunCtrlC: `make run`, interrupted as a terminal's Ctrl-C does (a
// SIGINT to make's whole process group), stops the cluster and ends with no
// make error line: statecraft exits 0, and make, which re-raises the SIGINT
// it got once its recipe is over, ends by that signal as an interrupted
// command should (a shell prints nothing for it).
func TestMakeRunCtrlC(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a local cluster")
	}
	controlplane.SkipOrFailControllers(t)
	mk, err := exec.LookPath("make")
	if err != nil {
		t.Skip("no make")
	}
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	// make run uses the repository's bin/ (not $STATECRAFT_BIN): skip rather
	// than build the cluster there for minutes.
	if _, err := controlplane.CheckControllerBinaries(filepath.Join(root, "bin")); err != nil {
		if controlplane.Required() && os.Getenv(controlplane.EnvBinDir) == "" {
			t.Fatal(err)
		}
		t.Skipf("make run would build the cluster into %s/bin first: %v", root, err)
	}
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	cmd := exec.Command(mk, "-C", root, "run", "DEV_FLAGS=--kubeconfig-out="+kubeconfig)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // a foreground job of its own
	var out strings.Builder
	pr, pw, _ := os.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pw.Close()
	ready := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		once := sync.Once{}
		for sc.Scan() {
			out.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "Press Ctrl-C") {
				once.Do(func() { close(ready) })
			}
		}
	}()
	select {
	case <-ready:
	case <-done:
		cmd.Wait()
		t.Fatalf("make run ended before the cluster was ready:\n%s", out.String())
	case <-time.After(5 * time.Minute):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		t.Fatalf("make run not ready in 5 minutes:\n%s", out.String())
	}
	children := descendants(cmd.Process.Pid)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err = cmd.Wait()
	<-done
	interrupted := false
	if ee, ok := err.(*exec.ExitError); ok {
		ws, _ := ee.Sys().(syscall.WaitStatus)
		interrupted = ws.Signaled() && ws.Signal() == syscall.SIGINT
	}
	if err != nil && !interrupted || strings.Contains(out.String(), "make: ***") || strings.Contains(out.String(), "statecraft: ") {
		t.Errorf("make run after Ctrl-C: %v\n%s", err, out.String())
	}
	d := &devRun{children: children}
	d.gone(t, "Ctrl-C of make run")
}
