package library

// CEL functions for the ClusterObjectDeployment and ClusterObjectSet
// policies (rules/policies/clusterobjectdeployment.hcl and
// clusterobjectset.hcl). They compute: a template's hash, the next revision
// number, which objects of a revision to apply, what the probes say, what a
// teardown still has to do. The rule files decide what each result means for
// the lifecycle (which condition, which state, whether to write).

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/statecraft/statecraft/jsonvalue"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// rolloutLib is the rollout functions, remembering in mem, their records
// typed by rt.
type rolloutLib struct {
	mem *Memory
	rt  *resultTypes
}

func (l rolloutLib) LibraryName() string { return "statecraft.rollout" }

func (l rolloutLib) ProgramOptions() []cel.ProgramOption { return nil }

func (l rolloutLib) CompileOptions() []cel.EnvOption {
	dyn := cel.DynType
	str := cel.StringType
	list := cel.ListType(cel.DynType)
	unary := func(name string, out *cel.Type, f func(any) any) cel.EnvOption {
		return cel.Function(name, cel.Overload(strings.ReplaceAll(name, ".", "_")+"_dyn", []*cel.Type{dyn}, out,
			cel.UnaryBinding(func(v ref.Val) ref.Val { return ToCEL(f(ToGo(v))) })))
	}
	return []cel.EnvOption{
		unary("rollout.templateHash", str, func(v any) any { return TemplateHash(v) }),
		unary("rollout.nextRevision", cel.IntType, func(v any) any { return NextRevision(v) }),
		unary("rollout.metadataError", str, func(v any) any { return MetadataError(v) }),
		unary("rollout.byRevision", list, func(v any) any { return ByRevision(v) }),
		unary("rollout.controller", l.rt.ownerReference.CelType(), func(v any) any { return Controller(v) }),
		unary("rollout.kinds", listOf(l.rt.kind), func(v any) any { return Kinds(v) }),
		cel.Function("rollout.resolve",
			cel.Overload("rollout_resolve_dyn_dyn", []*cel.Type{dyn, dyn}, l.rt.resolution.CelType(),
				cel.BinaryBinding(func(a, b ref.Val) ref.Val { return ToCEL(Resolve(ToGo(a), ToGo(b))) }))),
		cel.Function("rollout.observe",
			cel.Overload("rollout_observe_dyn_dyn_dyn", []*cel.Type{dyn, dyn, dyn}, listOf(l.rt.observed),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return ToCEL(Observe(ToGo(args[0]), ToGo(args[1]), ToGo(args[2])))
				}))),
		cel.Function("rollout.probe",
			cel.Overload("rollout_probe_dyn_dyn", []*cel.Type{dyn, dyn}, l.rt.probeVerdict.CelType(),
				cel.BinaryBinding(func(a, b ref.Val) ref.Val { return ToCEL(l.mem.Probe(ToGo(a), ToGo(b))) }))),
		cel.Function("rollout.setConditions",
			cel.Overload("rollout_setconditions_dyn_dyn_timestamp_int", []*cel.Type{dyn, dyn, cel.TimestampType, cel.IntType}, listOf(l.rt.condition),
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					ts, ok1 := args[2].(types.Timestamp)
					gen, ok2 := args[3].(types.Int)
					if !ok1 || !ok2 {
						return types.NewErr("rollout.setConditions: want (list, list, timestamp, int)")
					}
					return ToCEL(SetConditions(ToGo(args[0]), ToGo(args[1]), ts.Time, int64(gen)))
				}))),
	}
}

// ---- small accessors ----

func roMap(v any) map[string]any {
	m, _ := v.(map[string]any)
	if m == nil {
		return map[string]any{}
	}
	return m
}

func roList(v any) []any {
	l, _ := v.([]any)
	return l
}

func roStr(v any) string {
	s, _ := v.(string)
	return s
}

func roInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case int:
		return int64(x)
	case float64:
		return int64(x)
	case string:
		n, _ := strconv.ParseInt(x, 10, 64)
		return n
	}
	return 0
}

// path reads a dotted path ("status.phase", ".status.phase") from obj.
func roPath(obj any, p string) (any, bool) {
	return jsonvalue.Lookup(obj, jsonvalue.DottedPath(strings.TrimPrefix(p, ".")))
}

// ---- revisions ----

// TemplateHash is the hex of the first 4 bytes of the SHA-256 of the
// template's canonical JSON (sorted keys), as orb's COD controller computes
// it. Any change to the template, including the order of phases, objects
// and probes (lists keep their order), changes the hash.
func TemplateHash(template any) string {
	b, _ := json.Marshal(Normalize(template)) // encoding/json sorts map keys
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4])
}

// NextRevision is one more than the highest spec.revision among the given
// ClusterObjectSets (1 for none). It does not cap: the rule file decides
// what a number beyond the allowed range means.
func NextRevision(sets any) int64 {
	var max int64
	for _, s := range roList(sets) {
		if r := roInt(roMap(roMap(s)["spec"])["revision"]); r > max {
			max = r
		}
	}
	return max + 1
}

// ByRevision returns the ClusterObjectSets sorted by spec.revision, then name.
func ByRevision(sets any) []any {
	out := append([]any(nil), roList(sets)...)
	sort.SliceStable(out, func(i, j int) bool {
		ri := roInt(roMap(roMap(out[i])["spec"])["revision"])
		rj := roInt(roMap(roMap(out[j])["spec"])["revision"])
		if ri != rj {
			return ri < rj
		}
		return roStr(roMap(roMap(out[i])["metadata"])["name"]) < roStr(roMap(roMap(out[j])["metadata"])["name"])
	})
	return out
}

// Controller returns the owner reference of obj marked controller: true, or
// an empty map.
func Controller(obj any) map[string]any {
	for _, r := range roList(roMap(roMap(obj)["metadata"])["ownerReferences"]) {
		if b, _ := roMap(r)["controller"].(bool); b {
			return roMap(r)
		}
	}
	return map[string]any{}
}

// MetadataError checks a template's metadata (labels and annotations) as
// the API server checks object metadata. It returns "" when valid, else a
// message naming the first offending key.
func MetadataError(meta any) string {
	m := roMap(meta)
	labels := roMap(m["labels"])
	for _, k := range SortedKeys(labels) {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			return fmt.Sprintf("spec.template.metadata.labels: invalid key %q: %s", k, strings.Join(errs, "; "))
		}
		v, ok := labels[k].(string)
		if !ok {
			return fmt.Sprintf("spec.template.metadata.labels[%q]: value must be a string", k)
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Sprintf("spec.template.metadata.labels[%q]: invalid value %q: %s", k, v, strings.Join(errs, "; "))
		}
	}
	ann := roMap(m["annotations"])
	total := 0
	for _, k := range SortedKeys(ann) {
		if errs := validation.IsQualifiedName(strings.ToLower(k)); len(errs) > 0 {
			return fmt.Sprintf("spec.template.metadata.annotations: invalid key %q: %s", k, strings.Join(errs, "; "))
		}
		v, ok := ann[k].(string)
		if !ok {
			return fmt.Sprintf("spec.template.metadata.annotations[%q]: value must be a string", k)
		}
		total += len(k) + len(v)
	}
	if total > 256*1024 {
		return "spec.template.metadata.annotations: total size must be at most 262144 bytes"
	}
	return ""
}

// ---- conditions ----

// SetConditions returns existing with each update ({type, status, reason,
// message}) applied: lastTransitionTime is now when the status changes or
// the condition is new, else kept; observedGeneration is gen. Conditions
// not updated are kept; the result is sorted by type.
func SetConditions(existing, updates any, now time.Time, gen int64) []any {
	byType := map[string]map[string]any{}
	for _, c := range roList(existing) {
		cm := roMap(c)
		byType[roStr(cm["type"])] = cm
	}
	for _, u := range roList(updates) {
		um := roMap(u)
		t := roStr(um["type"])
		old, had := byType[t]
		c := map[string]any{
			"type": t, "status": um["status"], "reason": um["reason"], "message": roStr(um["message"]),
			"observedGeneration": gen, "lastTransitionTime": now.UTC().Format(time.RFC3339),
		}
		if had && old["status"] == um["status"] && roStr(old["lastTransitionTime"]) != "" {
			c["lastTransitionTime"] = old["lastTransitionTime"]
		}
		byType[t] = c
	}
	out := make([]any, 0, len(byType))
	for _, k := range SortedKeys(byType) {
		out = append(out, byType[k])
	}
	return out
}

// ---- a revision's objects ----

var roDNS1035 = regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)

func roKey(o map[string]any) string {
	md := roMap(o["metadata"])
	gv := roStr(o["apiVersion"])
	group := ""
	if i := strings.Index(gv, "/"); i >= 0 {
		group = gv[:i]
	}
	return group + "/" + roStr(o["kind"]) + "/" + roStr(md["namespace"]) + "/" + roStr(md["name"])
}

// Resolve renders the objects of a ClusterObjectSet (or a COD template's
// spec wrapped as {spec: ...}): inline manifests as they are, secretRef
// entries from the given Secrets (data[key], base64 YAML or JSON). It
// returns {objects, error, errorKind}: objects is a flat list of
// {phase, phaseIndex, index, object, collisionProtection: {object, phase}},
// the collision protection the object and its phase name ("" for none: the
// rule file decides which level wins and the default); errorKind is
// "invalid" (a manifest or phase is malformed, a referenced Secret is not
// immutable, an object appears twice), "missing" (a referenced Secret or
// key does not exist) or "".
func Resolve(cos, secrets any) map[string]any {
	spec := roMap(roMap(cos)["spec"])
	out := map[string]any{"objects": []any{}, "error": "", "errorKind": ""}
	fail := func(kind, format string, args ...any) map[string]any {
		out["objects"], out["error"], out["errorKind"] = []any{}, fmt.Sprintf(format, args...), kind
		return out
	}
	byName := map[string]map[string]any{}
	for _, s := range roList(secrets) {
		md := roMap(roMap(s)["metadata"])
		byName[roStr(md["namespace"])+"/"+roStr(md["name"])] = roMap(s)
	}
	seen := map[string]string{}
	var objs []any
	for pi, p := range roList(spec["phases"]) {
		pm := roMap(p)
		pname := roStr(pm["name"])
		if !roDNS1035.MatchString(pname) || len(pname) > 63 {
			return fail("invalid", "phases[%d].name %q must be a DNS-1035 label", pi, pname)
		}
		phaseCP := roStr(pm["collisionProtection"])
		for oi, o := range roList(pm["objects"]) {
			om := roMap(o)
			where := fmt.Sprintf("phases[%d] (%s) objects[%d]", pi, pname, oi)
			var obj map[string]any
			switch {
			case om["inlineManifest"] != nil:
				obj = roMap(roCopy(om["inlineManifest"]))
			case om["object"] != nil:
				obj = roMap(roCopy(om["object"]))
			case om["secretRef"] != nil:
				sr := roMap(om["secretRef"])
				key := roStr(sr["namespace"]) + "/" + roStr(sr["name"])
				sec, ok := byName[key]
				if !ok {
					return fail("missing", "%s: Secret %s not found", where, key)
				}
				if imm, _ := sec["immutable"].(bool); !imm {
					return fail("invalid", "%s: Secret %s must be immutable", where, key)
				}
				raw, ok := roMap(sec["data"])[roStr(sr["key"])].(string)
				if !ok {
					return fail("missing", "%s: Secret %s has no key %q", where, key, roStr(sr["key"]))
				}
				dec, err := base64.StdEncoding.DecodeString(raw)
				if err != nil {
					return fail("invalid", "%s: Secret %s key %q is not base64: %v", where, key, roStr(sr["key"]), err)
				}
				var v any
				if err := yaml.Unmarshal(dec, &v); err != nil {
					return fail("invalid", "%s: Secret %s key %q is not a manifest: %v", where, key, roStr(sr["key"]), err)
				}
				obj = roMap(Normalize(v))
			default:
				return fail("invalid", "%s: one of inlineManifest or secretRef is required", where)
			}
			md := roMap(obj["metadata"])
			switch {
			case roStr(obj["apiVersion"]) == "" || roStr(obj["kind"]) == "":
				return fail("invalid", "%s: apiVersion and kind must be set", where)
			case roStr(md["name"]) == "":
				return fail("invalid", "%s: metadata.name must be set", where)
			}
			for _, f := range []string{"uid", "resourceVersion", "generation", "ownerReferences", "finalizers", "deletionTimestamp", "creationTimestamp"} {
				if _, has := md[f]; has {
					return fail("invalid", "%s: metadata.%s must not be set", where, f)
				}
			}
			k := roKey(obj)
			if prev, dup := seen[k]; dup {
				return fail("invalid", "%s: duplicate object %s %s, also in %s", where, obj["kind"], roDescribe(obj), prev)
			}
			seen[k] = where
			protection := map[string]any{"object": roStr(om["collisionProtection"]), "phase": phaseCP}
			objs = append(objs, map[string]any{"phase": pname, "phaseIndex": int64(pi), "index": int64(oi), "object": obj, "collisionProtection": protection})
		}
	}
	if objs != nil {
		out["objects"] = objs
	}
	return out
}

func roDescribe(obj map[string]any) string {
	md := roMap(obj["metadata"])
	if ns := roStr(md["namespace"]); ns != "" {
		return ns + "/" + roStr(md["name"])
	}
	return roStr(md["name"])
}

func roCopy(v any) any {
	b, _ := json.Marshal(v)
	out, _ := DecodeJSON(b)
	return out
}

// Kinds lists the distinct {apiVersion, kind} of resolved objects, sorted.
func Kinds(objects any) []any {
	seen := map[string]map[string]any{}
	for _, o := range roList(objects) {
		obj := roMap(roMap(o)["object"])
		k := roStr(obj["apiVersion"]) + " " + roStr(obj["kind"])
		seen[k] = map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"]}
	}
	out := []any{}
	for _, k := range SortedKeys(seen) {
		out = append(out, seen[k])
	}
	return out
}

func roRef(obj map[string]any) map[string]any {
	md := roMap(obj["metadata"])
	return map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "namespace": roStr(md["namespace"]), "name": md["name"]}
}

// roFindLive finds the live object with obj's identity among the listed
// objects (lists: a list of lists of objects, or a flat list).
func roFindLive(obj map[string]any, lists any) (map[string]any, bool) {
	want := roKey(obj)
	var scan func(v any) (map[string]any, bool)
	scan = func(v any) (map[string]any, bool) {
		for _, e := range roList(v) {
			if l, isList := e.([]any); isList {
				if m, ok := scan(l); ok {
					return m, true
				}
				continue
			}
			if m := roMap(e); roKey(m) == want {
				return m, true
			}
		}
		return nil, false
	}
	return scan(lists)
}

// roSiblingRevision reports whether owner reference r names a ClusterObjectSet
// of group (named <group>-<revision>, as the COS admission requires) and
// returns that revision.
func roSiblingRevision(r map[string]any, group string) (int64, bool) {
	if roStr(r["kind"]) != "ClusterObjectSet" || !strings.HasPrefix(roStr(r["name"]), group+"-") {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(roStr(r["name"]), group+"-"), 10, 64)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

func roOwnerRef(cos map[string]any, controller bool) map[string]any {
	md := roMap(cos["metadata"])
	return map[string]any{
		"apiVersion": cos["apiVersion"], "kind": cos["kind"], "name": md["name"], "uid": md["uid"],
		"controller": controller, "blockOwnerDeletion": true,
	}
}

// Observe sets each object of a ClusterObjectSet (objects: what Resolve
// renders) beside what the cluster holds (lists: the listed objects of each
// kind, as a list of lists, or one flat list) and reports, in the objects'
// order, the facts a rollout or a teardown is decided on:
//
//   - phase, phaseIndex, index, collisionProtection: as resolved;
//   - ref: the object's {apiVersion, kind, namespace, name};
//   - exists, live (the live object, {} when it does not exist), deleting
//     (it has a deletionTimestamp);
//   - controller: its owner reference marked controller ({} for none);
//     controlledBySelf: that is this ClusterObjectSet; controllerRevision:
//     the revision of the ClusterObjectSet of this one's group that controls
//     it (named GROUP-N, as the COS admission requires; this one's own when
//     it does), 0 when another object or nothing does;
//   - referencedBySelf: an owner reference, controller or not, names this
//     ClusterObjectSet; ownerReferences: its owner references but this
//     one's (what a release leaves);
//   - manifest: the object as this revision applies it, owner references
//     included: the live ones when this revision controls it, else the
//     others' kept with controller false (a handoff) and this one's as
//     controller;
//   - inSync: it exists and holds everything manifest says, as after a
//     server-side apply of it (fields the server defaulted are not a
//     difference).
//
// It decides nothing: which relation an object has to the revision (owned,
// adopted, progressed, a collision), what a phase still needs, the order of
// phases in a rollout and a teardown are the rule file's.
func Observe(cos, objects, lists any) []any {
	self := roMap(cos)
	spec := roMap(self["spec"])
	group := roStr(spec["group"])
	uid := roStr(roMap(self["metadata"])["uid"])
	out := []any{}
	for _, o := range roList(objects) {
		om := roMap(o)
		desired := roMap(roCopy(om["object"]))
		live, exists := roFindLive(desired, lists)
		entry := map[string]any{
			"phase": roStr(om["phase"]), "phaseIndex": roInt(om["phaseIndex"]), "index": roInt(om["index"]),
			"ref": roRef(desired), "collisionProtection": roMap(om["collisionProtection"]),
			"exists": exists, "live": map[string]any{}, "deleting": false,
			"controller": map[string]any{}, "controllerRevision": int64(0), "controlledBySelf": false,
			"referencedBySelf": false, "ownerReferences": []any{}, "inSync": false,
		}
		refs := []any{roOwnerRef(self, true)}
		if exists {
			ctrl := Controller(live)
			controlled := len(ctrl) > 0 && roStr(ctrl["uid"]) == uid
			rev, _ := roSiblingRevision(ctrl, group)
			others, mine := []any{}, false
			for _, r := range roList(roMap(live["metadata"])["ownerReferences"]) {
				if roStr(roMap(r)["uid"]) == uid {
					mine = true
					continue
				}
				others = append(others, r)
			}
			entry["live"], entry["deleting"] = live, roStr(roMap(live["metadata"])["deletionTimestamp"]) != ""
			entry["controller"], entry["controllerRevision"], entry["controlledBySelf"] = ctrl, rev, controlled
			entry["referencedBySelf"], entry["ownerReferences"] = mine, others
			if controlled {
				refs = roList(roMap(live["metadata"])["ownerReferences"])
			} else {
				refs = nil
				for _, r := range others {
					rm := roMap(roCopy(r))
					rm["controller"] = false
					refs = append(refs, rm)
				}
				refs = append(refs, roOwnerRef(self, true))
			}
		}
		if refs != nil {
			roMapInto(desired, "metadata")["ownerReferences"] = refs
		}
		entry["manifest"] = desired
		entry["inSync"] = exists && roSatisfied(live, desired)
		out = append(out, entry)
	}
	return out
}

func roMapInto(m map[string]any, key string) map[string]any {
	sub, ok := m[key].(map[string]any)
	if !ok {
		sub = map[string]any{}
		m[key] = sub
	}
	return sub
}

// roSatisfied reports whether live holds everything desired says, as
// after a server-side apply of it: fields the server defaulted (a
// container's imagePullPolicy, say) are not a difference.
func roSatisfied(live, desired map[string]any) bool {
	return jsonvalue.Contains(Normalize(live), Normalize(desired))
}

// ---- probes ----

func roOrNone(v any) any {
	if v == nil {
		return "unset"
	}
	return v
}

func roConditionIs(obj map[string]any, t, s string) bool {
	for _, c := range roList(roMap(obj["status"])["conditions"]) {
		cm := roMap(c)
		if roStr(cm["type"]) == t {
			return roStr(cm["status"]) == s
		}
	}
	return false
}

func roProbeSelects(sel map[string]any, obj map[string]any) bool {
	switch roStr(sel["type"]) {
	case "GroupKind":
		gk := roMap(sel["groupKind"])
		gv := roStr(obj["apiVersion"])
		group := ""
		if i := strings.Index(gv, "/"); i >= 0 {
			group = gv[:i]
		}
		return roStr(gk["group"]) == group && roStr(gk["kind"]) == roStr(obj["kind"])
	case "Label":
		labels := roMap(roMap(obj["metadata"])["labels"])
		for k, v := range roMap(roMap(sel["label"])["matchLabels"]) {
			if labels[k] != v {
				return false
			}
		}
		return true
	}
	return false
}

// probeProgram is a compiled CEL assertion of a probe, or why it does not
// compile.
type probeProgram struct {
	prg cel.Program
	err error
}

// celAssertion evaluates a probe's CEL assertion on obj, compiled by
// mem's CompileAssertion; the program is remembered in mem.
func (mem *Memory) celAssertion(expr string, obj map[string]any) (bool, error) {
	v := mem.tables().probes.Get(expr, func() probeProgram {
		if mem == nil || mem.CompileAssertion == nil {
			return probeProgram{err: fmt.Errorf("no compiler for CEL assertions (the machine's compiler gives the library one)")}
		}
		prg, err := mem.CompileAssertion(expr)
		return probeProgram{prg: prg, err: err}
	})
	if v.err != nil {
		return false, v.err
	}
	out, _, err := v.prg.Eval(map[string]any{"self": obj})
	if err != nil {
		return false, err
	}
	b, isBool := out.Value().(bool)
	if !isBool {
		return false, fmt.Errorf("expression did not evaluate to a bool")
	}
	return b, nil
}

// Probe evaluates the progression probes a ClusterObjectSet's author
// wrote (probes: spec.progressionProbes) on a live object: every probe whose
// selector (GroupKind, Label) matches it, each assertion in order
// (ConditionEqual, FieldsEqual, FieldValue, CEL). It returns {ready,
// message}: ready when every assertion holds, else the first failing
// assertion's message. A CEL assertion is compiled by the machine's
// compiler (Memory.CompileAssertion), with its limits. What else makes an
// object ready (its kind's readiness, an observed generation) is the rule
// file's.
func (mem *Memory) Probe(object, probes any) map[string]any {
	obj := roMap(object)
	res := func(ok bool, msg string) map[string]any { return map[string]any{"ready": ok, "message": msg} }
	for _, p := range roList(probes) {
		pm := roMap(p)
		if !roProbeSelects(roMap(pm["selector"]), obj) {
			continue
		}
		for _, a := range roList(pm["assertions"]) {
			am := roMap(a)
			switch roStr(am["type"]) {
			case "ConditionEqual":
				ce := roMap(am["conditionEqual"])
				if !roConditionIs(obj, roStr(ce["type"]), roStr(ce["status"])) {
					return res(false, fmt.Sprintf("condition %s is not %s", roStr(ce["type"]), roStr(ce["status"])))
				}
			case "FieldsEqual":
				fe := roMap(am["fieldsEqual"])
				va, okA := roPath(obj, roStr(fe["fieldA"]))
				vb, okB := roPath(obj, roStr(fe["fieldB"]))
				if !okA || !okB || !reflect.DeepEqual(va, vb) {
					return res(false, fmt.Sprintf("%s (%v) does not equal %s (%v)", roStr(fe["fieldA"]), roOrNone(va), roStr(fe["fieldB"]), roOrNone(vb)))
				}
			case "FieldValue":
				fv := roMap(am["fieldValue"])
				v, has := roPath(obj, roStr(fv["fieldPath"]))
				if !has || fmt.Sprint(v) != fmt.Sprint(fv["value"]) {
					return res(false, fmt.Sprintf("%s is %v, not %v", roStr(fv["fieldPath"]), roOrNone(v), fv["value"]))
				}
			case "CEL":
				c := roMap(am["cel"])
				ok, err := mem.celAssertion(roStr(c["expression"]), obj)
				if err != nil {
					return res(false, fmt.Sprintf("CEL assertion %q: %v", roStr(c["expression"]), err))
				}
				if !ok {
					msg := roStr(c["message"])
					if msg == "" {
						msg = fmt.Sprintf("CEL assertion %q is false", roStr(c["expression"]))
					}
					return res(false, msg)
				}
			default:
				return res(false, fmt.Sprintf("unknown assertion type %q", roStr(am["type"])))
			}
		}
	}
	return res(true, "")
}
