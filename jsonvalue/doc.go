// Package jsonvalue is the one toolkit for unstructured JSON values
// (map[string]any, []any, string, bool, nil, int64, float64) that the
// adapters, the engine, the patch planner and the CEL library share:
// normalizing to canonical values, copying, comparing by value, RFC 7386
// merge patches and diffs, canonical encoding, field paths (dotted and JSON
// Pointer, Lookup), fixed-seed fingerprints (Hash), and the registry of a
// run's frozen values (Registry), which answers questions about a value its
// owner promised never to change without walking it again. It is pure and
// deterministic, and keeps no process-global state. It leaves parsing JSON
// text to package jsonparse and what the values mean to its users.
package jsonvalue
