package objpatch

import (
	"sort"
	"strconv"
	"strings"

	"github.com/statecraft/statecraft/jsonvalue"
)

// firstDiff returns the JSON Pointer of the first difference between a and b
// in sorted-key order, for error messages.
func firstDiff(ptr string, a, b any) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for _, k := range unionKeys(am, bm) {
			av, ain := am[k]
			bv, bin := bm[k]
			if ain != bin || !jsonvalue.Equal(av, bv) {
				if ain && bin {
					return firstDiff(ptr+"/"+jsonvalue.EscapeToken(k), av, bv)
				}
				return ptr + "/" + jsonvalue.EscapeToken(k)
			}
		}
		return ptr
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			if !jsonvalue.Equal(as[i], bs[i]) {
				return firstDiff(ptr+"/"+strconv.Itoa(i), as[i], bs[i])
			}
		}
	}
	return ptr
}

func unionKeys(a, b map[string]any) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}

// pointer renders reference tokens as a JSON Pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(jsonvalue.EscapeToken(t))
	}
	return b.String()
}

// arrayIndex parses an RFC 6901 array index token for an array of length n.
func arrayIndex(tok string, n int) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
	}
	if len(tok) > 9 {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i >= n {
		return 0, false
	}
	return i, true
}

// lookup resolves tokens below v. It returns the value and whether it
// exists; when it does not, where is the pointer of the first missing or
// non-traversable location.
func lookup(v any, base string, tokens []string) (any, bool, string) {
	cur := v
	ptr := base
	for _, tok := range tokens {
		ptr += "/" + jsonvalue.EscapeToken(tok)
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false, ptr
			}
			cur = next
		case []any:
			i, ok := arrayIndex(tok, len(c))
			if !ok {
				return nil, false, ptr
			}
			cur = c[i]
		default:
			return nil, false, ptr
		}
	}
	return cur, true, ptr
}

// describe names a JSON value's type for messages.
func describe(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	default:
		return "a number"
	}
}
