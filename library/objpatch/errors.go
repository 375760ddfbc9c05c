package objpatch

import "fmt"

// Error is a validation or planning error. Index is the position of the
// offending operation in spec.jsonPatch, or -1 when the error concerns the
// merge patch or the patch as a whole. Field names the offending field of
// that operation ("op", "path", "selector", "matchPolicy", "value"), or, when
// Index is -1, a field path such as "patch", "patch.metadata" or "jsonPatch".
type Error struct {
	Index   int
	Field   string
	Message string
}

// Error renders the error as "jsonPatch[2].path: message" for an
// operation, or "patch: message" otherwise.
func (e *Error) Error() string {
	switch {
	case e.Index >= 0 && e.Field != "":
		return fmt.Sprintf("jsonPatch[%d].%s: %s", e.Index, e.Field, e.Message)
	case e.Index >= 0:
		return fmt.Sprintf("jsonPatch[%d]: %s", e.Index, e.Message)
	case e.Field != "":
		return e.Field + ": " + e.Message
	default:
		return e.Message
	}
}

func opErr(i int, field, format string, args ...any) *Error {
	return &Error{Index: i, Field: field, Message: fmt.Sprintf(format, args...)}
}
