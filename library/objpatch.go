package library

import (
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/zeebo/xxh3"

	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library/objpatch"
)

// objpatchFunctions are thin CEL wrappers over package objpatch. They
// compute; the rule file decides what a result means for the lifecycle.
func objpatchFunctions(mem *Memory, rt *resultTypes) []cel.EnvOption {
	dyn := cel.DynType
	return []cel.EnvOption{
		cel.Function("objpatch.validate",
			cel.Overload("objpatch_validate_dyn", []*cel.Type{dyn}, rt.validation.CelType(), cel.UnaryBinding(mem.validateFn))),
		cel.Function("objpatch.plan",
			cel.Overload("objpatch_plan_dyn_dyn", []*cel.Type{dyn, dyn}, rt.patchPlan.CelType(), cel.BinaryBinding(mem.planFn))),
		cel.Function("objpatch.satisfied",
			cel.Overload("objpatch_satisfied_dyn_dyn", []*cel.Type{dyn, dyn}, cel.BoolType, cel.BinaryBinding(mem.objSatisfiedFn))),
		cel.Function("objpatch.retained",
			cel.Overload("objpatch_retained_dyn_dyn", []*cel.Type{dyn, dyn}, cel.BoolType, cel.BinaryBinding(mem.objRetainedFn))),
		cel.Function("objpatch.arbitrate",
			cel.Overload("objpatch_arbitrate_dyn_dyn_list", []*cel.Type{dyn, dyn, cel.ListType(cel.StringType)}, rt.claimVerdict.CelType(), cel.FunctionBinding(mem.arbitrateFn))),
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
func (mem *Memory) ValidateSpec(spec any) map[string]any {
	patch, has, ops, err := specParts(spec)
	if err == nil {
		err = mem.tables().selectors.Validate(patch, has, ops)
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
//
// Plans are remembered in mem (nil: nowhere) by the content of target and
// spec: an object resting in a state is re-planned on every check, and its
// target seldom changes. A frozen target keeps its plans itself, as long
// as it lives.
func (mem *Memory) PlanSpec(target, spec any) map[string]any {
	tm, _ := target.(map[string]any)
	compute := func() map[string]any { return mem.planSpec(tm, spec) }
	frozen := mem.frozen()
	sf := frozen.Hash(spec)
	if frozen.Frozen(tm) {
		pc := jsonvalue.Remember(frozen, tm, "objpatch.plans", func() *targetPlans { return &targetPlans{bySpec: map[jsonvalue.Fingerprint]map[string]any{}} })
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
	return mem.tables().plans.Get([2]jsonvalue.Fingerprint{frozen.Hash(tm), sf}, compute)
}

// targetPlans are the plans of one frozen target, by spec.
type targetPlans struct {
	mu     sync.Mutex
	bySpec map[jsonvalue.Fingerprint]map[string]any
}

func (mem *Memory) planSpec(tm map[string]any, spec any) map[string]any {
	out := map[string]any{"ok": false, "error": "", "changed": false, "retained": false, "object": map[string]any{}, "merge": nil, "json": nil, "full": nil}
	patch, has, ops, err := specParts(spec)
	if err != nil {
		out["error"] = errorText(err)
		return out
	}
	if !has {
		patch = nil
	}
	sel := mem.tables().selectors
	if err := sel.Validate(patch, has, ops); err != nil {
		out["error"] = errorText(err)
		return out
	}
	res, err := objpatch.Plan(tm, patch, ops, objpatch.Options{Selectors: sel})
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
func (mem *Memory) SatisfiedSpec(obj, spec any) bool {
	p := mem.PlanSpec(obj, spec)
	return p["ok"] == true && p["changed"] == false
}

// RetainedSpec reports whether obj, as the API server stored it, holds
// spec as the server renders a patch (see objpatch.Retained): the check
// of a patch's result and of drift on a server that defaults. A plan error
// counts as not retained.
func (mem *Memory) RetainedSpec(obj, spec any) bool {
	p := mem.PlanSpec(obj, spec)
	return p["ok"] == true && p["retained"] == true
}

// StatusBlind names the library functions that read nothing a status write
// can change (status, resourceVersion, managedFields) of the objects in
// the lists they are given: objpatch.arbitrate reads each claimant's name,
// namespace, deletion timestamp, spec and the fields of its order. A runner may keep
// a decision that handed a list only to these functions when the listed
// objects' status changes (fsm.RestProfile).
var StatusBlind = map[string]bool{"objpatch.arbitrate": true}

// ArbitrateClaims decides whether self owns its claims among patches (the
// listed ObjectPatches of its namespace, or every ClusterObjectPatch; self
// is included or added), taking them in the order the rule file gives:
// order names fields of a patch ("metadata.creationTimestamp"), compared in
// turn (timestamps as times, numbers as numbers, the rest as text), ties
// broken by namespace and name. Patches being deleted and patches whose
// spec is invalid claim nothing. It returns {accepted, winner, message}.
//
// Every patch of a namespace arbitrates the same list on every check, so
// the verdicts of a whole list are remembered once for all of its members:
// a valid self, not being deleted, listed as it is, takes its verdict from
// there. Any other self is arbitrated on its own.
func (mem *Memory) ArbitrateClaims(patches []any, self map[string]any, order []string) map[string]any {
	return mem.arbitrate(patches, self, mem.claimOrderOf(order, nil))
}

func (mem *Memory) arbitrate(patches []any, self map[string]any, o claimOrder) map[string]any {
	l := mem.claimantList(patches, o)
	if l.holds(mem, self, o) {
		all := mem.tables().listVerdicts.Get(l.key, func() map[nsName]listedVerdict {
			vs := objpatch.Arbitrate(mem.claimants(patches, nil, o))
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
	sk := mem.claimantFingerprintOf(self, o)
	return mem.tables().arbitrations.Get([2]jsonvalue.Fingerprint{sk, l.key}, func() map[string]any { return mem.arbitrateClaims(patches, self, o) })
}

// A claimOrder is the order of arbitration a rule file gives: the paths of
// the fields compared in turn, and a key naming it in memos.
type claimOrder struct {
	order []string
	key   string
	paths [][]string
	// claimant is the key of claimant fingerprints in this order (see
	// claimantFingerprintOf).
	claimant string
}

func newClaimOrder(order []string) claimOrder {
	o := claimOrder{order: slices.Clone(order), key: strings.Join(order, "\x00")}
	for _, p := range order {
		o.paths = append(o.paths, strings.Split(p, "."))
	}
	o.claimant = "objpatch.claimant\x00" + o.key
	return o
}

// maxClaimOrders bounds the orders a Memory keeps parsed (a rule file
// gives one or a few).
const maxClaimOrders = 16

// claimOrderOf returns the claimOrder of order, or, when list is set (a
// CEL list of paths; order is then nil), of that list: parsed once per
// Memory, as every check of every patch arbitrates in the same order.
func (mem *Memory) claimOrderOf(order []string, list traits.Lister) claimOrder {
	t := mem.tables()
	t.orderMu.Lock()
	for _, o := range t.orders {
		if (list != nil && o.sameList(list)) || (list == nil && slices.Equal(o.order, order)) {
			t.orderMu.Unlock()
			return o
		}
	}
	t.orderMu.Unlock()
	if list != nil {
		for _, f := range ToGo(list).([]any) {
			order = append(order, fmt.Sprint(f))
		}
	}
	o := newClaimOrder(order)
	t.orderMu.Lock()
	if len(t.orders) < maxClaimOrders {
		t.orders = append(t.orders, o)
	}
	t.orderMu.Unlock()
	return o
}

// sameList reports whether list holds the strings of o's order.
func (o claimOrder) sameList(list traits.Lister) bool {
	n, ok := list.Size().(types.Int)
	if !ok || int(n) != len(o.order) {
		return false
	}
	for i, p := range o.order {
		if s, ok := list.Get(types.Int(i)).(types.String); !ok || string(s) != p {
			return false
		}
	}
	return true
}

// rank is a patch's place in the order: the value of each field, a
// timestamp as a time.
func (o claimOrder) rank(obj map[string]any) []any {
	r := make([]any, len(o.paths))
	for i, p := range o.paths {
		v, _ := jsonvalue.Lookup(obj, p)
		if sv, ok := v.(string); ok {
			if t, err := time.Parse(time.RFC3339, sv); err == nil {
				v = t
			}
		}
		r[i] = v
	}
	return r
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
	// allFrozen: every member was frozen when l was made.
	allFrozen bool
}

// claimantList returns patches as a listed. Every patch of a namespace
// arbitrates the list of its namespace, which changes one member at a
// time: mem remembers the last list arbitrated per namespace (of its first
// member), and a member that is the same frozen object as in the last list
// keeps its fingerprint without a look-up.
func (mem *Memory) claimantList(patches []any, o claimOrder) *listed {
	ns := ""
	if len(patches) > 0 {
		if obj, ok := patches[0].(map[string]any); ok {
			md, _ := obj["metadata"].(map[string]any)
			ns = str(md["namespace"])
		}
	}
	t := mem.tables()
	lk := listKey{ns, o.key}
	t.lastMu.Lock()
	last := t.lastLists[lk]
	t.lastMu.Unlock()
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
			l.fps[i], l.frozen[i] = mem.claimantFingerprintOf(obj, o), mem.frozen().Frozen(obj)
		}
		l.key[0] += l.fps[i][0]
		l.key[1] += l.fps[i][1]
	}
	l.allFrozen = !slices.Contains(l.frozen, false)
	t.lastMu.Lock()
	if t.lastLists == nil || len(t.lastLists) >= 4096 {
		t.lastLists = map[listKey]*listed{}
	}
	t.lastLists[lk] = l
	t.lastMu.Unlock()
	return l
}

// listKey names the last list arbitrated in a namespace in an order.
type listKey struct{ namespace, order string }

// sameMembers reports whether items holds the same maps in the same order
// as l, each frozen when l was made (their owners promised not to change
// them).
func (l *listed) sameMembers(items []any) bool {
	if len(l.items) != len(items) {
		return false
	}
	if len(items) > 0 && &l.items[0] == &items[0] {
		return l.allFrozen // the very list (library.Memory.List)
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
func (l *listed) holds(mem *Memory, self map[string]any, o claimOrder) bool {
	for _, it := range l.items {
		if sameMap(it, self) {
			return true
		}
	}
	fp := mem.claimantFingerprintOf(self, o)
	for _, f := range l.fps {
		if f == fp {
			return true
		}
	}
	return false
}

// claimantFingerprintOf is claimantFingerprint, remembered on a frozen obj.
func (mem *Memory) claimantFingerprintOf(obj map[string]any, o claimOrder) jsonvalue.Fingerprint {
	frozen := mem.frozen()
	return jsonvalue.Remember(frozen, obj, o.claimant, func() jsonvalue.Fingerprint { return claimantFingerprint(frozen, obj, o) })
}

// claimantFingerprint fingerprints what arbitration reads of one patch:
// its name, namespace, deletion timestamp, spec and the fields of the
// order (not its status, which every check rewrites).
func claimantFingerprint(frozen *jsonvalue.Registry, obj map[string]any, o claimOrder) jsonvalue.Fingerprint {
	md, _ := obj["metadata"].(map[string]any)
	spec := frozen.Hash(obj["spec"])
	var buf [16]byte
	binary.LittleEndian.PutUint64(buf[:8], spec[0])
	binary.LittleEndian.PutUint64(buf[8:], spec[1])
	var key [256]byte
	b := key[:0]
	for _, s := range []string{str(md["namespace"]), str(md["name"]), str(md["deletionTimestamp"])} {
		b = append(append(b, s...), 0)
	}
	for _, p := range o.paths {
		v, _ := jsonvalue.Lookup(obj, p)
		b = append(appendTyped(b, v), 0)
	}
	b = append(b, buf[:]...)
	return jsonvalue.Fingerprint{xxh3.HashSeed(b, claimantSeeds[0]), xxh3.HashSeed(b, claimantSeeds[1])}
}

// appendTyped appends v's Go type and value, as fmt's %T and %v print
// them; strings (names, timestamps) and nil without fmt.
func appendTyped(b []byte, v any) []byte {
	switch x := v.(type) {
	case string:
		return append(append(b, "string"...), x...)
	case nil:
		return append(b, "<nil><nil>"...)
	}
	return fmt.Append(fmt.Appendf(b, "%T", v), v)
}

// claimantSeeds are fixed, so that every run fingerprints alike.
var claimantSeeds = [2]uint64{0xa4093822299f31d0, 0x082efa98ec4e6c89}

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
func (mem *Memory) claimants(patches []any, self map[string]any, o claimOrder) []objpatch.Claimant {
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
		c := mem.claimsOf(obj, md)
		if !c.valid && (self == nil || k != selfKey) {
			return
		}
		cs = append(cs, objpatch.Claimant{Key: k, Target: c.target, Rank: o.rank(obj), Claims: c.claims})
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

func (mem *Memory) arbitrateClaims(patches []any, self map[string]any, o claimOrder) map[string]any {
	return verdictValue(objpatch.Arbitrate(mem.claimants(patches, self, o))[claimantKey(self)])
}

// specClaims is what a patch's spec claims: valid is false when the spec
// does not validate (it then claims nothing, unless it is the claimant
// asking).
type specClaims struct {
	valid  bool
	target string
	claims []objpatch.Claim
}

type claimsKey struct {
	namespace string
	spec      jsonvalue.Fingerprint
}

// claimsOf returns what a patch claims, remembered in mem by namespace and
// spec (every sibling patch is arbitrated again on every check of every
// patch); a frozen patch keeps its claims itself.
func (mem *Memory) claimsOf(obj, md map[string]any) specClaims {
	frozen := mem.frozen()
	if frozen.Frozen(obj) {
		return jsonvalue.Remember(frozen, obj, "objpatch.claims", func() specClaims { return mem.computeClaims(obj, md) })
	}
	return mem.tables().claimsBySpec.Get(claimsKey{str(md["namespace"]), frozen.Hash(obj["spec"])}, func() specClaims { return mem.computeClaims(obj, md) })
}

// computeClaims reads what a patch's spec claims in its namespace.
func (mem *Memory) computeClaims(obj, md map[string]any) specClaims {
	spec, _ := obj["spec"].(map[string]any)
	patch, has, ops, err := specParts(spec)
	sel := mem.tables().selectors
	if err == nil {
		err = sel.Validate(patch, has, ops)
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
		claims: sel.Claims(patch, ops),
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func (mem *Memory) validateFn(spec ref.Val) ref.Val {
	return canonicalToCEL(mem.ValidateSpec(ToGo(spec)))
}

// planFn's plan is canonical by construction: objpatch.Plan normalizes the
// target it plans, the patches are decoded or taken from its result, the
// rest are strings and bools.
func (mem *Memory) planFn(target, spec ref.Val) ref.Val {
	return canonicalToCEL(mem.PlanSpec(ToGo(target), ToGo(spec)))
}

func (mem *Memory) objSatisfiedFn(obj, spec ref.Val) ref.Val {
	return types.Bool(mem.SatisfiedSpec(ToGo(obj), ToGo(spec)))
}

func (mem *Memory) arbitrateFn(args ...ref.Val) ref.Val {
	list, ok := ToGo(args[0]).([]any)
	if !ok {
		return types.NewErr("objpatch.arbitrate: first argument is not a list")
	}
	s, ok := ToGo(args[1]).(map[string]any)
	if !ok {
		return types.NewErr("objpatch.arbitrate: second argument is not an object")
	}
	order, ok := args[2].(traits.Lister)
	if !ok {
		return types.NewErr("objpatch.arbitrate: third argument is not a list")
	}
	return canonicalToCEL(mem.arbitrate(list, s, mem.claimOrderOf(nil, order))) // strings and bools
}

func (mem *Memory) objRetainedFn(obj, spec ref.Val) ref.Val {
	return types.Bool(mem.RetainedSpec(ToGo(obj), ToGo(spec)))
}
