package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/rules/policies"
	"github.com/statecraft/statecraft/spec/crds"
)

// runFlags are the flags shared by run, plan and dev.
type runFlags struct {
	kube        kubeFlags
	contextName string // the kubeconfig context, for messages; "" for dev
	rules       []string
	params      []string
	namespace   string
	workers     int
	shard       string
	leaderElect bool
	leaseNS     string
	leaseName   string
	metricsAddr string
	healthAddr  string
	logFormat   string
	dryRun      bool
	// decisionRecords is how many decisions the controller keeps on each
	// object (controller.Options.DecisionRecords).
	decisionRecords int
	rec             recordFlags
}

func (f *runFlags) register(cmd *cobra.Command, server bool) {
	cmd.Flags().StringSliceVar(&f.rules, "rules", nil, "rule files or folders of *.hcl (default: every shipped policy whose CRDs the server serves)")
	cmd.Flags().StringArrayVar(&f.params, "param", nil, "MACHINE.NAME=VALUE: run with this value as the default of a machine's param, e.g. autopatch.auto_patch_window=02:00-05:00 (repeatable; an object's own override field still wins)")
	cmd.Flags().StringVar(&f.namespace, "namespace", "", "drive only objects in this namespace")
	cmd.Flags().IntVar(&f.workers, "workers", 4, "objects reconciled concurrently")
	cmd.Flags().StringVar(&f.logFormat, "log-format", "text", "log format: text or json")
	if cmd.Name() == "plan" {
		return
	}
	cmd.Flags().IntVar(&f.decisionRecords, "decision-records", 8, "keep each object's last N decisions, with the clause values that decided them, in its annotation "+controller.DecisionAnnotation+" (statecraft why reads them; 0: none)")
	if !server {
		return
	}
	f.rec.register(cmd, "record", "also record what the engine sees and decides into this folder (statecraft replay replays it; a folder holding a recording is continued)")
	cmd.Flags().StringVar(&f.shard, "shard", "", "I/N: drive only the objects whose stable hash of namespace/name mod N is I")
	cmd.Flags().BoolVar(&f.leaderElect, "leader-elect", false, "run only while holding a Lease")
	cmd.Flags().StringVar(&f.leaseNS, "leader-election-namespace", "", "namespace of the Lease (default: $POD_NAMESPACE, else the pod's own namespace, else statecraft-system)")
	cmd.Flags().StringVar(&f.leaseName, "leader-election-name", "statecraft", "name of the Lease (add the shard to it when sharding)")
	cmd.Flags().StringVar(&f.metricsAddr, "metrics-addr", "", "serve Prometheus metrics on this address (e.g. :8080)")
	cmd.Flags().StringVar(&f.healthAddr, "health-addr", "", "serve /healthz and /readyz on this address (e.g. :8081)")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "shadow mode: decide for every object and print what would be done; write nothing")
}

// logger is the command's logger, in --log-format. client-go's own lines
// (leader election, reflectors, the event broadcaster: klog) go through it
// too, so that --log-format=json output is JSON throughout.
func (f *runFlags) logger(w io.Writer) *slog.Logger {
	var log *slog.Logger
	if f.logFormat == "json" {
		log = slog.New(slog.NewJSONHandler(w, nil))
	} else {
		log = slog.New(slog.NewTextHandler(w, nil))
	}
	klog.SetSlogLogger(log)
	return log
}

func parseShard(s string) (int, int, error) {
	if s == "" {
		return 0, 0, nil
	}
	i, n, ok := strings.Cut(s, "/")
	si, err1 := strconv.Atoi(i)
	sn, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil || sn < 1 || si < 0 || si >= sn {
		return 0, 0, fmt.Errorf("--shard %q: want I/N with 0 <= I < N", s)
	}
	return si, sn, nil
}

// servedMachines loads the rule files (or every shipped policy) with the
// --param values, and keeps the machines whose kinds the server serves;
// with explicit --rules an unserved kind is an error.
func servedMachines(ctx context.Context, host string, refs, paramFlags []string, api adapters.API, log *slog.Logger, stderr io.Writer) ([]*fsm.Machine, error) {
	params, err := parseParams(paramFlags)
	if err != nil {
		return nil, err
	}
	explicit := len(refs) > 0
	if !explicit {
		refs = policies.Names()
	}
	var paths []string
	for _, r := range refs {
		if st, err := os.Stat(r); err == nil && st.IsDir() {
			found, _ := filepath.Glob(filepath.Join(r, "*.hcl"))
			paths = append(paths, found...)
			continue
		}
		paths = append(paths, r)
	}
	ms, diags, err := loadMachinesWithParams(paths, params)
	if diags.HasErrors() {
		printDiags(stderr, diags)
		return nil, ExitError{1}
	}
	if err != nil {
		return nil, err
	}
	var out []*fsm.Machine
	var skipped, missing []string
	for _, m := range ms {
		served := true
		for _, r := range m.Resources {
			if api.Scope(ctx, r.APIVersion, r.Kind) == adapters.Unknown {
				served = false
				missing = append(missing, r.Kind+" ("+r.APIVersion+")")
				if explicit {
					return nil, fmt.Errorf("machine %s drives %s %s, which the API server at %s does not serve: install its CRD (spec/crds)", m.Name, r.APIVersion, r.Kind, host)
				}
			}
		}
		if served {
			out = append(out, m)
		} else {
			skipped = append(skipped, m.Name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the API server at %s serves none of the kinds the shipped policies drive (%s): install their CRDs "+
			"(kubectl apply --server-side -f spec/crds, or the chart's crds/), or pass --rules", host, strings.Join(missing, ", "))
	}
	if len(skipped) > 0 {
		log.Info("not running the machines whose CRDs are not installed", "machines", strings.Join(skipped, ","), "kinds", strings.Join(missing, ","))
	}
	return out, nil
}

func signalContext() (context.Context, context.CancelFunc) {
	return signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
}

func serve(addr string, h http.Handler, log *slog.Logger) (func(), error) {
	if addr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("http server", "addr", addr, "error", err)
		}
	}()
	return func() { srv.Close() }, nil
}

// runController builds and runs a controller until ctx ends.
func runController(ctx context.Context, cfg *rest.Config, f *runFlags, stdout, stderr io.Writer) error {
	if f.logFormat != "text" && f.logFormat != "json" {
		return fmt.Errorf("--log-format %q: want text or json", f.logFormat)
	}
	log := f.logger(stderr)
	if err := checkServer(ctx, cfg, f.contextName); err != nil {
		return err
	}
	client, err := kube.New(cfg, kube.Options{})
	if err != nil {
		return err
	}
	ms, err := servedMachines(ctx, cfg.Host, f.rules, f.params, client, log, stderr)
	if err != nil {
		return err
	}
	shard, shards, err := parseShard(f.shard)
	if err != nil {
		return err
	}
	opts := controller.Options{Workers: f.workers, Namespace: f.namespace, Shard: shard, Shards: shards, Logger: log}
	if f.dryRun {
		opts.Shadow = stdout
	} else {
		opts.Events = kube.NewEvents(client, "statecraft", nil)
		defer opts.Events.Shutdown()
		opts.DecisionRecords = f.decisionRecords
	}
	rec, err := f.startRecording(ctx, cfg, client, ms, log)
	if err != nil {
		return err
	}
	if rec != nil {
		opts.Observer = rec
		defer func() {
			if cerr := rec.Close(); cerr != nil {
				log.Error("the recording is incomplete", "dir", f.rec.dir, "error", cerr)
			} else {
				log.Info("recording written", "dir", f.rec.dir)
			}
		}()
	}
	ctrl, err := controller.New(client, ms, opts)
	if err != nil {
		return err
	}
	stopMetrics, err := serve(f.metricsAddr, promhttp.HandlerFor(ctrl.Metrics().Gatherer(), promhttp.HandlerOpts{}), log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	health := http.NewServeMux()
	health.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "ok") })
	// Ready: the informers synced; or, electing a leader, a standby
	// replica waiting for the Lease (it is healthy, and a Deployment of two
	// replicas must become Available).
	health.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if f.leaderElect && !ctrl.Leading() {
			io.WriteString(w, "ok: standby, waiting for the lease")
			return
		}
		if !ctrl.Synced() {
			http.Error(w, "informers not synced", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ok")
	})
	stopHealth, err := serve(f.healthAddr, health, log)
	if err != nil {
		return err
	}
	defer stopHealth()
	names := make([]string, 0, len(ms))
	for _, m := range ms {
		names = append(names, m.Name)
	}
	log.Info("running", "machines", strings.Join(names, ","), "shard", f.shard, "dryRun", f.dryRun)
	if f.leaderElect {
		host, _ := os.Hostname()
		return ctrl.RunElected(ctx, controller.LeaderElection{
			Namespace: leaseNamespace(f.leaseNS), Name: f.leaseName, Identity: fmt.Sprintf("%s_%d", host, os.Getpid()),
		})
	}
	return ctrl.Run(ctx)
}

func runCmd(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{}
	cmd := &cobra.Command{
		Use:   "run",
		Short: "Run the engine as a controller against a Kubernetes API server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.kube.restConfig()
			if err != nil {
				return err
			}
			f.contextName = f.kube.contextName()
			ctx, cancel := signalContext()
			defer cancel()
			return runController(ctx, cfg, f, stdout, stderr)
		},
	}
	f.kube.register(cmd)
	f.register(cmd, true)
	return cmd
}

func planCmd(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{dryRun: true}
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "plan",
		Short: "Decide once for every object and print the transitions and writes that would happen; write nothing",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := f.kube.restConfig()
			if err != nil {
				return err
			}
			f.contextName = f.kube.contextName()
			ctx, cancel := context.WithTimeout(context.Background(), timeout)
			defer cancel()
			return planOnce(ctx, cfg, f, stdout, stderr)
		},
	}
	f.kube.register(cmd)
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "give up after this long")
	f.register(cmd, false)
	return cmd
}

// planOnce runs a shadow controller until every object was decided once.
func planOnce(ctx context.Context, cfg *rest.Config, f *runFlags, stdout, stderr io.Writer) error {
	log := f.logger(io.Discard)
	if err := checkServer(ctx, cfg, f.contextName); err != nil {
		return err
	}
	client, err := kube.New(cfg, kube.Options{})
	if err != nil {
		return err
	}
	ms, err := servedMachines(ctx, cfg.Host, f.rules, f.params, client, log, stderr)
	if err != nil {
		return err
	}
	ctrl, err := controller.New(client, ms, controller.Options{Workers: 1, Namespace: f.namespace, Shadow: stdout, Logger: log})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- ctrl.Run(ctx) }()
	idleFor := 0
	for idleFor < 3 {
		select {
		case err := <-done:
			cancel()
			return err
		case <-time.After(100 * time.Millisecond):
		}
		if ctrl.Idle() {
			idleFor++
		} else {
			idleFor = 0
		}
	}
	cancel()
	if err := <-done; err != nil {
		return err
	}
	n, _ := ctrl.Stats()
	fmt.Fprintf(stdout, "%d objects decided; nothing was written\n", n)
	return nil
}

func devCmd(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{}
	var kubeconfigOut, crdsFlag, dataDir string
	var controllers bool
	cmd := &cobra.Command{
		Use:   "dev",
		Short: "Start a local cluster (etcd, kube-apiserver, kube-controller-manager, kube-scheduler and a kwok node, from bin/), install the CRDs, and run the engine against it",
		Long: `Start a local cluster from the binaries in bin/ (make cluster builds them):
etcd and kube-apiserver; kube-controller-manager (garbage collector, namespace
controller, workload controllers); kube-scheduler; and kwok, which stands in
for the kubelet of one fake node, kwok-node-0, where scheduled pods become
Running and Ready without running anything. Install the CRDs, write an admin
kubeconfig, and run the engine against the cluster until SIGINT or SIGTERM.

Everything it starts stops with it, however it ends: on SIGINT or SIGTERM in
order; if it is killed (SIGKILL), the kernel ends the controllers and a
janitor process ends etcd and kube-apiserver and removes the temporary
folders. The cluster's state is lost when it stops, unless --data-dir keeps
etcd's data (and the logs) in a folder for the next start.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := signalContext()
			defer cancel()
			var crdDirs []string
			var crdFiles map[string][]byte
			if crdsFlag != "" {
				crdDirs = []string{crdsFlag}
			} else {
				crdDirs, crdFiles = crdSource()
			}
			if kubeconfigOut == "" {
				root, err := controlplane.RepoRoot()
				if err != nil {
					root = "."
				}
				kubeconfigOut = filepath.Join(root, "bin", "kubeconfig")
			}
			abs, err := filepath.Abs(kubeconfigOut)
			if err != nil {
				return err
			}
			parts := "etcd and kube-apiserver"
			if controllers {
				parts = "etcd, kube-apiserver, kube-controller-manager, kube-scheduler and kwok"
			}
			fmt.Fprintf(stderr, "starting %s ...\n", parts)
			cp, err := controlplane.Start(ctx, controlplane.Options{CRDDirs: crdDirs, CRDFiles: crdFiles, KubeconfigPath: abs, Controllers: controllers, DataDir: dataDir})
			if err != nil {
				if ctx.Err() != nil {
					return nil // interrupted while starting; what started is stopped
				}
				if errors.Is(err, controlplane.ErrMissingBinaries) {
					if controllers {
						return fmt.Errorf("%w (build them with: make cluster; or run without the controllers: --controllers=false after make controlplane)", err)
					}
					return fmt.Errorf("%w (build them with: make controlplane)", err)
				}
				return err
			}
			defer cp.Stop()
			state := "State is lost when this stops (keep it with --data-dir DIR)."
			if dataDir != "" {
				state = "State is kept in " + dataDir + " for the next start."
			}
			node := ""
			if controllers {
				node = fmt.Sprintf("\nPods are scheduled on the fake node %s, where kwok makes them Running and Ready\n(nothing runs: no images are pulled, no containers start). Logs of the\ncontrollers: %s\n", controlplane.NodeName, cp.LogDir)
			}
			fmt.Fprintf(stdout, `A local cluster is running (%s), with the statecraft CRDs installed:
  %s
%s
In another shell:
  export KUBECONFIG=%s
  kubectl apply -f examples/objectpatch/namespace.yaml -f examples/objectpatch/deployment.yaml -f examples/objectpatch/deployment-patch.yaml
  kubectl get objectpatch -n patches-demo -w

%s
Press Ctrl-C to stop the engine and the cluster.
`, parts, strings.Join(cp.CRDs, "\n  "), node, abs, state)
			err = runController(ctx, cp.Config, f, stdout, stderr)
			if ctx.Err() != nil {
				return nil
			}
			return err
		},
	}
	cmd.Flags().StringVar(&kubeconfigOut, "kubeconfig-out", "", "where to write the admin kubeconfig (default bin/kubeconfig)")
	cmd.Flags().StringVar(&crdsFlag, "crds", "", "folder of CRD manifests to install (default: spec/crds, or the CRDs built into the binary)")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "keep etcd's data and the controllers' logs in this folder across restarts (default: a temporary folder, removed on exit)")
	cmd.Flags().BoolVar(&controllers, "controllers", true, "also run kube-controller-manager, kube-scheduler and kwok (false: etcd and kube-apiserver only)")
	f.register(cmd, true)
	return cmd
}

// crdSource returns spec/crds of the repository, or, outside it, the CRDs
// embedded in the binary (the control plane writes them into its own
// temporary folder).
func crdSource() ([]string, map[string][]byte) {
	if root, err := controlplane.RepoRoot(); err == nil {
		d := filepath.Join(root, "spec", "crds")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return []string{d}, nil
		}
	}
	files := map[string][]byte{}
	for _, n := range crds.Names() {
		b, _ := crds.Read(n)
		files[n] = b
	}
	return nil, files
}
