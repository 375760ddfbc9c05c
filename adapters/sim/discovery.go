package sim

import (
	"context"
	"strings"

	"github.com/statecraft/statecraft/adapters"
)

// KindOptions describes how the simulated API server serves one kind.
type KindOptions struct {
	// HasStatus says the kind has a status subresource: writes to the main
	// resource ignore .status and writes to "status" change only .status.
	HasStatus bool
	// Plural is the resource name used in messages ("deployments"); derived
	// from the kind when empty.
	Plural string
	// Immutable lists fields, as JSON pointers ("/spec/selector"), that an
	// update may not change once set; such an update is Invalid.
	Immutable []string
}

type kindKey struct{ apiVersion, kind string }

type kindInfo struct {
	apiVersion string
	kind       string
	scope      adapters.Scope
	opts       KindOptions
	// fromCRD is the name of the CustomResourceDefinition that registered
	// the kind, "" for kinds registered with RegisterKind.
	fromCRD string
}

func (k *kindInfo) plural() string {
	if k.opts.Plural != "" {
		return k.opts.Plural
	}
	return pluralize(k.kind)
}

func (k *kindInfo) group() string {
	return adapters.Ref{APIVersion: k.apiVersion}.Group()
}

// resource renders the kind as "plural.group" (or "plural" for the core
// group), as the API server names resources in its messages.
func (k *kindInfo) resource() string {
	if g := k.group(); g != "" {
		return k.plural() + "." + g
	}
	return k.plural()
}

func pluralize(kind string) string {
	s := strings.ToLower(kind)
	switch {
	case strings.HasSuffix(s, "y") && !strings.HasSuffix(s, "ay") && !strings.HasSuffix(s, "ey"):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}

// builtinKinds are served by every new Cluster.
var builtinKinds = []struct {
	apiVersion, kind string
	scope            adapters.Scope
	opts             KindOptions
}{
	{"v1", "Namespace", adapters.Cluster, KindOptions{HasStatus: true}},
	{"v1", "ConfigMap", adapters.Namespaced, KindOptions{}},
	{"v1", "Secret", adapters.Namespaced, KindOptions{}},
	{"v1", "Service", adapters.Namespaced, KindOptions{HasStatus: true}},
	{"v1", "ServiceAccount", adapters.Namespaced, KindOptions{}},
	{"apps/v1", "Deployment", adapters.Namespaced, KindOptions{HasStatus: true, Immutable: []string{"/spec/selector"}}},
	{"apps/v1", "StatefulSet", adapters.Namespaced, KindOptions{HasStatus: true, Immutable: []string{"/spec/selector", "/spec/serviceName"}}},
	{"apps/v1", "DaemonSet", adapters.Namespaced, KindOptions{HasStatus: true, Immutable: []string{"/spec/selector"}}},
	{"autoscaling/v2", "HorizontalPodAutoscaler", adapters.Namespaced, KindOptions{HasStatus: true}},
	{"policy/v1", "PodDisruptionBudget", adapters.Namespaced, KindOptions{HasStatus: true}},
	{"coordination.k8s.io/v1", "Lease", adapters.Namespaced, KindOptions{}},
	{"rbac.authorization.k8s.io/v1", "ClusterRole", adapters.Cluster, KindOptions{}},
	{"apiextensions.k8s.io/v1", "CustomResourceDefinition", adapters.Cluster, KindOptions{HasStatus: true}},
	{"events.k8s.io/v1", "Event", adapters.Namespaced, KindOptions{}},
}

// RegisterKind makes the server serve apiVersion/kind with the given scope,
// replacing any earlier registration of the same apiVersion and kind. Objects
// already stored are kept.
func (c *Cluster) RegisterKind(apiVersion, kind string, scope adapters.Scope, opts KindOptions) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.registerLocked(apiVersion, kind, scope, opts, "")
}

func (c *Cluster) registerLocked(apiVersion, kind string, scope adapters.Scope, opts KindOptions, fromCRD string) {
	opts.Immutable = append([]string(nil), opts.Immutable...)
	c.discovery.Add(1)
	c.kinds[kindKey{apiVersion, kind}] = &kindInfo{
		apiVersion: apiVersion, kind: kind, scope: scope, opts: opts, fromCRD: fromCRD,
	}
}

// Scope reports how apiVersion/kind is served: Namespaced, Cluster, or
// Unknown when the kind is not registered.
func (c *Cluster) Scope(_ context.Context, apiVersion, kind string) adapters.Scope {
	c.mu.Lock()
	defer c.mu.Unlock()
	if k, ok := c.kinds[kindKey{apiVersion, kind}]; ok {
		return k.scope
	}
	return adapters.Unknown
}
