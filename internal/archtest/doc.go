// Package archtest holds tests about the shape of the code base itself:
// the layering of the packages (every import points down), the purity of
// the core (no client-go, no wall clock, no process-global state), and the
// conformance table's bookkeeping. It has no code of its own.
package archtest
