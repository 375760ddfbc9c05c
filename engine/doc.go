// Package engine executes compiled Machines. It owns deciding: which
// transition fires for an object in what it observed at a given time, what
// requests the transition's actions make, which route their outcomes take,
// what the object's new status is, and when it must be looked at again.
//
// Step is pure: from a Snapshot (the object, what was observed, and the
// time) it returns a Decision, plain data. A Reconciliation is one reconcile
// of one object as a state machine without I/O: Ready says what it needs
// next (the object, reads, an action's request, the closing status write)
// or that it is done, with a trace of what happened (steps, fired
// transitions, problems); Deliver hands the outcome back. Drive is the small
// loop that carries a Reconciliation out on an adapters.API; the simulation
// runner, the verifier and the controller all use it. Certify says of a rest
// what it depended on and until when it holds, so that a runner that can see
// nothing changed may skip stepping it; Step uses the same certificate to
// answer a rest again, for the same frozen inputs, without evaluating its
// guards (again.go). Explain and ClauseValues re-evaluate
// a step's guards clause by clause, for people and for coverage.
//
// The engine never imports client-go, never reads the wall clock and never
// sleeps: time is an input and wake-ups are returned. It leaves the rule
// language to package rules, compiling and type-checking to package fsm, the
// computations rules call (merge patches, claims, revisions) to package
// library, and carrying requests out to the adapters.
package engine
