// Package scenario owns the scenario language and the simulation runner: a
// scenario names rule files, starting objects, timed events and timed
// expectations; Run plays it on an adapters/sim cluster with a virtual clock,
// calling engine.Reconcile when an object changes or asks to be woken, and
// returns a trace (one line per transition, API write and world event) and
// the expectations that failed. Rechecks of objects certified to rest again
// are skipped while nothing they read changed (rest.go); the trace is the
// same either way.
//
// Everything it prints is deterministic: virtual time, no map order, seeded
// randomness. Decisions stay in rule files; the simulated API stays in
// adapters/sim.
package scenario
