package main

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// kubeFlags are --kubeconfig and --context, read as kubectl reads them:
// client-go's loading rules (--kubeconfig, else every file of the
// $KUBECONFIG list merged, else ~/.kube/config), the context chosen by
// --context or the current-context, and, with no configuration at all, the
// in-cluster configuration of a pod.
type kubeFlags struct {
	kubeconfig string
	context    string
}

func (k *kubeFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&k.kubeconfig, "kubeconfig", "", "kubeconfig file (default: the $KUBECONFIG list, else ~/.kube/config, else the in-cluster configuration)")
	cmd.Flags().StringVar(&k.context, "context", "", "the kubeconfig context to use (default: its current-context)")
}

// errNoConfig is the error for a machine with no Kubernetes configuration.
var errNoConfig = errors.New("no Kubernetes configuration found: --kubeconfig is not given, $KUBECONFIG names no file, ~/.kube/config does not exist, " +
	"and this is not a pod (KUBERNETES_SERVICE_HOST is unset); point --kubeconfig or $KUBECONFIG at a kubeconfig, or run `statecraft dev` for a local cluster")

// clientConfig is the deferred-loading client configuration of the flags.
func (k *kubeFlags) clientConfig() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = k.kubeconfig
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: k.context})
}

// restConfig loads the configuration; its errors say what was looked for.
func (k *kubeFlags) restConfig() (*rest.Config, error) {
	cfg, err := k.clientConfig().ClientConfig()
	if err == nil {
		return cfg, nil
	}
	if clientcmd.IsEmptyConfig(err) || errors.Is(err, rest.ErrNotInCluster) {
		if os.Getenv("KUBERNETES_SERVICE_HOST") != "" {
			// A pod, but its configuration is incomplete: say what lacks.
			if _, icErr := rest.InClusterConfig(); icErr != nil {
				return nil, fmt.Errorf("no kubeconfig, and the in-cluster configuration is unusable: %v", icErr)
			}
		}
		return nil, errNoConfig
	}
	where := "the kubeconfig"
	if k.kubeconfig != "" {
		where = k.kubeconfig
	} else if env := os.Getenv(clientcmd.RecommendedConfigPathEnvVar); env != "" {
		where = "$KUBECONFIG (" + env + ")"
	}
	return nil, fmt.Errorf("kubeconfig: cannot use %s: %v", where, err)
}

// contextName is the context the flags select, for messages ("" in a pod).
func (k *kubeFlags) contextName() string {
	if k.context != "" {
		return k.context
	}
	raw, err := k.clientConfig().RawConfig()
	if err != nil {
		return ""
	}
	return raw.CurrentContext
}

// checkServer asks the API server for its version, once, within 10 s, and
// turns a failure into one statecraft-worded error: the server cannot be
// reached, its certificate is not trusted, or it refuses the credentials.
// Every later failure would otherwise surface as a discovery error per kind
// (and read as "CRD not installed").
func checkServer(ctx context.Context, cfg *rest.Config, contextName string) error {
	c := rest.CopyConfig(cfg)
	c.Timeout = 10 * time.Second
	dc, err := discovery.NewDiscoveryClientForConfig(c)
	if err != nil {
		return fmt.Errorf("kubeconfig: %v", err)
	}
	_, err = dc.ServerVersion()
	if err == nil {
		return nil
	}
	return serverError(cfg.Host, contextName, err)
}

func serverError(host, contextName string, err error) error {
	of := ""
	if contextName != "" {
		of = fmt.Sprintf(" (context %q)", contextName)
	}
	var unknownCA x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var urlErr *url.Error
	var netErr net.Error
	switch {
	case apierrors.IsUnauthorized(err):
		return fmt.Errorf("the API server at %s refused the credentials%s (401 Unauthorized): the token or client certificate is invalid, expired or unknown to it; "+
			"get new credentials for this cluster or choose another context with --context", host, of)
	case apierrors.IsForbidden(err):
		return fmt.Errorf("the API server at %s forbids this identity%s even to read its version (403 Forbidden): %v", host, of, err)
	case errors.As(err, &unknownCA), errors.As(err, &hostname), errors.As(err, &invalid), strings.Contains(err.Error(), "x509:"):
		return fmt.Errorf("cannot trust the API server at %s%s: %v; check the certificate-authority of the cluster in the kubeconfig", host, of, err)
	case errors.As(err, &netErr), errors.As(err, &urlErr):
		return fmt.Errorf("cannot reach the API server at %s%s: %v; is the cluster running, and is this its address?", host, of, unwrapURL(err))
	}
	return fmt.Errorf("the API server at %s%s did not answer a version request: %v", host, of, err)
}

// unwrapURL drops url.Error's "Get \"https://...\": " prefix, which repeats
// the address the message already names.
func unwrapURL(err error) error {
	var u *url.Error
	if errors.As(err, &u) {
		return u.Err
	}
	return err
}

// leaseNamespace is the namespace of the leader-election Lease: the flag
// when given, else $POD_NAMESPACE (the chart and examples/deploy set it from
// the pod's namespace), else the namespace of the pod's ServiceAccount, else
// statecraft-system.
func leaseNamespace(flag string) string {
	if flag != "" {
		return flag
	}
	if ns := os.Getenv("POD_NAMESPACE"); ns != "" {
		return ns
	}
	if data, err := os.ReadFile("/var/run/secrets/kubernetes.io/serviceaccount/namespace"); err == nil {
		if ns := strings.TrimSpace(string(data)); ns != "" {
			return ns
		}
	}
	return "statecraft-system"
}
