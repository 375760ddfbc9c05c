// Package library holds the CEL functions that rule files call for domain
// computations that are not decisions: applying and planning merge patches
// and selector operations, claims, revisions and template hashes, versions
// and windows, backoffs, naming an object. It also owns the conversion of
// values between Go's unstructured JSON and CEL, and what the functions
// remember for a run (Memory: plans, claims and verdicts by the content they
// read, compiled probe expressions), which fsm.Compile hands it.
//
// What each function computes is a fact about its inputs: rollout.resolve
// renders a revision's objects and reports what each object and phase says
// of collision protection; rollout.observe sets each object beside its live
// copy (who controls it, which revision, whether it is in sync, the
// manifest a handoff would apply); rollout.probe evaluates the author's
// progression probes; objpatch.arbitrate applies claims arbitration in the
// order the rule file gives it. Results are typed (types.go): a misspelled
// field of one (rollout.probe(o, p).redy, upgrade.version(v).minr) is a
// compile error.
//
// It decides nothing: the precedence of ownership relations, a phase's
// completion, the default readiness of each kind, the order of a teardown,
// collision protection's default and the order claims are arbitrated in
// are in the rule files. Rule files decide,
// package fsm compiles expressions against EnvOptions, and package engine
// evaluates them. The merge-patch, selector-operation and claims
// computations themselves are library/objpatch's.
//
// The upgrade functions (upgrade.go) compute facts about release versions,
// daily windows and Leases:
//
//   - upgrade.version(s): the fields of a release version, with or without a
//     leading "v": {ok, major, minor, patch, pre, final, minorString};
//   - upgrade.minor(s): "MAJOR.MINOR" of a version (a bare minor is itself),
//     "" when it does not parse;
//   - upgrade.compare(a, b): -1, 0 or 1 by semantic-versioning precedence;
//   - upgrade.isPatchStep(from, to): to is a newer final release of from's
//     minor;
//   - upgrade.validWindow(w): w is a daily UTC window HH:MM-HH:MM that does
//     not start where it ends;
//   - upgrade.inWindow(w, t): t, in UTC, is inside the daily window w (its
//     start inside, its end not; a window may wrap midnight);
//   - upgrade.leaseExpiry(lease): when a Lease runs out (renewTime, else
//     acquireTime, plus leaseDurationSeconds), none when it says no end.
//
// Which versions are candidates and which one is started, what an unset
// window means and when a Lease counts as held are the rule file's
// (rules/policies/autopatch.hcl).
package library
