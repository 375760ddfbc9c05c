// Package fsm compiles the source model of package rules into Machines:
// immutable, shared values holding the states, the transitions of each state
// in declaration order, one looplab/fsm event per route, and every CEL
// expression compiled once and type-checked against the machine's variables.
//
// It also owns the static analysis of a machine and its renderings as text
// (a transition table, Mermaid, DOT). It does no I/O and evaluates nothing at
// compile time beyond literals; package engine executes Machines.
package fsm
