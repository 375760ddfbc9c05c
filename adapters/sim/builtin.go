package sim

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"

	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	"k8s.io/apiextensions-apiserver/pkg/registry/customresourcedefinition"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apiserver/pkg/registry/rest"
	"k8s.io/kubernetes/pkg/api/legacyscheme"

	// The built-in groups the simulator serves, registered into
	// legacyscheme as kube-apiserver registers them: internal and
	// versioned types, conversions and defaulting functions.
	_ "k8s.io/kubernetes/pkg/apis/apps/install"
	_ "k8s.io/kubernetes/pkg/apis/autoscaling/install"
	_ "k8s.io/kubernetes/pkg/apis/batch/install"
	_ "k8s.io/kubernetes/pkg/apis/coordination/install"
	_ "k8s.io/kubernetes/pkg/apis/core/install"
	_ "k8s.io/kubernetes/pkg/apis/events/install"
	_ "k8s.io/kubernetes/pkg/apis/policy/install"
	_ "k8s.io/kubernetes/pkg/apis/rbac/install"

	"k8s.io/kubernetes/pkg/registry/apps/daemonset"
	deploymentregistry "k8s.io/kubernetes/pkg/registry/apps/deployment"
	"k8s.io/kubernetes/pkg/registry/apps/statefulset"
	"k8s.io/kubernetes/pkg/registry/autoscaling/horizontalpodautoscaler"
	"k8s.io/kubernetes/pkg/registry/batch/job"
	"k8s.io/kubernetes/pkg/registry/coordination/lease"
	"k8s.io/kubernetes/pkg/registry/core/configmap"
	"k8s.io/kubernetes/pkg/registry/core/event"
	"k8s.io/kubernetes/pkg/registry/core/namespace"
	"k8s.io/kubernetes/pkg/registry/core/persistentvolumeclaim"
	"k8s.io/kubernetes/pkg/registry/core/secret"
	"k8s.io/kubernetes/pkg/registry/core/service"
	"k8s.io/kubernetes/pkg/registry/core/serviceaccount"
	"k8s.io/kubernetes/pkg/registry/policy/poddisruptionbudget"
	"k8s.io/kubernetes/pkg/registry/rbac/clusterrole"

	"github.com/statecraft/statecraft/adapters"
)

// Built-in kinds are served by kube-apiserver's own code: each request
// body or patch result is decoded into the kind's Go types and defaulted
// by the scheme's codec (legacyscheme, as kube-apiserver registers it),
// then the kind's registry strategy prepares and validates it
// (rest.BeforeCreate, rest.BeforeUpdate: status reset, generation,
// validation with the server's messages), and the result is encoded
// back as the server encodes it.

// apiextensionsScheme serves CustomResourceDefinitions, as
// apiextensions-apiserver's own scheme does.
var (
	apiextensionsScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		apiextensionsinstall.Install(s)
		return s
	}()
	apiextensionsCodecs = serializer.NewCodecFactory(apiextensionsScheme)
)

// strategy is what a registry strategy gives: create and update.
type strategy interface {
	rest.RESTCreateStrategy
	rest.RESTUpdateStrategy
}

// builtinKind is one built-in kind with the code that serves it.
type builtinKind struct {
	apiVersion, kind string
	scope            adapters.Scope
	plural           string
	strategy         strategy
	status           rest.RESTUpdateStrategy // nil without a status subresource
	finalize         rest.RESTUpdateStrategy // namespaces/finalize
	scheme           *runtime.Scheme
	codecs           serializer.CodecFactory
}

func (b *builtinKind) gvk() schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(b.apiVersion, b.kind)
}

// builtinKinds are served by every new Cluster.
var builtinKinds = func() []*builtinKind {
	legacy := func(apiVersion, kind, plural string, scope adapters.Scope, st strategy, status rest.RESTUpdateStrategy) *builtinKind {
		return &builtinKind{apiVersion: apiVersion, kind: kind, scope: scope, plural: plural,
			strategy: st, status: status, scheme: legacyscheme.Scheme, codecs: legacyscheme.Codecs}
	}
	crd := customresourcedefinition.NewStrategy(apiextensionsScheme)
	return []*builtinKind{
		func() *builtinKind {
			b := legacy("v1", "Namespace", "namespaces", adapters.Cluster, namespace.Strategy, namespace.StatusStrategy)
			b.finalize = namespace.FinalizeStrategy
			return b
		}(),
		legacy("v1", "ConfigMap", "configmaps", adapters.Namespaced, configmap.Strategy, nil),
		legacy("v1", "Secret", "secrets", adapters.Namespaced, secret.Strategy, nil),
		legacy("v1", "PersistentVolumeClaim", "persistentvolumeclaims", adapters.Namespaced, persistentvolumeclaim.Strategy, persistentvolumeclaim.StatusStrategy),
		legacy("v1", "Service", "services", adapters.Namespaced, service.Strategy, service.StatusStrategy),
		legacy("v1", "ServiceAccount", "serviceaccounts", adapters.Namespaced, serviceaccount.Strategy, nil),
		legacy("apps/v1", "Deployment", "deployments", adapters.Namespaced, deploymentregistry.Strategy, deploymentregistry.StatusStrategy),
		legacy("apps/v1", "StatefulSet", "statefulsets", adapters.Namespaced, statefulset.Strategy, statefulset.StatusStrategy),
		legacy("apps/v1", "DaemonSet", "daemonsets", adapters.Namespaced, daemonset.Strategy, daemonset.StatusStrategy),
		legacy("batch/v1", "Job", "jobs", adapters.Namespaced, job.Strategy, job.StatusStrategy),
		legacy("autoscaling/v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", adapters.Namespaced, horizontalpodautoscaler.Strategy, horizontalpodautoscaler.StatusStrategy),
		legacy("policy/v1", "PodDisruptionBudget", "poddisruptionbudgets", adapters.Namespaced, poddisruptionbudget.Strategy, poddisruptionbudget.StatusStrategy),
		legacy("coordination.k8s.io/v1", "Lease", "leases", adapters.Namespaced, lease.Strategy, nil),
		legacy("rbac.authorization.k8s.io/v1", "ClusterRole", "clusterroles", adapters.Cluster, clusterrole.Strategy, nil),
		legacy("events.k8s.io/v1", "Event", "events", adapters.Namespaced, event.Strategy, nil),
		{apiVersion: "apiextensions.k8s.io/v1", kind: "CustomResourceDefinition", plural: "customresourcedefinitions", scope: adapters.Cluster,
			strategy: crd, status: customresourcedefinition.NewStatusStrategy(apiextensionsScheme),
			scheme: apiextensionsScheme, codecs: apiextensionsCodecs},
	}
}()

// requestContext is the context a registry strategy expects: the request's
// namespace and its request info.
func requestContext(k *kindInfo, namespace, name, verb, subresource string) context.Context {
	// What the server's code logs of a request (duplicate validation
	// errors, say) is the server's log, not the simulation's output.
	ctx := klog.NewContext(context.Background(), logr.Discard())
	ctx = withNamespace(ctx, namespace)
	return withRequestInfo(ctx, k, namespace, name, verb, subresource)
}

// decodeBuiltin decodes a JSON object into the kind's internal type,
// defaulted, as the server decodes a request body. A body the types
// cannot hold is the server's BadRequest.
func (b *builtinKind) decode(data []byte) (runtime.Object, error) {
	gvk := b.gvk()
	into, err := b.scheme.New(schema.GroupVersionKind{Group: b.internalGroup(), Version: runtime.APIVersionInternal, Kind: b.internalKind()})
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	obj, _, err := b.codecs.UniversalDecoder().Decode(data, &gvk, into)
	if err != nil {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v", gvk.Kind, gvk.Version, b.internalKind(), err))
	}
	return obj, nil
}

// internalGroup and internalKind name the internal type a kind decodes
// into: events.k8s.io Events are stored as core Events.
func (b *builtinKind) internalGroup() string {
	if b.apiVersion == "events.k8s.io/v1" {
		return ""
	}
	return b.gvk().Group
}

func (b *builtinKind) internalKind() string { return b.kind }

// encode renders an internal object in the kind's version, as the server
// answers.
func (b *builtinKind) encode(obj runtime.Object) ([]byte, error) {
	return runtime.Encode(b.codecs.LegacyCodec(b.gvk().GroupVersion()), obj)
}

// builtinServers serve the builtinKinds, one for every cluster.
var builtinServers = func() map[*builtinKind]server {
	m := map[*builtinKind]server{}
	for _, b := range builtinKinds {
		m[b] = &builtinServer{b: b}
	}
	return m
}()

// BuiltinKinds returns the apiVersion of each built-in kind every Cluster
// serves, by kind: the kinds a scenario may name without loading their
// definition.
func BuiltinKinds() map[string]string {
	out := make(map[string]string, len(builtinKinds))
	for _, b := range builtinKinds {
		out[b.kind] = b.apiVersion
	}
	return out
}
