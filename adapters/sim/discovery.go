package sim

import (
	"context"
	"fmt"
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
	// the kind, "" for built-in kinds and kinds registered with
	// RegisterKind.
	fromCRD string
	// srv serves the kind's writes.
	srv server
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

// RegisterKind makes the server serve apiVersion/kind with the given scope,
// replacing any earlier registration of the same apiVersion and kind. Objects
// already stored are kept. The kind is served as a custom resource whose
// CustomResourceDefinition has no schema but one that keeps every field
// (x-kubernetes-preserve-unknown-fields), with a status subresource when
// opts.HasStatus says so; a kind that has a CRD is better served by
// storing its CRD (Apply), schema and all.
func (c *Cluster) RegisterKind(apiVersion, kind string, scope adapters.Scope, opts KindOptions) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := &kindInfo{apiVersion: apiVersion, kind: kind, scope: scope, opts: opts}
	srv, err := cachedCustomServer(genericCRD(apiVersion, kind, k.plural(), scope == adapters.Namespaced, opts.HasStatus), adapters.Ref{APIVersion: apiVersion}.Version())
	if err != nil {
		// The generated definition is always servable.
		panic(fmt.Sprintf("sim: RegisterKind %s %s: %v", apiVersion, kind, err))
	}
	c.registerLocked(apiVersion, kind, scope, opts, "", srv)
}

func (c *Cluster) registerLocked(apiVersion, kind string, scope adapters.Scope, opts KindOptions, fromCRD string, srv server) {
	opts.Immutable = append([]string(nil), opts.Immutable...)
	c.discovery.Add(1)
	c.kinds[kindKey{apiVersion, kind}] = &kindInfo{
		apiVersion: apiVersion, kind: kind, scope: scope, opts: opts, fromCRD: fromCRD, srv: srv,
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
