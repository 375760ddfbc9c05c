// Package objpatch holds the domain computations of an ObjectPatch /
// ClusterObjectPatch: everything that can be said about a patch and a target
// object without talking to a cluster or looking at a clock.
//
// It owns:
//
//   - JSON Merge Patch semantics (RFC 7386): nested objects merge, null
//     removes a member, arrays replace the whole existing array.
//   - Selector operations (spec.jsonPatch): parsing, static validation
//     (Validate), and planning (Plan): evaluating each CEL selector against the
//     elements of the array addressed by the path prefix before "@", applying
//     add / remove / replace in declaration order, checking that selectors
//     remain true after every operation, and checking that the complete plan
//     replays on its own output without error or further change. A plan is
//     rendered as a merge patch plus an RFC 6902 JSON Patch with concrete
//     indices, each operation pinned by a preceding "test" operation.
//   - Drift detection (Satisfied): whether applying the plan would change the
//     target.
//   - Static claims (Claims, Conflicts, Arbitrate): which parts of a target a
//     patch owns, whether two patches overlap, and which of several patches on
//     one target win, oldest first.
//
// It leaves to its neighbours:
//
//   - Decisions. Which state a patch moves to, when to retry, when to repair
//     drift and which reason to report are written in rule files; the engine
//     exposes this package to them as CEL functions.
//   - Requests. Reading the target, dry-run and live patch requests, and
//     status writes are carried out by adapters.
//
// The package is pure: no client-go, no wall clock, no I/O, and every byte it
// returns is deterministic (object keys are sorted, never map-ordered).
//
// Values are unstructured JSON values as produced by encoding/json or by
// Kubernetes' unstructured decoding: map[string]any, []any, string, bool,
// nil, and numbers (float64, int64, other Go integer types and json.Number
// are accepted). Inputs are never modified. Numbers in results are int64
// when they are integral and exactly representable (|n| <= 2^53), float64
// otherwise; numeric comparison ignores that distinction.
package objpatch
