// Package library holds the CEL functions that rule files call for domain
// computations that are not decisions: applying and planning merge patches
// and selector operations, claims, revisions and template hashes, versions
// and windows, backoffs, naming an object. It also owns the conversion of
// values between Go's unstructured JSON and CEL, and what the functions
// remember for a run (Memory: plans, claims and verdicts by the content they
// read, compiled probe expressions), which fsm.Compile hands it.
//
// It decides nothing: rule files decide, package fsm compiles expressions
// against EnvOptions, and package engine evaluates them. The merge-patch,
// selector-operation and claims computations themselves are
// library/objpatch's.
package library
