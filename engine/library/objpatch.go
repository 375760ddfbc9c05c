package library

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/statecraft/statecraft/engine/objpatch"
	"github.com/statecraft/statecraft/internal/jsonvalue"
)

// objpatchFunctions are thin CEL wrappers over package objpatch. They
// compute; the rule file decides what a result means for the lifecycle.
func objpatchFunctions() []cel.EnvOption {
	dyn := cel.DynType
	mapSD := cel.MapType(cel.StringType, cel.DynType)
	return []cel.EnvOption{
		cel.Function("objpatch.validate",
			cel.Overload("objpatch_validate_dyn", []*cel.Type{dyn}, mapSD, cel.UnaryBinding(validateFn))),
		cel.Function("objpatch.plan",
			cel.Overload("objpatch_plan_dyn_dyn", []*cel.Type{dyn, dyn}, mapSD, cel.BinaryBinding(planFn))),
		cel.Function("objpatch.satisfied",
			cel.Overload("objpatch_satisfied_dyn_dyn", []*cel.Type{dyn, dyn}, cel.BoolType, cel.BinaryBinding(objSatisfiedFn))),
		cel.Function("objpatch.arbitrate",
			cel.Overload("objpatch_arbitrate_dyn_dyn", []*cel.Type{dyn, dyn}, mapSD, cel.BinaryBinding(arbitrateFn))),
	}
}

// specParts splits an ObjectPatch spec into its merge patch (nil when
// absent), whether it is present, and its parsed selector operations.
func specParts(spec any) (patch any, hasPatch bool, ops []objpatch.Op, err error) {
	m, _ := spec.(map[string]any)
	patch, hasPatch = m["patch"]
	ops, err = objpatch.ParseOps(m["jsonPatch"])
	return patch, hasPatch, ops, err
}

func errorText(err error) string {
	var e *objpatch.Error
	if errors.As(err, &e) {
		return e.Error()
	}
	return err.Error()
}

// ValidateSpec checks spec.patch and spec.jsonPatch statically, before any
// target is read. It returns {ok, error}: error names the operation's index
// and the rule broken, such as "jsonPatch[1].value: remove must omit value".
func ValidateSpec(spec any) map[string]any {
	patch, has, ops, err := specParts(spec)
	if err == nil {
		err = objpatch.Validate(patch, has, ops)
	}
	if err != nil {
		return map[string]any{"ok": false, "error": errorText(err)}
	}
	return map[string]any{"ok": true, "error": ""}
}

// PlanSpec plans spec against target. It returns {ok, error, changed,
// object, merge, json, full}: merge is the merge patch to send (null when it
// would change nothing), json the RFC 6902 document of the selector
// operations as a string (null when none change anything), and full one
// merge patch that takes target to the planned object (null when
// unchanged), for validating the whole result in a single dry run.
func PlanSpec(target, spec any) map[string]any {
	tm, _ := target.(map[string]any)
	return plans.get(fingerprint(tm, spec), func() map[string]any { return planSpec(tm, spec) })
}

// plans remembers plans by the content of target and spec: an object
// resting in a state is re-planned on every check, and its target seldom
// changes.
var plans = newMemo[map[string]any](4096)

func planSpec(tm map[string]any, spec any) map[string]any {
	out := map[string]any{"ok": false, "error": "", "changed": false, "object": map[string]any{}, "merge": nil, "json": nil, "full": nil}
	patch, has, ops, err := specParts(spec)
	if err != nil {
		out["error"] = errorText(err)
		return out
	}
	if !has {
		patch = nil
	}
	if err := objpatch.Validate(patch, has, ops); err != nil {
		out["error"] = errorText(err)
		return out
	}
	res, err := objpatch.Plan(tm, patch, ops, objpatch.Options{})
	if err != nil {
		out["error"] = errorText(err)
		return out
	}
	out["ok"], out["changed"], out["object"] = true, res.Changed, res.Object
	if res.MergePatch != nil {
		v, err := DecodeJSON(res.MergePatch)
		if err != nil {
			out["ok"], out["error"] = false, err.Error()
			return out
		}
		out["merge"] = v
	}
	if res.JSONPatch != nil {
		out["json"] = string(res.JSONPatch)
	}
	if res.Changed {
		full, err := fullMergePatch(tm, res.Object)
		if err != nil {
			out["ok"], out["error"] = false, err.Error()
			return out
		}
		out["full"] = full
	}
	return out
}

// fullMergePatch returns the merge patch that takes from to to.
func fullMergePatch(from, to map[string]any) (any, error) {
	a, err := json.Marshal(from)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(to)
	if err != nil {
		return nil, err
	}
	p, err := jsonpatch.CreateMergePatch(a, b)
	if err != nil {
		return nil, err
	}
	return DecodeJSON(p)
}

// SatisfiedSpec reports whether obj already matches spec: planning it
// succeeds and changes nothing. A plan error counts as not satisfied.
func SatisfiedSpec(obj, spec any) bool {
	p := PlanSpec(obj, spec)
	return p["ok"] == true && p["changed"] == false
}

// StatusBlind names the library functions that read nothing a status write
// can change (status, resourceVersion, managedFields) of the objects in
// the lists they are given: objpatch.arbitrate reads each claimant's name,
// namespace, creation and deletion timestamps and spec. A runner may keep
// a decision that handed a list only to these functions when the listed
// objects' status changes (fsm.RestProfile).
var StatusBlind = map[string]bool{"objpatch.arbitrate": true}

// ArbitrateClaims decides whether self owns its claims among patches (the
// listed ObjectPatches of its namespace, or every ClusterObjectPatch; self
// is included or added). Patches being deleted and patches whose spec is
// invalid claim nothing. It returns {accepted, winner, message}.
func ArbitrateClaims(patches []any, self map[string]any) map[string]any {
	return arbitrations.get(arbitrationKey(patches, self), func() map[string]any { return arbitrateClaims(patches, self) })
}

// arbitrations remembers verdicts by what arbitration reads of each patch:
// its name, namespace, creation and deletion timestamps and spec (not its
// status, which every check rewrites).
var arbitrations = newMemo[map[string]any](4096)

func arbitrationKey(patches []any, self map[string]any) string {
	b := make([]byte, 0, 96*(len(patches)+1))
	one := func(obj map[string]any) {
		md, _ := obj["metadata"].(map[string]any)
		f := jsonvalue.Hash(obj["spec"])
		b = append(b, str(md["namespace"])...)
		b = append(b, '/')
		b = append(b, str(md["name"])...)
		b = append(b, '@')
		b = append(b, str(md["creationTimestamp"])...)
		b = append(b, '~')
		b = append(b, str(md["deletionTimestamp"])...)
		b = append(b, ':')
		b = strconv.AppendUint(b, f[0], 16)
		b = append(b, '.')
		b = strconv.AppendUint(b, f[1], 16)
		b = append(b, ';')
	}
	one(self)
	for _, it := range patches {
		if obj, ok := it.(map[string]any); ok {
			one(obj)
		}
	}
	return string(b)
}

func arbitrateClaims(patches []any, self map[string]any) map[string]any {
	key := func(obj map[string]any) string {
		md, _ := obj["metadata"].(map[string]any)
		ns, _ := md["namespace"].(string)
		name, _ := md["name"].(string)
		if ns == "" {
			return name
		}
		return ns + "/" + name
	}
	selfKey := key(self)
	var cs []objpatch.Claimant
	seen := false
	add := func(obj map[string]any) {
		md, _ := obj["metadata"].(map[string]any)
		k := key(obj)
		if k == selfKey {
			if seen {
				return
			}
			seen = true
		} else if _, deleting := md["deletionTimestamp"]; deleting {
			return
		}
		c := claimsOf(obj, md)
		if !c.valid && k != selfKey {
			return
		}
		created, _ := time.Parse(time.RFC3339, str(md["creationTimestamp"]))
		cs = append(cs, objpatch.Claimant{Key: k, Target: c.target, CreationTimestamp: created, Name: str(md["name"]), Claims: c.claims})
	}
	for _, it := range patches {
		if obj, ok := it.(map[string]any); ok {
			add(obj)
		}
	}
	if !seen {
		add(self)
	}
	v := objpatch.Arbitrate(cs)[selfKey]
	return map[string]any{"accepted": v.Accepted, "winner": v.Winner, "message": v.Message()}
}

// specClaims is what a patch's spec claims: valid is false when the spec
// does not validate (it then claims nothing, unless it is the claimant
// asking).
type specClaims struct {
	valid  bool
	target string
	claims []objpatch.Claim
}

// claimsBySpec remembers claims by namespace and spec: every sibling patch
// is arbitrated again on every check of every patch.
var claimsBySpec = newMemo[specClaims](8192)

func claimsOf(obj, md map[string]any) specClaims {
	return claimsBySpec.get(str(md["namespace"])+"/"+fingerprint(obj["spec"]), func() specClaims {
		spec, _ := obj["spec"].(map[string]any)
		patch, has, ops, err := specParts(spec)
		if err == nil {
			err = objpatch.Validate(patch, has, ops)
		}
		if !has {
			patch = nil
		}
		tr, _ := spec["targetRef"].(map[string]any)
		av, _ := tr["apiVersion"].(string)
		group := ""
		if i := strings.Index(av, "/"); i >= 0 {
			group = av[:i]
		}
		ns, _ := md["namespace"].(string)
		return specClaims{
			valid:  err == nil,
			target: strings.Join([]string{group, str(tr["kind"]), ns, str(tr["name"])}, "/"),
			claims: objpatch.Claims(patch, ops),
		}
	})
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func validateFn(spec ref.Val) ref.Val { return ToCEL(ValidateSpec(ToGo(spec))) }

func planFn(target, spec ref.Val) ref.Val { return ToCEL(PlanSpec(ToGo(target), ToGo(spec))) }

func objSatisfiedFn(obj, spec ref.Val) ref.Val {
	return types.Bool(SatisfiedSpec(ToGo(obj), ToGo(spec)))
}

func arbitrateFn(items, self ref.Val) ref.Val {
	list, ok := ToGo(items).([]any)
	if !ok {
		return types.NewErr("objpatch.arbitrate: first argument is not a list")
	}
	s, ok := ToGo(self).(map[string]any)
	if !ok {
		return types.NewErr("objpatch.arbitrate: second argument is not an object")
	}
	return ToCEL(ArbitrateClaims(list, s))
}
