// Package engine executes compiled Machines. Step is pure: from a Snapshot
// (the object, what was observed, and the time) it decides which transition
// fires and what requests its actions make; Resolve routes the actions'
// outcomes to a state and computes the new status. Reconcile alternates Step
// with an adapters.API until the object comes to rest, writes status once,
// and returns when it must be woken again (its state's recheck, delayed by
// its jitter). Certify says of a rest what it depended on and until when it
// holds, so that a runner that can see nothing changed may skip stepping it.
//
// The engine never imports client-go, never reads the wall clock and never
// sleeps: time is an input and wake-ups are returned. Rule files decide;
// package fsm compiles them; adapters carry requests out.
package engine
