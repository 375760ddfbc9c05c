// Package controller runs compiled machines against a real API server: one
// rate-limited work queue of objects, dynamic informers for the kinds the
// machines drive (and, on demand, the kinds they observe) behind a cache
// that serves the engine's reads, engine.Drive for each object taken from
// the queue, wake-ups turned into delayed requeues, Events carrying each
// transition's reason through client-go's event broadcaster, metrics,
// shadow mode, optional sharding and leader election on a Lease. It keeps
// each object's last decisions, with the clause values that decided them,
// on the object (DecisionAnnotation, decisions.go), and hands every
// reconcile to an Observer (a flight recorder, package record) when asked.
//
// It decides nothing about a lifecycle: rule files decide, package engine
// steps them, package adapters/kube carries requests out. Nothing below it
// imports it; the command line (cmd/statecraft) runs it.
package controller
