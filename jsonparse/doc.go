// Package jsonparse decodes JSON into unstructured Go values in one pass:
// objects as map[string]any, arrays as []any, integers without a '.' or an
// exponent that fit in an int64 as int64, other numbers as float64, with
// the string unescaping and replacement of invalid UTF-8 of encoding/json,
// exactly as sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts does
// (FuzzParse holds it to that). Keys that recur in Kubernetes objects are
// interned, and a Kubernetes object's managedFields may be skipped while
// decoding. It also frames and splits JSON without building values (Skip,
// Members). It knows nothing of the API that sent the bytes.
package jsonparse
