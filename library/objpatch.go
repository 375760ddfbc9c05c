package library

import (
	"encoding/binary"
	"errors"
	"hash/maphash"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"

	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library/objpatch"
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
		cel.Function("objpatch.retained",
			cel.Overload("objpatch_retained_dyn_dyn", []*cel.Type{dyn, dyn}, cel.BoolType, cel.BinaryBinding(objRetainedFn))),
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
// retained, object, merge, json, full}: retained says the target holds the
// patch as an API server renders it (objpatch.Retained: its defaults,
// canonical quantities), even where changed says it differs to the
// letter; merge is the merge patch to send (null when it
// would change nothing), json the RFC 6902 document of the selector
// operations as a string (null when none change anything), and full one
// merge patch that takes target to the planned object (null when
// unchanged), for validating the whole result in a single dry run.
func PlanSpec(target, spec any) map[string]any {
	tm, _ := target.(map[string]any)
	compute := func() map[string]any { return planSpec(tm, spec) }
	sf := jsonvalue.Hash(spec)
	if jsonvalue.Frozen(tm) {
		pc := jsonvalue.Remember(tm, "objpatch.plans", func() *targetPlans { return &targetPlans{bySpec: map[jsonvalue.Fingerprint]map[string]any{}} })
		pc.mu.Lock()
		p, ok := pc.bySpec[sf]
		pc.mu.Unlock()
		if !ok {
			p = compute()
			pc.mu.Lock()
			pc.bySpec[sf] = p
			pc.mu.Unlock()
		}
		return p
	}
	return plans.get([2]jsonvalue.Fingerprint{jsonvalue.Hash(tm), sf}, compute)
}

// targetPlans are the plans of one frozen target, by spec.
type targetPlans struct {
	mu     sync.Mutex
	bySpec map[jsonvalue.Fingerprint]map[string]any
}

// plans remembers plans by the content of target and spec: an object
// resting in a state is re-planned on every check, and its target seldom
// changes. A frozen target keeps its plans itself, as long as it lives.
var plans = newMemo[[2]jsonvalue.Fingerprint, map[string]any](4096)

func planSpec(tm map[string]any, spec any) map[string]any {
	out := map[string]any{"ok": false, "error": "", "changed": false, "retained": false, "object": map[string]any{}, "merge": nil, "json": nil, "full": nil}
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
	out["retained"] = !res.Changed
	if res.Changed {
		// Changed to the letter, and yet held as the server renders the
		// patch (its defaults and canonical quantities)?
		kept, err := objpatch.Retained(tm, patch, ops)
		out["retained"] = err == nil && kept
	}
	if res.Merge != nil {
		out["merge"] = res.Merge
	}
	if res.JSONPatch != nil {
		out["json"] = string(res.JSONPatch)
	}
	if res.Changed {
		// What a full merge patch from the target to the planned object
		// carries (RFC 7386, as jsonpatch.CreateMergePatch computes it).
		out["full"] = jsonvalue.MergeDiff(tm, res.Object)
	}
	return out
}

// SatisfiedSpec reports whether obj already matches spec: planning it
// succeeds and changes nothing. A plan error counts as not satisfied.
func SatisfiedSpec(obj, spec any) bool {
	p := PlanSpec(obj, spec)
	return p["ok"] == true && p["changed"] == false
}

// RetainedSpec reports whether obj, as the API server stored it, holds
// spec as the server renders a patch (see objpatch.Retained): the check
// of a patch's result and of drift on a server that defaults. A plan error
// counts as not retained.
func RetainedSpec(obj, spec any) bool {
	p := PlanSpec(obj, spec)
	return p["ok"] == true && p["retained"] == true
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
//
// Every patch of a namespace arbitrates the same list on every check, so
// the verdicts of a whole list are remembered once for all of its members:
// a valid self, not being deleted, listed as it is, takes its verdict from
// there. Any other self is arbitrated on its own.
func ArbitrateClaims(patches []any, self map[string]any) map[string]any {
	l := claimantList(patches)
	if l.holds(self) {
		all := listVerdicts.get(l.key, func() map[nsName]listedVerdict {
			vs := objpatch.Arbitrate(claimants(patches, nil))
			out := make(map[nsName]listedVerdict, len(patches))
			for _, it := range patches {
				if obj, ok := it.(map[string]any); ok {
					v, claims := vs[claimantKey(obj)]
					out[nsNameOf(obj)] = listedVerdict{value: verdictValue(v), claims: claims}
				}
			}
			return out
		})
		if v := all[nsNameOf(self)]; v.claims {
			return v.value
		}
	}
	sk := claimantFingerprintOf(self)
	return arbitrations.get([2]jsonvalue.Fingerprint{sk, l.key}, func() map[string]any { return arbitrateClaims(patches, self) })
}

// A listedVerdict is a listed patch's verdict; claims is false for one that
// claims nothing in the list (being deleted, or an invalid spec), which is
// arbitrated on its own instead.
type listedVerdict struct {
	value  map[string]any
	claims bool
}

// nsName names a patch within a list without building a string.
type nsName struct{ namespace, name string }

func nsNameOf(obj map[string]any) nsName {
	md, _ := obj["metadata"].(map[string]any)
	return nsName{str(md["namespace"]), str(md["name"])}
}

// A listed is a list of patches as arbitration reads it: each member's
// claimant fingerprint (what arbitration reads of it), and the list's key.
type listed struct {
	items  []any // kept, so that no member's identity is reused while remembered
	frozen []bool
	fps    []jsonvalue.Fingerprint
	// key is the sum of the members' fingerprints, word by word: a key of
	// the list's content whatever its order (arbitration does not depend
	// on the order), computed without hashing again.
	key jsonvalue.Fingerprint
}

// lastLists remembers the last list arbitrated per namespace (of its first
// member). Every patch of a namespace arbitrates the list of its namespace,
// which changes one member at a time: a member that is the same frozen
// object as in the last list keeps its fingerprint without a look-up.
var lastLists struct {
	sync.Mutex
	byNamespace map[string]*listed
}

func claimantList(patches []any) *listed {
	ns := ""
	if len(patches) > 0 {
		if obj, ok := patches[0].(map[string]any); ok {
			md, _ := obj["metadata"].(map[string]any)
			ns = str(md["namespace"])
		}
	}
	lastLists.Lock()
	last := lastLists.byNamespace[ns]
	lastLists.Unlock()
	if last != nil && last.sameMembers(patches) {
		return last
	}
	l := &listed{items: patches, frozen: make([]bool, len(patches)), fps: make([]jsonvalue.Fingerprint, len(patches))}
	// A key of the empty list that is not the zero key (never remembered).
	l.key = jsonvalue.Fingerprint{1, 1}
	for i, it := range patches {
		obj, ok := it.(map[string]any)
		if !ok {
			continue
		}
		if last != nil && i < len(last.items) && last.frozen[i] && sameMap(last.items[i], obj) {
			l.fps[i], l.frozen[i] = last.fps[i], true
		} else {
			l.fps[i], l.frozen[i] = claimantFingerprintOf(obj), jsonvalue.Frozen(obj)
		}
		l.key[0] += l.fps[i][0]
		l.key[1] += l.fps[i][1]
	}
	lastLists.Lock()
	if lastLists.byNamespace == nil || len(lastLists.byNamespace) >= 4096 {
		lastLists.byNamespace = map[string]*listed{}
	}
	lastLists.byNamespace[ns] = l
	lastLists.Unlock()
	return l
}

// sameMembers reports whether items holds the same maps in the same order
// as l, each frozen when l was made (their owners promised not to change
// them).
func (l *listed) sameMembers(items []any) bool {
	if len(l.items) != len(items) {
		return false
	}
	for i, it := range items {
		m, ok := it.(map[string]any)
		if !ok || !l.frozen[i] || !sameMap(l.items[i], m) {
			return false
		}
	}
	return true
}

func sameMap(a any, b map[string]any) bool {
	m, ok := a.(map[string]any)
	return ok && m != nil && b != nil && reflect.ValueOf(m).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// holds reports whether self is among the list as given: the very object
// listed (a self read with the list usually is), or one that arbitration
// reads the same (the same claimant fingerprint: name, namespace,
// timestamps and spec).
func (l *listed) holds(self map[string]any) bool {
	for _, it := range l.items {
		if sameMap(it, self) {
			return true
		}
	}
	fp := claimantFingerprintOf(self)
	for _, f := range l.fps {
		if f == fp {
			return true
		}
	}
	return false
}

// arbitrations remembers the verdicts of selves arbitrated on their own,
// and listVerdicts those of whole lists, by what arbitration reads of each
// patch: its name, namespace, creation and deletion timestamps and spec
// (not its status, which every check rewrites).
var (
	arbitrations = newMemo[[2]jsonvalue.Fingerprint, map[string]any](4096)
	listVerdicts = newMemo[jsonvalue.Fingerprint, map[nsName]listedVerdict](4096)
)

// claimantFingerprintOf is claimantFingerprint, remembered on a frozen obj.
func claimantFingerprintOf(obj map[string]any) jsonvalue.Fingerprint {
	return jsonvalue.Remember(obj, "objpatch.claimant", func() jsonvalue.Fingerprint { return claimantFingerprint(obj) })
}

// claimantFingerprint fingerprints what arbitration reads of one patch.
func claimantFingerprint(obj map[string]any) jsonvalue.Fingerprint {
	md, _ := obj["metadata"].(map[string]any)
	spec := jsonvalue.Hash(obj["spec"])
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], spec[0])
	binary.LittleEndian.PutUint64(buf[8:], spec[1])
	var f jsonvalue.Fingerprint
	for i, seed := range keySeeds {
		var h maphash.Hash
		h.SetSeed(seed)
		for _, s := range []string{str(md["namespace"]), str(md["name"]), str(md["creationTimestamp"]), str(md["deletionTimestamp"])} {
			h.WriteString(s)
			h.WriteByte(0)
		}
		h.Write(buf[:])
		f[i] = h.Sum64()
	}
	return f
}

var keySeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func claimantKey(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// claimants are the patches that claim: not being deleted and with a valid
// spec, except self (when given), which claims whatever its state, once,
// and is added when not listed.
func claimants(patches []any, self map[string]any) []objpatch.Claimant {
	selfKey := ""
	if self != nil {
		selfKey = claimantKey(self)
	}
	var cs []objpatch.Claimant
	seen := false
	add := func(obj map[string]any) {
		md, _ := obj["metadata"].(map[string]any)
		k := claimantKey(obj)
		if self != nil && k == selfKey {
			if seen {
				return
			}
			seen = true
		} else if _, deleting := md["deletionTimestamp"]; deleting {
			return
		}
		c := claimsOf(obj, md)
		if !c.valid && (self == nil || k != selfKey) {
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
	if self != nil && !seen {
		add(self)
	}
	return cs
}

func verdictValue(v objpatch.Verdict) map[string]any {
	return map[string]any{"accepted": v.Accepted, "winner": v.Winner, "message": v.Message()}
}

func arbitrateClaims(patches []any, self map[string]any) map[string]any {
	return verdictValue(objpatch.Arbitrate(claimants(patches, self))[claimantKey(self)])
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
// is arbitrated again on every check of every patch. A frozen patch keeps
// its claims itself.
var claimsBySpec = newMemo[claimsKey, specClaims](8192)

type claimsKey struct {
	namespace string
	spec      jsonvalue.Fingerprint
}

func claimsOf(obj, md map[string]any) specClaims {
	if jsonvalue.Frozen(obj) {
		return jsonvalue.Remember(obj, "objpatch.claims", func() specClaims { return computeClaims(obj, md) })
	}
	return claimsBySpec.get(claimsKey{str(md["namespace"]), jsonvalue.Hash(obj["spec"])}, func() specClaims { return computeClaims(obj, md) })
}

// computeClaims reads what a patch's spec claims in its namespace.
func computeClaims(obj, md map[string]any) specClaims {
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
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func validateFn(spec ref.Val) ref.Val { return canonicalToCEL(ValidateSpec(ToGo(spec))) }

// planFn's plan is canonical by construction: objpatch.Plan normalizes the
// target it plans, the patches are decoded or taken from its result, the
// rest are strings and bools.
func planFn(target, spec ref.Val) ref.Val {
	return canonicalToCEL(PlanSpec(ToGo(target), ToGo(spec)))
}

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
	return canonicalToCEL(ArbitrateClaims(list, s)) // strings and bools
}

func objRetainedFn(obj, spec ref.Val) ref.Val {
	return types.Bool(RetainedSpec(ToGo(obj), ToGo(spec)))
}
