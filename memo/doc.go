// Package memo remembers the results of pure computations for one run of
// the engine: a Table maps a key that identifies a computation's inputs
// exactly (content fingerprints of what it reads) to its result. A table is
// bounded and forgotten wholesale when full; it never changes a result,
// only how often it is computed. Tables belong to whoever makes them (a
// compiled machine's Memory, a simulation run, a controller): there is no
// process-global memo.
package memo
