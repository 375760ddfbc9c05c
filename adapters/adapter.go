package adapters

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
)

// Ref names one object, or with an empty Name one kind in one namespace.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// Group returns the API group of the reference ("" for the core group).
func (r Ref) Group() string {
	if i := strings.Index(r.APIVersion, "/"); i >= 0 {
		return r.APIVersion[:i]
	}
	return ""
}

// Version returns the API version without its group.
func (r Ref) Version() string {
	if i := strings.Index(r.APIVersion, "/"); i >= 0 {
		return r.APIVersion[i+1:]
	}
	return r.APIVersion
}

// String renders the reference as kind/namespace/name, or kind/name when it
// has no namespace; used in traces.
func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Verb is what a Request asks the API server to do.
type Verb string

// The verbs a Request may carry.
const (
	Get    Verb = "get"
	List   Verb = "list"
	Create Verb = "create"
	Update Verb = "update"
	Patch  Verb = "patch"
	Delete Verb = "delete"
)

// PatchType selects the patch format of a Patch request.
type PatchType string

// The patch formats a Patch request may use.
const (
	MergePatch PatchType = "merge" // RFC 7386 JSON merge patch
	JSONPatch  PatchType = "json"  // RFC 6902 JSON patch
	ApplyPatch PatchType = "apply" // server-side apply
)

// Outcome is the classified result of one Request: the vocabulary the rule
// language routes on.
type Outcome string

// The outcomes every adapter must classify its results into.
const (
	OK          Outcome = "ok"
	NotFound    Outcome = "not_found"
	Forbidden   Outcome = "forbidden"   // Forbidden or Unauthorized
	Invalid     Outcome = "invalid"     // rejected by validation or admission
	Conflict    Outcome = "conflict"    // resourceVersion or field-manager conflict, AlreadyExists
	Transient   Outcome = "transient"   // 5xx, timeouts, throttling, dropped connections
	Unsupported Outcome = "unsupported" // unknown kind or version, or a scope mismatch
)

// Outcomes lists the adapter outcomes in a fixed order.
var Outcomes = []Outcome{OK, NotFound, Forbidden, Invalid, Conflict, Transient, Unsupported}

// Request is one call to the API server.
type Request struct {
	Verb        Verb
	Ref         Ref
	Subresource string    // "" or "status"
	PatchType   PatchType // for Patch
	// Body is the request's content as a canonical JSON value (package
	// jsonvalue: map[string]any, []any, string, bool, nil, int64, float64):
	// the object for Create and Update, the patch for Patch (an object for
	// a merge patch or an applied configuration, a list of operations for
	// a JSON patch). The caller must not change it while the request is
	// carried out; the API must neither change it nor keep it.
	Body   any
	DryRun bool
	// Identity, when set, is the user the request impersonates; empty means the
	// engine's own service account.
	Identity      string
	FieldManager  string
	Force         bool   // server-side apply: take ownership of conflicting fields
	LabelSelector string // for List
	// Propagation is the deletion propagation policy: "Foreground",
	// "Background" (default) or "Orphan".
	Propagation string
}

// Payload returns the request's Body encoded as JSON (nil without a body).
func (r Request) Payload() ([]byte, error) {
	switch r.Body.(type) {
	case nil:
		return nil, nil
	case []byte, json.RawMessage:
		return nil, errors.New("the request body is JSON text, not a JSON value")
	}
	return json.Marshal(r.Body)
}

// Result is the answer to one Request. Object and Items are canonical JSON
// values (package jsonvalue) that the API may share with other readers:
// the caller must not change them.
type Result struct {
	Outcome Outcome
	Object  map[string]any   // the object after the request (Get, Create, Update, Patch)
	Items   []map[string]any // for List, sorted by namespace then name
	Message string           // the server's message for a non-OK outcome
}

// Scope says whether a kind is namespaced, cluster-scoped or unknown.
type Scope string

// The scopes discovery may report.
const (
	Namespaced Scope = "Namespaced"
	Cluster    Scope = "Cluster"
	Unknown    Scope = ""
)

// API is a Kubernetes API as the engine sees it. Implementations must be safe
// for concurrent use and must classify every failure into an Outcome: an API
// failure is a Result, never a panic and never a silent drop.
type API interface {
	// Do carries out one request.
	Do(ctx context.Context, req Request) Result
	// Scope reports how apiVersion/kind is served, Unknown when discovery does
	// not know it.
	Scope(ctx context.Context, apiVersion, kind string) Scope
}
