// Package library holds the CEL functions that rule files call for domain
// computations that are not decisions: applying and planning merge patches
// and selector operations, claims, revisions and template hashes, versions
// and windows, backoffs, naming an object. It also owns the conversion of
// values between Go's unstructured JSON and CEL, and what the functions
// remember for a run (Memory: plans, claims and verdicts by the content they
// read, compiled probe expressions), which fsm.Compile hands it.
//
// What each function computes is a fact about its inputs: rollout.resolve
// renders a revision's objects and reports what each object and phase says
// of collision protection; rollout.observe sets each object beside its live
// copy (who controls it, which revision, whether it is in sync, the
// manifest a handoff would apply); rollout.probe evaluates the author's
// progression probes. Results are typed (types.go): a misspelled field of
// one is a compile error.
//
// It decides nothing: the precedence of ownership relations, a phase's
// completion, the default readiness of each kind, the order of a teardown,
// collision protection's default are in the rule files. Rule files decide,
// package fsm compiles expressions against EnvOptions, and package engine
// evaluates them. The merge-patch, selector-operation and claims
// computations themselves are library/objpatch's.
package library
