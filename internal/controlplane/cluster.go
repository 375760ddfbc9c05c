package controlplane

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ControllerBinaries are what Options.Controllers needs besides Binaries:
// built by `make cluster` (hack/controlplane.mk).
var ControllerBinaries = []string{"kube-controller-manager", "kube-scheduler", "kwok", "kwok-stages.yaml"}

// NodeName is the fake node kwok manages when Options.Controllers is set.
const NodeName = "kwok-node-0"

// kwokAnnotation marks the nodes kwok manages (and only those: a test may
// create other nodes of its own).
const kwokAnnotation = "kwok.x-k8s.io/node"

// child is one process the control plane started itself (as opposed to
// etcd and kube-apiserver, which envtest starts).
type child struct {
	name string
	cmd  *exec.Cmd
	log  string // its output, when not attached
	done chan struct{}
	err  error // set before done is closed
}

// startChild starts bin with args. Its output goes to logFile, or to this
// process's when attach is set. It runs in a process group of its own and,
// on Linux, is killed if this process dies first (sysProcAttr).
func startChild(name, bin string, args []string, logFile string, attach bool) (*child, error) {
	c := &child{name: name, done: make(chan struct{})}
	cmd := exec.Command(bin, args...)
	cmd.SysProcAttr = sysProcAttr()
	if attach {
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	} else {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		cmd.Stdout, cmd.Stderr = f, f
		c.log = logFile
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("controlplane: start %s: %w", name, err)
	}
	c.cmd = cmd
	go func() {
		c.err = cmd.Wait()
		close(c.done)
	}()
	return c, nil
}

func (c *child) exited() bool {
	select {
	case <-c.done:
		return true
	default:
		return false
	}
}

// failure describes a child that exited, with the end of its log.
func (c *child) failure() error {
	msg := fmt.Sprintf("controlplane: %s exited: %v", c.name, c.err)
	if c.log != "" {
		if data, err := os.ReadFile(c.log); err == nil {
			lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
			if len(lines) > 15 {
				lines = lines[len(lines)-15:]
			}
			msg += "; the end of " + c.log + ":\n" + strings.Join(lines, "\n")
		}
	}
	return errors.New(msg)
}

// stop sends SIGTERM to the child's process group, and SIGKILL after
// timeout.
func (c *child) stop(timeout time.Duration) {
	if c == nil || c.cmd == nil || c.exited() {
		return
	}
	pid := c.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-c.done:
	case <-time.After(timeout):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-c.done
	}
}

// controllers are kube-controller-manager, kube-scheduler and kwok.
type controllers struct {
	children []*child
}

func (cs *controllers) stop() {
	if cs == nil {
		return
	}
	var wg sync.WaitGroup
	for _, c := range cs.children {
		wg.Add(1)
		go func(c *child) {
			defer wg.Done()
			c.stop(10 * time.Second)
		}(c)
	}
	wg.Wait()
	cs.children = nil
}

// startControllers runs kube-controller-manager, kube-scheduler and kwok
// against the API server of cfg, creates the fake node and waits until the
// node is Ready and the controller manager works (it created the default
// ServiceAccount). workDir receives their kubeconfig, logDir their logs.
func startControllers(ctx context.Context, binDir, workDir, logDir, certDir string, cfg *rest.Config, attach bool, timeout time.Duration, register func(pid int)) (*controllers, error) {
	kubeconfig := filepath.Join(workDir, "controllers.kubeconfig")
	if err := WriteKubeconfig(kubeconfig, cfg, "admin"); err != nil {
		return nil, err
	}
	caFile := filepath.Join(workDir, "ca.crt")
	if err := os.WriteFile(caFile, cfg.CAData, 0o644); err != nil {
		return nil, fmt.Errorf("controlplane: %w", err)
	}
	cs := &controllers{}
	start := func(name string, args ...string) error {
		c, err := startChild(name, filepath.Join(binDir, name), args, filepath.Join(logDir, name+".log"), attach)
		if err != nil {
			return err
		}
		cs.children = append(cs.children, c)
		if register != nil {
			register(c.cmd.Process.Pid)
		}
		return nil
	}
	err := start("kube-controller-manager",
		"--kubeconfig="+kubeconfig,
		"--authentication-kubeconfig="+kubeconfig,
		"--authorization-kubeconfig="+kubeconfig,
		"--leader-elect=false",
		"--secure-port=0",
		"--controllers=*",
		"--use-service-account-credentials=false",
		"--service-account-private-key-file="+filepath.Join(certDir, "sa-signer.key"),
		"--root-ca-file="+caFile,
		// Garbage collection and namespace deletion without the production
		// pauses: a local cluster should converge in seconds.
		"--concurrent-gc-syncs=5",
		"--namespace-sync-period=10s",
	)
	if err == nil {
		err = start("kube-scheduler",
			"--kubeconfig="+kubeconfig,
			"--authentication-kubeconfig="+kubeconfig,
			"--authorization-kubeconfig="+kubeconfig,
			"--leader-elect=false",
			"--secure-port=0",
		)
	}
	if err == nil {
		err = start("kwok",
			"--kubeconfig="+kubeconfig,
			"--config="+filepath.Join(binDir, "kwok-stages.yaml"),
			"--manage-nodes-with-annotation-selector="+kwokAnnotation+"=fake",
			"--node-lease-duration-seconds=40",
			"--server-address=",
		)
	}
	if err != nil {
		cs.stop()
		return nil, err
	}

	kc, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		cs.stop()
		return nil, err
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{
		Name:        NodeName,
		Annotations: map[string]string{kwokAnnotation: "fake", "node.alpha.kubernetes.io/ttl": "0"},
		Labels: map[string]string{
			"kubernetes.io/hostname": NodeName, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
			"kubernetes.io/role": "agent", "node-role.kubernetes.io/agent": "", "type": "kwok",
		},
	}}
	if _, err := kc.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		cs.stop()
		return nil, fmt.Errorf("controlplane: create node %s: %w", NodeName, err)
	}

	ready := func(ctx context.Context) (bool, error) {
		for _, c := range cs.children {
			if c.exited() {
				return false, c.failure()
			}
		}
		n, err := kc.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		nodeReady := false
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				nodeReady = true
			}
		}
		if !nodeReady {
			return false, nil
		}
		_, err = kc.CoreV1().ServiceAccounts(metav1.NamespaceDefault).Get(ctx, "default", metav1.GetOptions{})
		return err == nil, nil
	}
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := wait.PollUntilContextCancel(wctx, 100*time.Millisecond, true, ready); err != nil {
		cs.stop()
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
			var b bytes.Buffer
			for _, c := range cs.children {
				if c.log != "" {
					fmt.Fprintf(&b, " %s", c.log)
				}
			}
			return nil, fmt.Errorf("controlplane: the controllers did not become ready in %v (node %s Ready, ServiceAccount default/default created); logs:%s", timeout, NodeName, b.String())
		}
		return nil, err
	}
	return cs, nil
}
