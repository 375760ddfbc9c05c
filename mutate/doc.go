// Package mutate measures what a scenario suite would catch: it makes
// mutants of the rule files the suite loads, each one small change that a
// wrong rule could make (a comparison's boundary moved, a clause or an
// assignment dropped, a constant or a param default moved across its
// boundary, two transitions swapped; Kinds lists them), and runs the suite
// against each. A mutant is killed when a scenario that loads its machine
// fails an expect block, or stops with an error; one that changes only
// golden trace text is reported apart (TraceOnly), since a golden file is
// rewritten with --update while an expectation says what must hold.
//
// Mutants are made on the syntax trees, not on text: the HCL structure with
// hclsyntax (blocks, attributes, object items, each with its byte range) and
// every CEL expression with cel-go's own ANTLR parser, whose concrete syntax
// tree knows the tokens of each operator, literal and operand, so that a
// mutant replaces exactly them and stays well-formed (each mutated
// expression is parsed again to make sure). The rules package maps CEL
// offsets back into the file, escapes included.
//
// A run is deterministic: the same suite and rule files give the same
// report, byte for byte, whatever the machine's speed or the number of
// jobs (unless a wall-time budget runs out). It is fast where it can be
// without changing a verdict: the unmutated machines are compiled once and
// shared; a mutant's machine is compiled once per set of param overrides;
// only the scenarios that load the mutated machine run, those that tried
// what the mutant changes first (what each scenario exercises is recorded
// by running it once unmutated), and a mutant stops at its first kill; a
// scenario whose unmutated run never tried the mutated transition (or never
// was in the mutated state) cannot be changed by the mutant and is not run;
// mutants run concurrently; a run that never settles is stopped after a
// number of wake-ups (scenario.Options.MaxWakeups), not after a time.
//
// What it leaves to its neighbours: loading and running scenarios is
// package scenario's; loading and compiling rule files is rules' and fsm's;
// the command line (statecraft test --mutate) is cmd/statecraft's.
package mutate
