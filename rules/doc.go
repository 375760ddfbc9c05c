// Package rules owns the rule language's syntax: it parses HCL rule files and
// decodes them into a source model (Machine, State, Transition, Action, Route,
// Param, Observe, Let) that keeps the hcl.Range of every element, and reports
// every authoring error as an hcl.Diagnostic with file, line and column.
//
// CEL expressions are carried as text (Expr) together with a map from each of
// their bytes back to the rule file, so that the compiler in package fsm can
// report a CEL error at its own column. This package evaluates nothing: types,
// CEL checking and graph analysis belong to fsm; execution belongs to engine.
package rules
