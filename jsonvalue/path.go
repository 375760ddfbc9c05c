package jsonvalue

import (
	"strconv"
	"strings"
)

// Field paths. A path is a list of tokens, each the key of an object's
// member or the decimal index of a list element. Rule files and scenarios
// write paths dotted (DottedPath); patches and field ownership write them
// as JSON pointers (PointerPath).

// Lookup returns the value at path below v, and whether it exists.
func Lookup(v any, path []string) (any, bool) {
	cur := v
	for _, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || tok != strconv.Itoa(i) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// DottedPath splits a dotted path into its tokens: spec.requeueInterval,
// metadata.ownerReferences.0.uid, metadata.labels.app\.kubernetes\.io/name
// (`\.` is a dot inside a key).
func DottedPath(s string) []string {
	if !strings.Contains(s, `\`) {
		return strings.Split(s, ".")
	}
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '.':
			cur.WriteByte('.')
			i++
		case s[i] == '.':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(s[i])
		}
	}
	return append(out, cur.String())
}

// PointerPath splits a JSON pointer (RFC 6901) into its tokens; "" is the
// whole value.
func PointerPath(p string) []string {
	if p == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, s := range parts {
		if strings.Contains(s, "~") {
			parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		}
	}
	return parts
}
