package rules

import (
	"github.com/hashicorp/hcl/v2"
)

// File is one loaded rule file.
type File struct {
	Filename string
	Machines []*Machine
}

// Machine is the source model of one machine block: everything a reader sees
// in the rule file, in declaration order, with the range of every element.
type Machine struct {
	Name        string
	Description string
	// StateField is the status field that holds the current state
	// (default "state").
	StateField string
	// MaxSteps bounds the micro-steps of one reconcile (default 16).
	MaxSteps int
	// MemoryIn is where the machine keeps its memory (the map rules read
	// as status): "status" (default: the driven object's status),
	// "annotation" (JSON in the annotation MemoryKey of the driven
	// object) or "companion" (JSON in a ConfigMap the driven object owns,
	// in its namespace or, for a cluster-scoped kind, MemoryNamespace).
	MemoryIn        string
	MemoryKey       string
	MemoryNamespace string
	MemoryRange     hcl.Range
	// EventController is the reportingController of the machine's Events
	// (default "statecraft.dev/engine"); an event action's controller
	// overrides it.
	EventController string

	Resources   []*Resource
	Params      []*Param
	Observes    []*Observe
	Lets        []*Let
	Functions   []*Function
	States      []*State
	Transitions []*Transition
	// Properties are what statecraft verify checks besides its own
	// findings (spec/language.md, "Verification").
	Properties []*Property
	// Accepts are the findings of statecraft verify the rules mean to
	// have, each with its reason (accept.go).
	Accepts []*Accept

	DeclRange hcl.Range // the block header
	NameRange hcl.Range
}

// Resource binds the machine to one custom resource kind.
type Resource struct {
	APIVersion string
	Kind       string
	Scope      string // "Namespaced" or "Cluster"
	// Schema, when set, names a CRD manifest whose OpenAPI schema types
	// `self`: a path relative to the rule file, or "crd:FILE" for a CRD
	// statecraft ships (spec/crds).
	Schema string
	// SchemaSource is the manifest's bytes, read when the file is loaded.
	SchemaSource []byte
	SchemaRange  hcl.Range

	DeclRange hcl.Range
}

// Param is a tunable value with a type, a literal default and an optional
// per-object override read from the CR.
type Param struct {
	Name string
	Type string // duration, int, string, bool
	// Default is the literal default, as written.
	Default      any
	DefaultRange hcl.Range
	// Override is a dotted field path in the CR (e.g. spec.requeueInterval)
	// whose value, when present, replaces the default.
	Override      string
	OverrideRange hcl.Range
	// Valid is a CEL bool over `value` that every effective value must pass.
	Valid *Expr
	// Reason is the status reason written when an override is invalid.
	Reason string

	DeclRange hcl.Range
}

// Observe is something the engine reads from the cluster before each step.
type Observe struct {
	Name string
	// Get is a CEL expression giving a reference map {apiVersion, kind,
	// namespace, name}; the observation is that object.
	Get *Expr
	// List is a CEL expression giving {apiVersion, kind, namespace,
	// labelSelector}; the observation is the matching objects.
	List *Expr
	// When, if set, limits the read to steps where it is true.
	When *Expr
	// ForEach, when set, is a CEL list: one read per element, bound as
	// item (and its position as index) in Get or List; the observation is
	// then the list of their results.
	ForEach *Expr

	DeclRange hcl.Range
}

// Function is a reusable, parameterised CEL expression: a call
// NAME(a, b) in any expression of the machine stands for Value with its
// Params replaced by the arguments (it is expanded where it is called).
type Function struct {
	Name   string
	Params []string
	Value  *Expr

	DeclRange hcl.Range
}

// Let names a CEL value computed from the inputs, evaluated on first use.
type Let struct {
	Name  string
	Value *Expr

	DeclRange hcl.Range
}

// State is one state of the machine.
type State struct {
	Name    string
	Initial bool
	Final   bool
	// Outcome is written to status.outcome while in this state ("" removes it).
	Outcome string
	// Conditions are the condition statuses ("True", "False", "Unknown")
	// this state sets, by condition type, in declaration order.
	Conditions []Assignment
	// Computed are the condition blocks: conditions with their own status,
	// reason and message expressions, set after Conditions.
	Computed []*Condition
	// Recheck is a CEL duration (relative to now) or timestamp at which an
	// object resting in this state is stepped again.
	Recheck *Expr
	// Jitter is a CEL duration: each recheck comes up to this much later,
	// by an offset fixed by the object and the recheck's time.
	Jitter *Expr
	// Set assigns status fields on every entry into the state, before the
	// route's own set (which wins).
	Set []Assignment

	DeclRange hcl.Range
}

// Transition is one rule: from some states, when a guard holds, run actions
// and move to a state.
type Transition struct {
	Name string
	// From lists state names; "*" stands for every state.
	From      []string
	FromRange hcl.Range
	When      *Expr // nil means always
	Actions   []*Action
	// Done is the route taken when every action ends ok (or there are none).
	Done   *Route
	Routes []*Route

	DeclRange hcl.Range
}

// Action is one request the transition makes, in order.
type Action struct {
	Name string
	Verb string // get, create, update, patch, apply, delete, status
	// Target is a CEL reference map of the object acted on.
	Target *Expr
	// Body is a CEL value: the patch, or the object to create or update.
	Body      *Expr
	PatchType string // merge (default) or json, for patch
	DryRun    bool
	// Identity is a CEL string naming the user to impersonate.
	Identity *Expr
	// Expect is a CEL bool over `result`; false turns an ok into the domain
	// outcome "not_retained".
	Expect *Expr
	// Propagation is the deletion propagation policy for delete.
	Propagation string
	// ForEach, when set, is a CEL list: the action makes one request per
	// element, in order, with the element bound as item and its position
	// as index. The action ends ok when every request did, else in the
	// first other outcome.
	ForEach *Expr
	// When, if set, is a CEL bool: when false the action is skipped and
	// counts as ok, sending nothing.
	When *Expr
	// BestEffort actions never change the route: an outcome other than ok
	// is recorded and the transition goes on as if the action had ended
	// ok. Event actions are best effort unless they say otherwise.
	BestEffort bool
	// Event is set for the event verb: the Event the action records.
	Event *EventSpec

	DeclRange hcl.Range
}

// EventSpec is what an event action records: an events.k8s.io/v1 Event
// about an object (regarding, by default the object reconciled).
type EventSpec struct {
	Type      string // Normal or Warning
	Reason    string
	Action    string // the Event's action; default: the do block's name
	Note      *Expr  // CEL string (the message attribute)
	Regarding *Expr  // CEL reference map; nil: ref(self)
	Related   *Expr  // CEL reference map, optional
	// Name, when set, is a CEL string naming the Event; by default it is
	// the regarding object's name and the time, as client-go names Events.
	Name *Expr
	// Controller and Instance are the Event's reportingController and
	// reportingInstance.
	Controller, Instance string
}

// Route sends an action outcome (or a transition's success) to a state.
type Route struct {
	// Action and Outcome select what this route handles; "*" matches any.
	// Both are empty for a transition's own success route.
	Action  string
	Outcome string
	When    *Expr // optional extra guard, evaluated with `last` bound
	// To is the destination state; empty means the object stays in the
	// state it is in.
	To      string
	ToRange hcl.Range
	// Reason is the status reason, a literal name; or, when Reasons is
	// set, ReasonExpr computes it (a CEL string that must be one of
	// Reasons, the declared set every tool lists).
	Reason     string
	ReasonExpr *Expr
	Reasons    []string
	Message    *Expr
	Set        []Assignment
	// Conditions set condition statuses on top of the destination state's.
	Conditions []Assignment
	// Computed are the route's condition blocks, set after the destination
	// state's.
	Computed []*Condition
	After    *Expr // CEL duration: wait this long before stepping again
	At       *Expr // CEL timestamp: wait until then

	// Inherited lists what an on route took from its transition's own
	// route (to, reason, set) because it does not say otherwise.
	Inherited []string

	DeclRange hcl.Range
}

// ReasonNames returns the reasons the route can write: its literal reason,
// or its declared set; none when it keeps the status's reason.
func (r *Route) ReasonNames() []string {
	if r.ReasonExpr != nil {
		return r.Reasons
	}
	if r.Reason != "" {
		return []string{r.Reason}
	}
	return nil
}

// HasReason reports whether the route writes a reason.
func (r *Route) HasReason() bool { return r.Reason != "" || r.ReasonExpr != nil }

// Condition is a metav1.Condition-shaped status condition computed by CEL:
// Status gives "True", "False" or "Unknown"; Reason and Message default to
// the route's reason and message.
type Condition struct {
	Type    string
	Status  *Expr
	Reason  *Expr
	Message *Expr

	DeclRange hcl.Range
}

// Assignment sets one status field (a dotted path) to a CEL value, or, in a
// state's conditions, a condition type to a literal status.
type Assignment struct {
	Path  string
	Value *Expr  // CEL, for set
	Lit   string // literal, for conditions
	Range hcl.Range
}

// Expr is a CEL expression written in a rule file. Source is the text CEL
// parses; Pos maps an offset into Source back to the rule file.
type Expr struct {
	Source string
	Range  hcl.Range // the range of the whole attribute value
	// offsets[i] is the byte offset in the file of Source[i].
	offsets []int
	file    *sourceFile
}

// Pos returns the position in the rule file of byte offset off of Source.
func (e *Expr) Pos(off int) hcl.Pos {
	if e == nil || e.file == nil || len(e.offsets) == 0 {
		if e != nil {
			return e.Range.Start
		}
		return hcl.Pos{}
	}
	if off < 0 {
		off = 0
	}
	if off >= len(e.offsets) {
		off = len(e.offsets) - 1
	}
	return e.file.pos(e.offsets[off])
}

// RangeAt returns a range of n bytes of Source starting at off, in the file.
func (e *Expr) RangeAt(off, n int) hcl.Range {
	if e == nil {
		return hcl.Range{}
	}
	start := e.Pos(off)
	end := start
	if n > 0 {
		end = e.Pos(off + n - 1)
		end.Column++
		end.Byte++
	}
	return hcl.Range{Filename: e.Range.Filename, Start: start, End: end}
}

// Property is a claim about every run of the machine that statecraft verify
// checks against its abstract environment.
type Property struct {
	Name string
	// Eventually: left alone (only time passes, every request succeeds),
	// an object always comes to one of these states.
	Eventually []string
	// ExceptReasons excuses an object that rests, or cycles, with one of
	// these status reasons (waiting for something only the world can do).
	ExceptReasons []string
	// NeverWrites and NeverWindow: never this many write requests to
	// other objects within this window of virtual time (0: no claim).
	NeverWrites int
	NeverWindow string

	DeclRange hcl.Range
}
