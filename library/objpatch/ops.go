package objpatch

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/statecraft/statecraft/jsonvalue"
)

// Operation kinds and match policies accepted in spec.jsonPatch.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"

	MatchExactlyOne = "ExactlyOne"
	MatchAll        = "All"
)

// Limits enforced by Validate (and by the CRD schema).
const (
	MaxOps            = 100
	MaxPathLength     = 1024
	MaxSelectorLength = 1024
)

// Op is one selector-aware operation of spec.jsonPatch.
type Op struct {
	Op          string // "add", "remove" or "replace"
	Path        string // RFC 6901 pointer with exactly one "@" segment
	Selector    string // CEL bool expression over item
	MatchPolicy string // "", "ExactlyOne" or "All"; "" means ExactlyOne
	Value       any    // the value for add / replace
	HasValue    bool   // whether "value" was present (even as null)
}

// policy returns the effective match policy.
func (o Op) policy() string {
	if o.MatchPolicy == "" {
		return MatchExactlyOne
	}
	return o.MatchPolicy
}

// ParseOps decodes spec.jsonPatch (a []any of objects, as decoded from JSON)
// into operations. nil yields no operations. Unknown fields and fields of
// the wrong JSON type are errors; semantic checks are left to Validate.
func ParseOps(raw any) ([]Op, error) {
	var items []any
	switch t := raw.(type) {
	case nil:
		return nil, nil
	case []any:
		items = t
	case []map[string]any:
		items = make([]any, len(t))
		for i := range t {
			items[i] = t[i]
		}
	default:
		return nil, &Error{Index: -1, Field: "jsonPatch", Message: fmt.Sprintf("must be a list of operations, not %s", describe(raw))}
	}
	ops := make([]Op, 0, len(items))
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, opErr(i, "", "must be an object, not %s", describe(it))
		}
		var op Op
		for _, k := range jsonvalue.SortedKeys(m) {
			v := m[k]
			var dst *string
			switch k {
			case "op":
				dst = &op.Op
			case "path":
				dst = &op.Path
			case "selector":
				dst = &op.Selector
			case "matchPolicy":
				dst = &op.MatchPolicy
			case "value":
				op.Value, op.HasValue = v, true
				continue
			default:
				return nil, opErr(i, k, "unknown field")
			}
			if v == nil {
				continue // null string field: treated as absent
			}
			s, ok := v.(string)
			if !ok {
				return nil, opErr(i, k, "must be a string, not %s", describe(v))
			}
			*dst = s
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// parsedPath is an operation path split around its "@" segment.
type parsedPath struct {
	prefix []string // tokens before "@": the array whose elements are selected
	rest   []string // tokens after "@": below the selected element
}

// parsePath parses an RFC 6901 pointer with exactly one "@" segment that is
// not the first segment. Messages are suitable for the "path" field.
func parsePath(p string) (parsedPath, string) {
	if p == "" {
		return parsedPath{}, "is required"
	}
	if p[0] != '/' {
		return parsedPath{}, `must be an RFC 6901 JSON Pointer starting with "/"`
	}
	raw := strings.Split(p[1:], "/")
	at := -1
	tokens := make([]string, len(raw))
	for i, r := range raw {
		if r == "@" {
			if at >= 0 {
				return parsedPath{}, `must contain exactly one "@" segment`
			}
			at = i
		}
		tok, ok := unescapeToken(r)
		if !ok {
			return parsedPath{}, fmt.Sprintf("segment %d (%q) has an invalid escape: use ~0 for \"~\" and ~1 for \"/\"", i+1, r)
		}
		tokens[i] = tok
	}
	if at < 0 {
		return parsedPath{}, `must contain exactly one "@" segment`
	}
	if at == 0 {
		return parsedPath{}, `"@" may not be the first segment: it selects elements of the array at the path before it`
	}
	return parsedPath{prefix: tokens[:at], rest: tokens[at+1:]}, ""
}

func unescapeToken(s string) (string, bool) {
	if !strings.Contains(s, "~") {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			b.WriteByte(s[i])
			continue
		}
		if i+1 >= len(s) {
			return "", false
		}
		switch s[i+1] {
		case '0':
			b.WriteByte('~')
		case '1':
			b.WriteByte('/')
		default:
			return "", false
		}
		i++
	}
	return b.String(), true
}

// Validate checks a patch statically, before any target is read: the merge
// patch (when hasPatch) must be a non-empty JSON object whose metadata, when
// present, is an object; at least one of patch and jsonPatch is required; at
// most MaxOps operations; each operation is an add / remove / replace with a
// well-formed path and selector, the value rules of its kind, and a known
// match policy. It returns the first problem as an *Error, nil otherwise.
func Validate(patch any, hasPatch bool, ops []Op) error {
	return (*Selectors)(nil).Validate(patch, hasPatch, ops)
}

// Validate is the package's Validate, remembering compiled selectors in s.
func (s *Selectors) Validate(patch any, hasPatch bool, ops []Op) error {
	if hasPatch {
		m, ok := patch.(map[string]any)
		if !ok {
			return &Error{Index: -1, Field: "patch", Message: fmt.Sprintf("must be a non-empty JSON object, not %s", describe(patch))}
		}
		if len(m) == 0 {
			return &Error{Index: -1, Field: "patch", Message: "must be a non-empty JSON object"}
		}
		if md, ok := m["metadata"]; ok {
			if _, ok := md.(map[string]any); !ok {
				return &Error{Index: -1, Field: "patch.metadata", Message: fmt.Sprintf("must be an object, not %s", describe(md))}
			}
		}
		if _, err := jsonvalue.Canonical(patch); err != nil {
			return &Error{Index: -1, Field: "patch", Message: err.Error()}
		}
	}
	if !hasPatch && len(ops) == 0 {
		return &Error{Index: -1, Field: "spec", Message: "at least one of patch or jsonPatch is required"}
	}
	if len(ops) > MaxOps {
		return &Error{Index: -1, Field: "jsonPatch", Message: fmt.Sprintf("must have at most %d operations, has %d", MaxOps, len(ops))}
	}
	for i, op := range ops {
		if err := s.validateOp(i, op); err != nil {
			return err
		}
	}
	return nil
}

func (s *Selectors) validateOp(i int, op Op) error {
	switch op.Op {
	case OpAdd, OpRemove, OpReplace:
	case "":
		return opErr(i, "op", `is required: one of "add", "remove", "replace"`)
	default:
		return opErr(i, "op", `unsupported operation %q: must be one of "add", "remove", "replace"`, op.Op)
	}
	if n := utf8.RuneCountInString(op.Path); n > MaxPathLength {
		return opErr(i, "path", "must be at most %d characters, has %d", MaxPathLength, n)
	}
	pp, msg := parsePath(op.Path)
	if msg != "" {
		return opErr(i, "path", "%s", msg)
	}
	switch op.Op {
	case OpAdd, OpRemove:
		if len(pp.rest) != 1 {
			return opErr(i, "path", "%s must address exactly one direct member below the selected element, such as /spec/containers/@/workingDir", op.Op)
		}
	}
	switch op.Op {
	case OpAdd, OpReplace:
		if !op.HasValue || op.Value == nil {
			return opErr(i, "value", "%s requires a non-null value", op.Op)
		}
		if _, err := jsonvalue.Canonical(op.Value); err != nil {
			return opErr(i, "value", "%s", err.Error())
		}
	case OpRemove:
		if op.HasValue {
			return opErr(i, "value", "remove must omit value")
		}
	}
	switch op.MatchPolicy {
	case "", MatchExactlyOne, MatchAll:
	default:
		return opErr(i, "matchPolicy", "unsupported match policy %q: must be %q or %q", op.MatchPolicy, MatchExactlyOne, MatchAll)
	}
	if op.Selector == "" {
		return opErr(i, "selector", "is required: a CEL expression over item")
	}
	if n := utf8.RuneCountInString(op.Selector); n > MaxSelectorLength {
		return opErr(i, "selector", "must be at most %d characters, has %d", MaxSelectorLength, n)
	}
	if _, msg := s.compileSelector(op.Selector); msg != "" {
		return opErr(i, "selector", "%s", msg)
	}
	return nil
}
