package controlplane

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

// RootModule is the module path whose go.mod marks the repository root.
const RootModule = "github.com/statecraft/statecraft"

// EnvBinDir names the environment variable that, when set, is the directory
// holding kube-apiserver and etcd, instead of <repository root>/bin.
const EnvBinDir = "STATECRAFT_BIN"

// Binaries the control plane needs in its binary directory.
var Binaries = []string{"kube-apiserver", "etcd"}

// Options configure Start.
type Options struct {
	// CRDDirs are directories whose *.yaml, *.yml and *.json files are read
	// for CustomResourceDefinitions; other documents in them are ignored. A
	// directory that does not exist is an error.
	CRDDirs []string
	// CRDFiles are CRD manifests by file name, installed as CRDDirs are:
	// written into the control plane's temporary folder (removed with it,
	// by the janitor too), for a caller whose CRDs are embedded.
	CRDFiles map[string][]byte
	// KubeconfigPath, when set, is where an admin kubeconfig is written (mode
	// 0600); Stop removes it.
	KubeconfigPath string
	// BinDir overrides where kube-apiserver and etcd are found; empty means
	// BinDir().
	BinDir string
	// StartTimeout bounds the start of each process; zero means 60s.
	StartTimeout time.Duration
	// AttachOutput copies the processes' output to this process's stdout and
	// stderr, for debugging.
	AttachOutput bool
	// Logger, when it has a sink, receives envtest's log lines. It is
	// installed as controller-runtime's global logger (log.SetLogger), which
	// also silences that package's "SetLogger was never called" warning in
	// a long-running process such as `statecraft dev`.
	Logger logr.Logger
	// Controllers also runs kube-controller-manager (garbage collector,
	// namespace controller, workload controllers), kube-scheduler, and kwok
	// managing one fake node, NodeName, on which scheduled pods become
	// Running and Ready: Deployments become Available. Start returns once
	// the node is Ready and the controller manager has created the default
	// ServiceAccount. They need ControllerBinaries (`make cluster`); a test
	// that does not ask for them does not pay for them.
	Controllers bool
	// DataDir, when set, keeps etcd's data in DataDir/etcd, and the
	// controllers' logs in DataDir/logs, across a Stop and the next Start
	// with the same DataDir: objects survive a restart. The API server's
	// certificates are made anew at each start (clients need the new
	// kubeconfig). Empty: everything lives in a temporary folder that Stop
	// removes.
	DataDir string
}

// ControlPlane is a running etcd and kube-apiserver.
type ControlPlane struct {
	// Config reaches the API server as an admin (group system:masters).
	Config *rest.Config
	// KubeconfigPath is the admin kubeconfig written by Start, or "".
	KubeconfigPath string
	// BinDir is the directory the binaries were taken from.
	BinDir string
	// CRDs lists the names of the CRDs installed by Start, sorted.
	CRDs []string
	// LogDir holds the controllers' logs (with Options.Controllers), or "".
	LogDir string

	env         *envtest.Environment
	controllers *controllers
	workDir     string // temporary: certificates, the controllers' kubeconfig
	janitor     *janitor
}

// RepoRoot walks up from the working directory to the go.mod of the root
// module and returns its directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isRootModule(filepath.Join(dir, "go.mod")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("controlplane: no go.mod of module %s above the working directory", RootModule)
		}
		dir = parent
	}
}

func isRootModule(gomod string) bool {
	f, err := os.Open(gomod)
	if err != nil {
		return false
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == RootModule
		}
	}
	return false
}

// BinDir returns the directory holding the control-plane binaries:
// $STATECRAFT_BIN when set, else <repository root>/bin.
func BinDir() (string, error) {
	if d := os.Getenv(EnvBinDir); d != "" {
		return filepath.Abs(d)
	}
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "bin"), nil
}

// ErrMissingBinaries reports that kube-apiserver or etcd has not been built.
var ErrMissingBinaries = errors.New("controlplane: binaries missing (run `make controlplane`, or `make cluster` for the controllers)")

// CheckBinaries returns the binary directory, or an error wrapping
// ErrMissingBinaries that names each binary missing from it.
func CheckBinaries(dir string) (string, error) {
	return checkBinaries(dir, Binaries)
}

// CheckControllerBinaries is CheckBinaries for a control plane with
// Options.Controllers: Binaries and ControllerBinaries.
func CheckControllerBinaries(dir string) (string, error) {
	return checkBinaries(dir, append(append([]string(nil), Binaries...), ControllerBinaries...))
}

func checkBinaries(dir string, names []string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = BinDir(); err != nil {
			return "", err
		}
	}
	var missing []string
	for _, b := range names {
		st, err := os.Stat(filepath.Join(dir, b))
		if err != nil || st.IsDir() || !strings.HasSuffix(b, ".yaml") && st.Mode()&0o111 == 0 {
			missing = append(missing, filepath.Join(dir, b))
		}
	}
	if len(missing) > 0 {
		return dir, fmt.Errorf("%w: %s", ErrMissingBinaries, strings.Join(missing, ", "))
	}
	return dir, nil
}

// Start runs etcd and kube-apiserver, waits until the API server serves the
// default namespace, installs the CRDs found in opts.CRDDirs and waits until
// they are served, and writes the kubeconfig. Cancelling ctx abandons the
// start and stops whatever was started.
func Start(ctx context.Context, opts Options) (*ControlPlane, error) {
	check := CheckBinaries
	if opts.Controllers {
		check = CheckControllerBinaries
	}
	dir, err := check(opts.BinDir)
	if err != nil {
		return nil, err
	}
	for _, d := range opts.CRDDirs {
		if st, err := os.Stat(d); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("controlplane: CRD directory %s: not a directory", d)
		}
	}
	if opts.Logger.GetSink() != nil {
		ctrllog.SetLogger(opts.Logger)
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 60 * time.Second
	}
	work, err := os.MkdirTemp("", "statecraft-controlplane-")
	if err != nil {
		return nil, fmt.Errorf("controlplane: %w", err)
	}
	jan := startJanitor()
	jan.dir(work)
	cleanupEarly := func() {
		os.RemoveAll(work)
		jan.done()
	}
	etcdDir := filepath.Join(work, "etcd")
	logDir := work
	if opts.DataDir != "" {
		abs, err := filepath.Abs(opts.DataDir)
		if err != nil {
			cleanupEarly()
			return nil, fmt.Errorf("controlplane: data dir: %w", err)
		}
		etcdDir, logDir = filepath.Join(abs, "etcd"), filepath.Join(abs, "logs")
	}
	for _, d := range []string{etcdDir, logDir, filepath.Join(work, "pki")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			cleanupEarly()
			return nil, fmt.Errorf("controlplane: %w", err)
		}
	}
	crdDirs := opts.CRDDirs
	if len(opts.CRDFiles) > 0 {
		d := filepath.Join(work, "crds")
		if err := os.MkdirAll(d, 0o700); err != nil {
			cleanupEarly()
			return nil, fmt.Errorf("controlplane: %w", err)
		}
		for name, data := range opts.CRDFiles {
			if filepath.Base(name) != name || !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") && !strings.HasSuffix(name, ".json") {
				cleanupEarly()
				return nil, fmt.Errorf("controlplane: CRD file name %q: want a plain *.yaml, *.yml or *.json name", name)
			}
			if err := os.WriteFile(filepath.Join(d, name), data, 0o600); err != nil {
				cleanupEarly()
				return nil, fmt.Errorf("controlplane: %w", err)
			}
		}
		crdDirs = append(append([]string(nil), crdDirs...), d)
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    dir,
		CRDDirectoryPaths:        crdDirs,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: timeout,
		ControlPlaneStopTimeout:  30 * time.Second,
		AttachControlPlaneOutput: opts.AttachOutput,
	}
	// envtest prefers $KUBEBUILDER_ASSETS over BinaryAssetsDirectory; the
	// binaries we built are the ones we mean, so name them explicitly.
	env.ControlPlane.GetAPIServer().Path = filepath.Join(dir, "kube-apiserver")
	env.ControlPlane.GetAPIServer().CertDir = filepath.Join(work, "pki")
	env.ControlPlane.Etcd = &envtest.Etcd{Path: filepath.Join(dir, "etcd"), DataDir: etcdDir}
	if kubectl, err := exec.LookPath("kubectl"); err == nil {
		env.ControlPlane.KubectlPath = kubectl
	}

	type started struct {
		cfg *rest.Config
		err error
	}
	done := make(chan started, 1)
	go func() {
		cfg, err := env.Start()
		done <- started{cfg, err}
	}()
	// Until the start is over, watch for the processes envtest starts: the
	// janitor must know them before this process can die.
	watching := make(chan struct{})
	go func() {
		seen := map[int]bool{}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			for _, pid := range childrenIn(work, etcdDir) {
				if !seen[pid] {
					seen[pid] = true
					jan.process(pid)
				}
			}
			select {
			case <-watching:
				return
			case <-tick.C:
			}
		}
	}()
	var res started
	select {
	case res = <-done:
	case <-ctx.Done():
		res = <-done
		if res.err == nil {
			res.err = ctx.Err()
		}
	}
	close(watching)
	for _, pid := range childrenIn(work, etcdDir) {
		jan.process(pid)
	}
	if res.err != nil {
		_ = env.Stop()
		cleanupEarly()
		return nil, fmt.Errorf("controlplane: start: %w", res.err)
	}

	cp := &ControlPlane{Config: res.cfg, BinDir: dir, env: env, workDir: work, janitor: jan}
	if opts.Controllers {
		cs, err := startControllers(ctx, dir, work, logDir, env.ControlPlane.GetAPIServer().CertDir, res.cfg, opts.AttachOutput, timeout, jan.process)
		if err != nil {
			_ = cp.Stop()
			return nil, err
		}
		cp.controllers, cp.LogDir = cs, logDir
	}
	for _, crd := range env.CRDs {
		cp.CRDs = append(cp.CRDs, crd.Name)
	}
	sort.Strings(cp.CRDs)
	if opts.KubeconfigPath != "" {
		if err := WriteKubeconfig(opts.KubeconfigPath, res.cfg, "admin"); err != nil {
			_ = cp.Stop()
			return nil, err
		}
		cp.KubeconfigPath = opts.KubeconfigPath
	}
	return cp, nil
}

// Stop stops the controllers, kube-apiserver and etcd, deletes their data
// (but for Options.DataDir) and removes the kubeconfig written by Start. It
// is safe to call more than once.
func (cp *ControlPlane) Stop() error {
	if cp == nil || cp.env == nil {
		return nil
	}
	if cp.controllers != nil {
		cp.controllers.stop()
		cp.controllers = nil
	}
	err := cp.env.Stop()
	cp.env = nil
	if rmErr := os.RemoveAll(cp.workDir); rmErr != nil && err == nil {
		err = rmErr
	}
	cp.janitor.done()
	if cp.KubeconfigPath != "" {
		if rmErr := os.Remove(cp.KubeconfigPath); rmErr != nil && !os.IsNotExist(rmErr) && err == nil {
			err = rmErr
		}
	}
	return err
}

// AddUser provisions a user authenticated by a client certificate, with the
// given name and groups, and returns a config that reaches the API server as
// that user. RBAC decides what the user may do.
func (cp *ControlPlane) AddUser(name string, groups ...string) (*rest.Config, error) {
	if cp == nil || cp.env == nil {
		return nil, errors.New("controlplane: not running")
	}
	u, err := cp.env.AddUser(envtest.User{Name: name, Groups: groups}, rest.CopyConfig(cp.Config))
	if err != nil {
		return nil, err
	}
	return u.Config(), nil
}

// WriteKubeconfig writes a kubeconfig with one cluster, user and context
// (all named "statecraft", the user as userName) that reaches cfg, with mode
// 0600.
func WriteKubeconfig(path string, cfg *rest.Config, userName string) error {
	const name = "statecraft"
	kc := clientcmdapi.NewConfig()
	kc.Clusters[name] = &clientcmdapi.Cluster{
		Server:                   cfg.Host,
		CertificateAuthorityData: cfg.CAData,
		CertificateAuthority:     cfg.CAFile,
		InsecureSkipTLSVerify:    cfg.Insecure,
	}
	kc.AuthInfos[userName] = &clientcmdapi.AuthInfo{
		ClientCertificateData: cfg.CertData,
		ClientKeyData:         cfg.KeyData,
		ClientCertificate:     cfg.CertFile,
		ClientKey:             cfg.KeyFile,
		Token:                 cfg.BearerToken,
	}
	kc.Contexts[name] = &clientcmdapi.Context{Cluster: name, AuthInfo: userName, Namespace: "default"}
	kc.CurrentContext = name
	data, err := clientcmd.Write(*kc)
	if err != nil {
		return fmt.Errorf("controlplane: kubeconfig: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("controlplane: kubeconfig: %w", err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		return fmt.Errorf("controlplane: kubeconfig: %w", err)
	}
	return nil
}
