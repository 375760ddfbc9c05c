package jsonvalue

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/statecraft/statecraft/jsonparse"
)

// maxExactFloat is the largest magnitude below which every integer is
// exactly representable as a float64.
const maxExactFloat = 1 << 53

// Normalize returns a deep copy of v made only of map[string]any, []any,
// string, bool, nil, int64 and float64. Integral numbers within ±2^53 become
// int64. Values of other Go types are converted through encoding/json.
func Normalize(v any) (any, error) {
	switch t := v.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			n, err := Normalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			n, err := Normalize(e)
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
		return Normalize(out)
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

// DeepCopy copies a normalized value.
func DeepCopy(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = DeepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = DeepCopy(e)
		}
		return out
	default:
		return v
	}
}

// Equal compares two JSON values; numbers compare by value (int64 1 equals
// float64 1.0). Values of other Go types compare with reflect.DeepEqual.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && identity(x) == identity(y) {
			return true // one map: values share what a write left alone
		}
		for k, xv := range x {
			yv, ok := y[k]
			if !ok || !Equal(xv, yv) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		if len(x) > 0 && &x[0] == &y[0] {
			return true
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
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
			return Equal(y, x)
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
	// Other Go types (typed slices, structs): compare them as Go values.
	return reflect.DeepEqual(a, b)
}

// CanonicalJSON marshals a normalized value with sorted object keys and no
// HTML escaping.
func CanonicalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MergePatch applies an RFC 7386 merge patch to a normalized target and
// returns the result. Neither argument is modified.
func MergePatch(target, patch any) any {
	pm, ok := patch.(map[string]any)
	if !ok {
		return DeepCopy(patch)
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
		out[k] = MergePatch(out[k], v)
	}
	return out
}

// MergeDiff returns the RFC 7386 merge patch that turns before into after:
// maps key by key (a key after lacks becomes null), anything else whole.
// Both are canonical values without nulls inside maps (a merge patch
// cannot set a null); neither is modified, and the patch may share
// values of after.
func MergeDiff(before, after map[string]any) map[string]any {
	out := map[string]any{}
	for k, b := range before {
		if _, kept := after[k]; !kept {
			out[k] = nil
		} else if bm, ok := b.(map[string]any); ok {
			if am, ok := after[k].(map[string]any); ok {
				if d := MergeDiff(bm, am); len(d) > 0 {
					out[k] = d
				}
				continue
			}
		}
	}
	for k, a := range after {
		b, had := before[k]
		if !had {
			out[k] = a
			continue
		}
		_, bMap := b.(map[string]any)
		_, aMap := a.(map[string]any)
		if !(bMap && aMap) && !Equal(a, b) {
			out[k] = a
		}
	}
	return out
}

// EscapeToken escapes one JSON Pointer reference token (RFC 6901).
func EscapeToken(s string) string {
	if !strings.ContainsAny(s, "~/") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// IsCanonical reports whether v already is what Normalize would return:
// only maps, lists, strings, bools, nil, int64, and float64 that are not
// whole numbers. It allocates nothing, so callers that only read a value
// can skip Normalize's copy. A frozen value is answered from memory.
func IsCanonical(v any) bool { return isCanonical(v) }

func isCanonical(v any) bool {
	switch t := v.(type) {
	case nil, string, bool, int64:
		return true
	case float64:
		return !(t == math.Trunc(t) && math.Abs(t) <= maxExactFloat) && !math.IsNaN(t) && !math.IsInf(t, 0)
	case map[string]any:
		for _, e := range t {
			if !isCanonical(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range t {
			if !isCanonical(e) {
				return false
			}
		}
		return true
	}
	return false
}

// Decode parses JSON text into a canonical value.
func Decode(data []byte) (any, error) {
	v, err := jsonparse.Parse(data, jsonparse.Options{})
	if err != nil {
		return nil, err
	}
	return Canonical(v)
}

// Canonical returns v itself when IsCanonical(v), else Normalize(v): for
// callers that only read the value, or copy before they write.
func Canonical(v any) (any, error) {
	if IsCanonical(v) {
		return v, nil
	}
	return Normalize(v)
}

// Fingerprint is a 128-bit hash of a JSON value's content, equal for equal
// values (map order aside) and, for different values, different but with
// negligible chance. It allocates nothing, and its seeds are fixed: the
// same value has the same fingerprint in every run. It is meant for
// in-memory caches, not for output.
type Fingerprint [2]uint64

// seeds are the two halves' seeds: fixed, so that runs are the same.
var seeds = [2]uint64{0x243f6a8885a308d3, 0x13198a2e03707344}

// Hash fingerprints v (Registry.Hash remembers a frozen value's).
func Hash(v any) Fingerprint {
	return Fingerprint{hash(seeds[0], v), hash(seeds[1], v)}
}

// HashString is a 64-bit hash of s under seed (XXH3: as fast as the
// runtime's maphash, whose seeds cannot be fixed; BenchmarkHashString*).
func HashString(seed uint64, s string) uint64 { return xxh3.HashStringSeed(s, seed) }

func hash(seed uint64, v any) uint64 {
	const (
		tagNil = iota + 1
		tagFalse
		tagTrue
		tagInt
		tagFloat
		tagString
		tagList
		tagMap
		tagOther
	)
	mix := func(h, x uint64) uint64 {
		h ^= x + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2)
		return h
	}
	switch t := v.(type) {
	case nil:
		return tagNil
	case bool:
		if t {
			return tagTrue
		}
		return tagFalse
	case int64:
		return mix(tagInt, uint64(t))
	case float64:
		if t == math.Trunc(t) && math.Abs(t) <= maxExactFloat {
			return mix(tagInt, uint64(int64(t))) // equal to the int64, as Equal says
		}
		return mix(tagFloat, math.Float64bits(t))
	case string:
		return mix(tagString, HashString(seed, t))
	case []any:
		h := uint64(tagList)
		for _, e := range t {
			h = mix(h, hash(seed, e))
		}
		return mix(h, uint64(len(t)))
	case map[string]any:
		// Map order is random: combine the entries with a commutative sum.
		var sum uint64
		for k, e := range t {
			sum += mix(HashString(seed, k), hash(seed, e))
		}
		return mix(mix(tagMap, sum), uint64(len(t)))
	}
	n, err := Normalize(v)
	if err != nil {
		return tagOther
	}
	return hash(seed, n)
}

// Contains reports whether every field of part is in whole with the same
// value: maps key by key (a null in part means the key is absent or null),
// lists of the same length element by element, scalars by value. Fields of
// whole that part does not mention are ignored, so an object the server
// has defaulted still contains the manifest that was applied.
func Contains(whole, part any) bool {
	switch p := part.(type) {
	case map[string]any:
		w, ok := whole.(map[string]any)
		if !ok {
			return false
		}
		for k, pv := range p {
			wv, has := w[k]
			if pv == nil {
				if has && wv != nil {
					return false
				}
				continue
			}
			if !has || !Contains(wv, pv) {
				return false
			}
		}
		return true
	case []any:
		w, ok := whole.([]any)
		if !ok || len(w) != len(p) {
			return false
		}
		for i := range p {
			if !Contains(w[i], p[i]) {
				return false
			}
		}
		return true
	}
	return Equal(whole, part)
}
