package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// A server is how the API server serves one kind: the decoding and
// defaulting of what a request would store, the kind's registry strategy
// (what create and update prepare and validate, generation included) and
// its field managers. Built-in kinds are served by kube-apiserver's own
// code (builtinServer), custom resources by apiextensions-apiserver's
// (customServer), both compiled once per kind and kept.
type server interface {
	// prepare turns what a request would store (its body, or the result
	// of its patch) into the object the server stores, or refuses it: the
	// kind's decoding and defaulting, then the create strategy (old nil)
	// or the update strategy of the subresource, validation included. It
	// changes neither obj nor old (both may be shared with stored objects)
	// and returns a new canonical object. oldCache is where a server may
	// keep what it made of old for the next write (nil: keep nothing).
	// With shortcuts, a write of a shape the shortcuts cover is answered
	// by them (see fast.go). generated says the create's name was
	// generated from metadata.generateName.
	prepare(ctx func() context.Context, obj, old map[string]any, subresource string, oldCache *any, shortcuts, generated bool) (map[string]any, error)
	// defaults returns obj decoded and defaulted, without a strategy: what
	// the server makes of the result of a server-side apply.
	defaults(obj map[string]any) (map[string]any, error)
	// unconditionalUpdate reports whether an update without
	// metadata.resourceVersion is allowed.
	unconditionalUpdate() bool
	// createOnUpdate reports whether an update of an object that does not
	// exist creates it (the strategy's AllowCreateOnUpdate: Leases,
	// Events).
	createOnUpdate() bool
	// hasStatus reports whether the kind has a status subresource.
	hasStatus() bool
	// empty is a new object of the kind as the server renders it (its
	// NewFunc's, encoded): what a few answers of the registry store are.
	empty(k *kindInfo) map[string]any
	// gcPolicy is the kind's default garbage collection policy, its
	// registry strategy's (DefaultGarbageCollectionPolicy): what a delete
	// without a propagation policy does, or Unsupported (no propagation
	// at all). ctx is the delete's request context.
	gcPolicy(ctx context.Context) rest.GarbageCollectionPolicy
	// fields returns the kind's field manager for a subresource.
	fields(subresource string) (*fieldOwner, error)
}

// withNamespace and withRequestInfo give a strategy the request context
// it reads.
func withNamespace(ctx context.Context, ns string) context.Context {
	return request.WithNamespace(ctx, ns)
}

func withRequestInfo(ctx context.Context, k *kindInfo, namespace, name, verb, subresource string) context.Context {
	return request.WithRequestInfo(ctx, &request.RequestInfo{
		IsResourceRequest: true, Verb: verb,
		APIGroup: k.group(), APIVersion: adapters.Ref{APIVersion: k.apiVersion}.Version(),
		Namespace: namespace, Resource: k.plural(), Subresource: subresource, Name: name,
	})
}

// builtinServer serves a built-in kind.
type builtinServer struct {
	b        *builtinKind
	managers managerCache
}

func (s *builtinServer) hasStatus() bool { return s.b.status != nil }
func (s *builtinServer) empty(k *kindInfo) map[string]any {
	in, err := s.b.scheme.New(schema.GroupVersionKind{Group: s.b.internalGroup(), Version: runtime.APIVersionInternal, Kind: s.b.internalKind()})
	if err == nil {
		if out, err := s.external(in); err == nil {
			return out
		}
	}
	return map[string]any{"apiVersion": k.apiVersion, "kind": k.kind, "metadata": map[string]any{}}
}

func (s *builtinServer) createOnUpdate() bool {
	return s.b.strategy.AllowCreateOnUpdate(context.Background())
}
func (s *builtinServer) gcPolicy(ctx context.Context) rest.GarbageCollectionPolicy {
	if gc, ok := s.b.strategy.(rest.GarbageCollectionDeleteStrategy); ok {
		return gc.DefaultGarbageCollectionPolicy(ctx)
	}
	return rest.DeleteDependents
}
func (s *builtinServer) unconditionalUpdate() bool {
	return s.b.strategy.AllowUnconditionalUpdate(context.Background())
}

func (s *builtinServer) internal(obj map[string]any) (runtime.Object, error) {
	data, err := encodeJSON(obj)
	if err != nil {
		return nil, apierrors.NewBadRequest(err.Error())
	}
	return s.b.decode(data)
}

func (s *builtinServer) external(obj runtime.Object) (map[string]any, error) {
	data, err := s.b.encode(obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	out, err := decodeObject(data)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}

func (s *builtinServer) defaults(obj map[string]any) (map[string]any, error) {
	in, err := s.internal(obj)
	if err != nil {
		return nil, err
	}
	return s.external(in)
}

func (s *builtinServer) prepare(ctx func() context.Context, obj, old map[string]any, subresource string, oldCache *any, shortcuts, generated bool) (map[string]any, error) {
	if old != nil && shortcuts && subresource == "" {
		if out, ok := labelsOnly(s.b.apiVersion == "v1" && s.b.kind == "Namespace", obj, old); ok {
			return out, nil
		}
	}
	in, err := s.internal(obj)
	if err != nil {
		return nil, err
	}
	if generated {
		// A create whose name is generated is prepared on a copy of
		// the decoded object (the registry store's
		// createWithGenerateNameRetry, which may try again with
		// another name), so what defaulting aliased is apart again: a
		// Job's labels, taken from its template's, do not get the
		// selector labels the strategy adds to the template; in any
		// other write they do.
		in = in.DeepCopyObject()
	}
	if old == nil {
		if err := rest.BeforeCreate(s.b.strategy, ctx(), in); err != nil {
			return nil, err
		}
		return s.stored(in)
	}
	var oldIn runtime.Object
	if oldCache != nil {
		oldIn, _ = (*oldCache).(runtime.Object)
	}
	if oldIn == nil {
		if oldIn, err = s.internal(old); err != nil {
			return nil, err
		}
		if oldCache != nil {
			*oldCache = oldIn
		}
	}
	var st rest.RESTUpdateStrategy = s.b.strategy
	switch subresource {
	case "status":
		st = s.b.status
	case "finalize":
		st = s.b.finalize
	}
	// BeforeUpdate changes only the new object; the kept old one is
	// handed to every later write, so it gets a copy to be safe.
	if err := rest.BeforeUpdate(st, ctx(), in, oldIn.DeepCopyObject()); err != nil {
		return nil, err
	}
	return s.stored(in)
}

// stored renders a prepared object as the server answers a write: as its
// storage decodes what it stored, defaulted again (so a default that
// reads what the strategy set follows it: a Job without labels gets its
// template's, the strategy's selector labels included).
func (s *builtinServer) stored(in runtime.Object) (map[string]any, error) {
	gv := s.b.gvk().GroupVersion()
	out, err := runtime.UnsafeObjectConvertor(s.b.scheme).ConvertToVersion(in, gv)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	s.b.scheme.Default(out)
	return s.external(out)
}

func (s *builtinServer) fields(subresource string) (*fieldOwner, error) {
	return s.managers.get(subresource, func() (*fieldOwner, error) {
		var resets rest.ResetFieldsStrategy
		if subresource == "status" {
			resets, _ = s.b.status.(rest.ResetFieldsStrategy)
		} else {
			resets, _ = s.b.strategy.(rest.ResetFieldsStrategy)
		}
		types := builtinTypes()
		if s.b.scheme == apiextensionsScheme {
			// client-go carries no schema for CustomResourceDefinitions:
			// their lists merge atomically here.
			types = managedfields.NewDeducedTypeConverter()
		}
		return newFieldManager(types, s.b.gvk(), subresource, resets, s)
	})
}

// encodeJSON renders a canonical value as JSON.
func encodeJSON(obj map[string]any) ([]byte, error) {
	return json.Marshal(obj)
}

// statusError classifies an error of the server's code as an outcome with
// the server's message.
func statusError(err error) adapters.Result {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return fail(adapters.Transient, "Internal error occurred: %v", err)
	}
	st := se.Status()
	st.Message = sortedCauses(st)
	switch st.Reason {
	case metav1.StatusReasonNotFound:
		return fail(adapters.NotFound, "%s", st.Message)
	case metav1.StatusReasonForbidden, metav1.StatusReasonUnauthorized:
		return fail(adapters.Forbidden, "%s", st.Message)
	case metav1.StatusReasonInvalid, metav1.StatusReasonBadRequest, metav1.StatusReasonRequestEntityTooLarge:
		return fail(adapters.Invalid, "%s", st.Message)
	case metav1.StatusReasonConflict, metav1.StatusReasonAlreadyExists:
		return fail(adapters.Conflict, "%s", st.Message)
	case metav1.StatusReasonMethodNotAllowed:
		return fail(adapters.Unsupported, "%s", st.Message)
	}
	switch {
	case st.Code == http.StatusNotFound:
		return fail(adapters.NotFound, "%s", st.Message)
	case st.Code >= 500:
		return fail(adapters.Transient, "%s", st.Message)
	}
	return fail(adapters.Invalid, "%s", st.Message)
}

// unstructuredOf wraps a canonical object for the server's code.
func unstructuredOf(obj map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: obj}
}

// gvkOf is the kind of a kindInfo as the server's code names it.
func gvkOf(k *kindInfo) schema.GroupVersionKind {
	return schema.FromAPIVersionAndKind(k.apiVersion, k.kind)
}

// canonical returns v (a value the server's code made: it may hold
// float64 for integers, []interface{} and so on) in canonical form.
func canonical(v map[string]any) (map[string]any, error) {
	n, err := jsonvalue.Normalize(v)
	if err != nil {
		return nil, fmt.Errorf("the server's result is not a JSON object: %v", err)
	}
	return n.(map[string]any), nil
}

// sortedCauses returns the message of an Invalid status with its causes in
// a fixed order. The server lists them in the order its validators found
// them, which for an object's fields is map order: any order is one the
// server may answer, and the simulator answers one, the same every time:
// by field and message, the causes of no field (a rule not checked
// because of the others) last, as the server puts them.
func sortedCauses(st metav1.Status) string {
	if st.Reason != metav1.StatusReasonInvalid || st.Details == nil || len(st.Details.Causes) < 2 {
		return st.Message
	}
	causes := append([]metav1.StatusCause(nil), st.Details.Causes...)
	sort.SliceStable(causes, func(i, j int) bool {
		ni, nj := causes[i].Field == "<nil>" || causes[i].Field == "", causes[j].Field == "<nil>" || causes[j].Field == ""
		if ni != nj {
			return nj
		}
		if causes[i].Field != causes[j].Field {
			return causes[i].Field < causes[j].Field
		}
		return causes[i].Message < causes[j].Message
	})
	var parts []string
	seen := map[string]bool{}
	for _, c := range causes {
		text := c.Field + ": " + c.Message
		if c.Field == "" {
			text = c.Message
		}
		if !seen[text] {
			seen[text] = true
			parts = append(parts, text)
		}
	}
	kind := schema.GroupKind{Group: st.Details.Group, Kind: st.Details.Kind}.String()
	list := parts[0]
	if len(parts) > 1 {
		list = "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprintf("%s %q is invalid: %s", kind, st.Details.Name, list)
}
