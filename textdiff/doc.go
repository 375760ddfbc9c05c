// Package textdiff compares texts line by line for people: golden traces
// with the traces a run printed, and two runs of one scenario under two
// versions of its rules. It knows nothing of what the lines mean.
package textdiff
