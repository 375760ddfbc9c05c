package objpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// maxExactFloat is the largest magnitude below which every integer is
// exactly representable as a float64.
const maxExactFloat = 1 << 53

// normalize returns a deep copy of v made only of map[string]any, []any,
// string, bool, nil, int64 and float64. Integral numbers within ±2^53 become
// int64. Values of other Go types are converted through encoding/json.
func normalize(v any) (any, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			n, err := normalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case string, bool, int64:
		return t, nil
	case float64:
		return normFloat(t)
	case float32:
		return normFloat(float64(t))
	case int:
		return int64(t), nil
	case int8:
		return int64(t), nil
	case int16:
		return int64(t), nil
	case int32:
		return int64(t), nil
	case uint8:
		return int64(t), nil
	case uint16:
		return int64(t), nil
	case uint32:
		return int64(t), nil
	case uint:
		if uint64(t) > math.MaxInt64 {
			return float64(t), nil
		}
		return int64(t), nil
	case uint64:
		if t > math.MaxInt64 {
			return float64(t), nil
		}
		return int64(t), nil
	case json.Number:
		if i, err := t.Int64(); err == nil {
			return i, nil
		}
		f, err := t.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid number %q", string(t))
		}
		return normFloat(f)
	default:
		// Typed Go values ([]string, map[string]string, structs, ...):
		// convert through their JSON form.
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("value of type %T is not JSON: %v", v, err)
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var out any
		if err := dec.Decode(&out); err != nil {
			return nil, fmt.Errorf("value of type %T is not JSON: %v", v, err)
		}
		if reflect.TypeOf(out) == reflect.TypeOf(v) {
			return nil, fmt.Errorf("unsupported value of type %T", v)
		}
		return normalize(out)
	}
}

func normFloat(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("number %v is not representable in JSON", f)
	}
	if f == math.Trunc(f) && math.Abs(f) <= maxExactFloat {
		return int64(f), nil
	}
	return f, nil
}

// deepCopy copies a normalized value.
func deepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = deepCopy(e)
		}
		return out
	default:
		return v
	}
}

// equal compares two normalized JSON values; numbers compare by value.
func equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case int64:
		switch y := b.(type) {
		case int64:
			return x == y
		case float64:
			return float64(x) == y && math.Abs(y) <= maxExactFloat
		}
		return false
	case float64:
		switch y := b.(type) {
		case float64:
			return x == y
		case int64:
			return equal(y, x)
		}
		return false
	case nil:
		return b == nil
	case string:
		y, ok := b.(string)
		return ok && x == y
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	}
	return false
}

// firstDiff returns the JSON Pointer of the first difference between a and b
// in sorted-key order, for error messages.
func firstDiff(ptr string, a, b any) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		for _, k := range unionKeys(am, bm) {
			av, ain := am[k]
			bv, bin := bm[k]
			if ain != bin || !equal(av, bv) {
				if ain && bin {
					return firstDiff(ptr+"/"+escapeToken(k), av, bv)
				}
				return ptr + "/" + escapeToken(k)
			}
		}
		return ptr
	}
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok && bok && len(as) == len(bs) {
		for i := range as {
			if !equal(as[i], bs[i]) {
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

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// canonicalJSON marshals a normalized value with sorted object keys and no
// HTML escaping.
func canonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// mergePatch applies an RFC 7386 merge patch to a normalized target and
// returns the result. Neither argument is modified.
func mergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return deepCopy(patch)
	}
	var out map[string]any
	if tm, ok := target.(map[string]any); ok {
		out = make(map[string]any, len(tm)+len(pm))
		for k, v := range tm {
			out[k] = v // shared; replaced below where the patch touches it
		}
	} else {
		out = make(map[string]any, len(pm))
	}
	for k, v := range pm {
		if v == nil {
			delete(out, k)
			continue
		}
		out[k] = mergePatch(out[k], v)
	}
	return out
}

// escapeToken escapes one JSON Pointer reference token (RFC 6901).
func escapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// pointer renders reference tokens as a JSON Pointer.
func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(escapeToken(t))
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
		ptr += "/" + escapeToken(tok)
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
