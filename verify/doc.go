// Package verify explores a compiled machine exhaustively, within bounds,
// against an abstract environment, and reports unreached states, states an
// object can never leave, livelocks (repair fighting another actor with no
// bound), unbounded retries and violations of the properties the rule file
// declares. Every finding comes with a counterexample that can be written as
// a scenario file (scenario.go). The abstraction and its limits are in
// spec/language.md, "Verification".
package verify
