package library

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	k8slib "k8s.io/apiserver/pkg/cel/library"
)

// EnvOptions returns the CEL environment every rule expression compiles in:
// the standard library, optional types, the strings, math, lists, sets,
// encoders and bindings (cel.bind) extensions, Kubernetes' libraries, and
// statecraft's own functions with their declared result types, which remember in mem (nil:
// nowhere).
func EnvOptions(mem *Memory) []cel.EnvOption {
	rt := newResultTypes()
	return []cel.EnvOption{
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(),
		ext.Math(),
		ext.Lists(),
		ext.Sets(),
		ext.Encoders(),
		ext.Bindings(),
		// Kubernetes' own CEL libraries, so guards read like CRD validation
		// rules and admission policies.
		k8slib.URLs(),
		k8slib.Regex(),
		k8slib.Lists(),
		k8slib.Quantity(),
		k8slib.SemverLib(),
		k8slib.IP(),
		k8slib.CIDR(),
		k8slib.Format(),
		cel.Lib(statecraftLib{mem, rt}),
		cel.Lib(upgradeLib{rt}),
		cel.Lib(rolloutLib{mem, rt}),
		cel.Lib(scheduleLib{mem}),
		// Last: the libraries above register types with the standard
		// provider, which this one wraps.
		rt.declare(),
	}
}

// statecraftLib is statecraft's own functions, remembering in mem.
type statecraftLib struct {
	mem *Memory
	rt  *resultTypes
}

func (l statecraftLib) LibraryName() string { return "statecraft" }

func (l statecraftLib) ProgramOptions() []cel.ProgramOption { return nil }

func (l statecraftLib) CompileOptions() []cel.EnvOption {
	dyn := cel.DynType
	return append([]cel.EnvOption{
		cel.Function("ref",
			cel.Overload("ref_dyn", []*cel.Type{dyn}, l.rt.ref.CelType(), cel.UnaryBinding(refOf))),
		cel.Function("patch.merge",
			cel.Overload("patch_merge_dyn_dyn", []*cel.Type{dyn, dyn}, dyn, cel.BinaryBinding(mergeFn))),
		cel.Function("patch.satisfied",
			cel.Overload("patch_satisfied_dyn_dyn", []*cel.Type{dyn, dyn}, cel.BoolType, cel.BinaryBinding(satisfiedFn))),
		cel.Function("patch.contains",
			cel.Overload("patch_contains_dyn_dyn", []*cel.Type{dyn, dyn}, cel.BoolType, cel.BinaryBinding(func(a, b ref.Val) ref.Val {
				return types.Bool(jsonvalue.Contains(l.mem.Canonical(ToGo(a)), l.mem.Canonical(ToGo(b))))
			}))),
		cel.Function("microTime",
			cel.Overload("microtime_timestamp", []*cel.Type{cel.TimestampType}, cel.StringType, cel.UnaryBinding(func(v ref.Val) ref.Val {
				ts, ok := v.(types.Timestamp)
				if !ok {
					return types.NewErr("microTime: want a timestamp")
				}
				return types.String(ts.Time.UTC().Format(MicroTimeFormat))
			}))),
		cel.Function("backoff",
			cel.Overload("backoff_duration_int_duration", []*cel.Type{cel.DurationType, cel.IntType, cel.DurationType}, cel.DurationType,
				cel.FunctionBinding(backoffFn))),
	}, objpatchFunctions(l.mem, l.rt)...)
}

// refOf returns {apiVersion, kind, namespace, name} of an object.
func refOf(v ref.Val) ref.Val {
	obj, ok := ToGo(v).(map[string]any)
	if !ok {
		return types.NewErr("ref: argument is not an object")
	}
	meta, _ := obj["metadata"].(map[string]any)
	out := map[string]any{
		"apiVersion": obj["apiVersion"],
		"kind":       obj["kind"],
		"name":       meta["name"],
		"namespace":  "",
	}
	if ns, ok := meta["namespace"].(string); ok {
		out["namespace"] = ns
	}
	return ToCEL(out)
}

func mergeFn(a, b ref.Val) ref.Val {
	out, err := MergePatch(ToGo(a), ToGo(b))
	if err != nil {
		return types.NewErr("patch.merge: %v", err)
	}
	return ToCEL(out)
}

func satisfiedFn(a, b ref.Val) ref.Val {
	obj := ToGo(a)
	out, err := MergePatch(obj, ToGo(b))
	if err != nil {
		return types.NewErr("patch.satisfied: %v", err)
	}
	return types.Bool(jsonvalue.Equal(Normalize(obj), out))
}

// MergePatch applies an RFC 7386 JSON merge patch to doc.
func MergePatch(doc, patch any) (any, error) {
	d, err := jsonvalue.Canonical(doc) // MergePatch writes nothing it is given
	if err != nil {
		return nil, err
	}
	p, err := jsonvalue.Canonical(patch)
	if err != nil {
		return nil, err
	}
	return jsonvalue.MergePatch(d, p), nil
}

// MicroTimeFormat is how Kubernetes writes a MicroTime (an Event's
// eventTime): RFC 3339 with exactly six fractional digits.
const MicroTimeFormat = "2006-01-02T15:04:05.000000Z07:00"

// MaxBackoff caps every backoff at 24 hours unless the caller's cap is lower.
const MaxBackoff = 24 * time.Hour

func backoffFn(args ...ref.Val) ref.Val {
	base, ok1 := args[0].(types.Duration)
	n, ok2 := args[1].(types.Int)
	limit, ok3 := args[2].(types.Duration)
	if !ok1 || !ok2 || !ok3 {
		return types.NewErr("backoff: want (duration, int, duration)")
	}
	return types.Duration{Duration: Backoff(base.Duration, int64(n), limit.Duration)}
}

// Backoff returns base·2^n, capped at limit (n < 0 counts as 0).
func Backoff(base time.Duration, n int64, limit time.Duration) time.Duration {
	if n < 0 {
		n = 0
	}
	d := base
	for i := int64(0); i < n; i++ {
		if d >= limit || d > math.MaxInt64/2 {
			return limit
		}
		d *= 2
	}
	if d > limit {
		return limit
	}
	return d
}

// DecodeJSON decodes JSON into unstructured values with whole numbers as
// int64, so that CEL sees ints where Kubernetes schemas say integer.
func DecodeJSON(b []byte) (any, error) {
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return Normalize(v), nil
}

// Normalize returns a deep copy of v made of unstructured JSON types, with
// whole numbers as int64 (so that CEL sees ints where Kubernetes schemas say
// integer). A value JSON cannot hold (NaN, a channel) is returned as it is.
func Normalize(v any) any {
	n, err := jsonvalue.Normalize(v)
	if err != nil {
		return v
	}
	return n
}

// Canonical returns v itself when it already is canonical (see
// jsonvalue.IsCanonical), else a normalized copy: for values that are only
// read, it saves the copy.
func Canonical(v any) any {
	return (*Memory)(nil).Canonical(v)
}

// Canonical is the package's Canonical, answered from memory for a value
// frozen in mem's registry (a nil mem, or a value not frozen: checked).
func (mem *Memory) Canonical(v any) any {
	if c, err := mem.frozen().Canonical(v); err == nil {
		return c
	}
	return v
}

// ToCEL converts an unstructured Go value to a CEL value.
func ToCEL(v any) ref.Val {
	return types.DefaultTypeAdapter.NativeToValue(Canonical(v))
}

// canonicalToCEL is ToCEL for a value canonical by construction (a
// function's result built from canonical inputs, strings and bools): it
// is not walked to be checked.
func canonicalToCEL(v any) ref.Val {
	return types.DefaultTypeAdapter.NativeToValue(v)
}

// ToGo converts a CEL value to unstructured Go: maps, lists, strings, int64,
// float64, bool, nil; timestamps become RFC 3339 strings and durations Go
// duration strings, which is how status fields keep them.
func ToGo(v ref.Val) any {
	switch x := v.(type) {
	case nil:
		return nil
	case types.Null:
		return nil
	case types.String:
		return string(x)
	case types.Int:
		return int64(x)
	case types.Uint:
		return int64(x)
	case types.Double:
		return float64(x)
	case types.Bool:
		return bool(x)
	case types.Bytes:
		return string(x)
	case types.Timestamp:
		return x.Time.UTC().Format(time.RFC3339)
	case types.Duration:
		return x.Duration.String()
	case *types.Optional:
		if x.HasValue() {
			return ToGo(x.GetValue())
		}
		return nil
	}
	// A CEL value that wraps a Go map or list (the objects the engine reads
	// are handed to CEL that way) converts back for free.
	switch native := v.Value().(type) {
	case map[string]any:
		return native
	case []any:
		return native
	}
	if m, ok := v.(traits.Mapper); ok {
		out := map[string]any{}
		it := m.Iterator()
		for it.HasNext() == types.True {
			k := it.Next()
			key, isString := k.(types.String)
			if !isString {
				key = types.String(fmt.Sprint(ToGo(k)))
			}
			out[string(key)] = ToGo(m.Get(k))
		}
		return out
	}
	if l, ok := v.(traits.Lister); ok {
		n, _ := l.Size().(types.Int)
		out := make([]any, 0, int(n))
		for i := types.Int(0); i < n; i++ {
			out = append(out, ToGo(l.Get(i)))
		}
		return out
	}
	return Normalize(v.Value())
}

// SortedKeys returns the keys of m in order.
func SortedKeys[V any](m map[string]V) []string { return jsonvalue.SortedKeys(m) }
