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
	"github.com/google/cel-go/ext"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// rolloutLib is the rollout functions, remembering in mem.
type rolloutLib struct{ mem *Memory }

func (l rolloutLib) LibraryName() string { return "statecraft.rollout" }

func (l rolloutLib) ProgramOptions() []cel.ProgramOption { return nil }

func (l rolloutLib) CompileOptions() []cel.EnvOption {
	dyn := cel.DynType
	str := cel.StringType
	mapSD := cel.MapType(cel.StringType, cel.DynType)
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
		unary("rollout.controller", mapSD, func(v any) any { return Controller(v) }),
		unary("rollout.kinds", list, func(v any) any { return Kinds(v) }),
		cel.Function("rollout.resolve",
			cel.Overload("rollout_resolve_dyn_dyn", []*cel.Type{dyn, dyn}, mapSD,
				cel.BinaryBinding(func(a, b ref.Val) ref.Val { return ToCEL(Resolve(ToGo(a), ToGo(b))) }))),
		cel.Function("rollout.plan",
			cel.Overload("rollout_plan_dyn_dyn_dyn", []*cel.Type{dyn, dyn, dyn}, mapSD,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return ToCEL(l.mem.Plan(ToGo(args[0]), ToGo(args[1]), ToGo(args[2])))
				}))),
		cel.Function("rollout.teardown",
			cel.Overload("rollout_teardown_dyn_dyn_dyn", []*cel.Type{dyn, dyn, dyn}, mapSD,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val {
					return ToCEL(Teardown(ToGo(args[0]), ToGo(args[1]), ToGo(args[2])))
				}))),
		cel.Function("rollout.probe",
			cel.Overload("rollout_probe_dyn_dyn", []*cel.Type{dyn, dyn}, mapSD,
				cel.BinaryBinding(func(a, b ref.Val) ref.Val { return ToCEL(l.mem.Probe(ToGo(a), ToGo(b))) }))),
		cel.Function("rollout.setConditions",
			cel.Overload("rollout_setconditions_dyn_dyn_timestamp_int", []*cel.Type{dyn, dyn, cel.TimestampType, cel.IntType}, list,
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
// {phase, phaseIndex, index, object, collisionProtection}; errorKind is
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
	specCP := roStr(spec["collisionProtection"])
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
			cp := roStr(om["collisionProtection"])
			if cp == "" {
				cp = phaseCP
			}
			if cp == "" {
				cp = specCP
			}
			if cp == "" {
				cp = "Prevent"
			}
			objs = append(objs, map[string]any{"phase": pname, "phaseIndex": int64(pi), "index": int64(oi), "object": obj, "collisionProtection": cp})
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

// Plan classifies every object of a ClusterObjectSet against the live
// cluster (lists: the listed objects of each kind, as a list of lists) and
// evaluates its probes. Relations, after boxcutter's ownership handoff and
// collision rules:
//
//   - "create": the object does not exist;
//   - "owned": this COS is its controller;
//   - "adopt": a lower revision of the same group controls it (handoff), or
//     it has no controller and protection is IfNoController or None, or
//     another controller and protection is None;
//   - "progressed": a higher revision of the same group controls it (this
//     revision leaves it alone);
//   - "collision": anything else.
//
// Progressed objects do not hold a phase back; they are listed in
// progressed (the rule file decides what a revision whose objects moved on
// is).
//
// It returns {phases, active, apply, collisions, probeFailures, progressed,
// complete}:
// phases is [{name, complete, objects: [{ref, relation, ready, inSync,
// message}]}]; active is the index of the first incomplete phase (the
// number of phases when all are complete); apply the manifests (with this
// COS as controller owner) of the active phase that need a write;
// collisions and probeFailures messages about the active phase.
func (mem *Memory) Plan(cos, objects, lists any) map[string]any {
	self := roMap(cos)
	spec := roMap(self["spec"])
	group := roStr(spec["group"])
	rev := roInt(spec["revision"])
	uid := roStr(roMap(self["metadata"])["uid"])
	probes := spec["progressionProbes"]

	type phase struct {
		name     string
		complete bool
		objects  []any
		apply    []any
		coll     []any
		fail     []any
	}
	var phases []*phase
	byIndex := map[int64]*phase{}
	progressed := []any{}
	for _, o := range roList(objects) {
		om := roMap(o)
		pi := roInt(om["phaseIndex"])
		ph, ok := byIndex[pi]
		if !ok {
			ph = &phase{name: roStr(om["phase"]), complete: true}
			byIndex[pi] = ph
			phases = append(phases, ph)
		}
		desired := roMap(roCopy(om["object"]))
		cp := roStr(om["collisionProtection"])
		live, exists := roFindLive(desired, lists)
		relation, msg := "create", ""
		var refs []any
		if exists {
			ctrl := Controller(live)
			sibRev, sibling := roSiblingRevision(ctrl, group)
			switch {
			case len(ctrl) > 0 && roStr(ctrl["uid"]) == uid:
				relation = "owned"
				refs = roList(roMap(live["metadata"])["ownerReferences"])
			case sibling && sibRev < rev:
				relation = "adopt"
			case sibling && sibRev > rev:
				relation = "progressed"
				msg = fmt.Sprintf("%s %s is controlled by the newer revision %s", desired["kind"], roDescribe(desired), ctrl["name"])
			case sibling:
				relation, msg = "collision", fmt.Sprintf("%s %s is controlled by %s %s with the same revision", desired["kind"], roDescribe(desired), ctrl["kind"], ctrl["name"])
			case len(ctrl) > 0 && cp != "None":
				relation, msg = "collision", fmt.Sprintf("%s %s is controlled by %s %s (collisionProtection %s)", desired["kind"], roDescribe(desired), ctrl["kind"], ctrl["name"], cp)
			case len(ctrl) == 0 && cp == "Prevent":
				relation, msg = "collision", fmt.Sprintf("%s %s exists and is not managed by this revision (collisionProtection Prevent)", desired["kind"], roDescribe(desired))
			default:
				relation = "adopt"
			}
			if relation == "adopt" {
				for _, r := range roList(roMap(live["metadata"])["ownerReferences"]) {
					rm := roMap(roCopy(r))
					if roStr(rm["uid"]) == uid {
						continue
					}
					rm["controller"] = false
					refs = append(refs, rm)
				}
				refs = append(refs, roOwnerRef(self, true))
			}
		} else {
			refs = []any{roOwnerRef(self, true)}
		}
		if refs != nil {
			roMapInto(desired, "metadata")["ownerReferences"] = refs
		}
		inSync := exists && (relation == "owned") && roSatisfied(live, desired)
		ready := false
		probeMsg := ""
		switch {
		case relation == "progressed":
			ready = true
		case exists && relation == "owned":
			pr := mem.Probe(live, probes)
			ready, _ = pr["ready"].(bool)
			probeMsg = roStr(pr["message"])
		case exists:
			probeMsg = "not yet managed by this revision"
		default:
			probeMsg = "not created yet"
		}
		entry := map[string]any{"ref": roRef(desired), "relation": relation, "ready": ready, "inSync": inSync, "message": msg}
		if probeMsg != "" && !ready {
			entry["message"] = probeMsg
		}
		ph.objects = append(ph.objects, entry)
		switch {
		case relation == "collision":
			ph.complete = false
			ph.coll = append(ph.coll, msg)
		case relation == "progressed":
			progressed = append(progressed, msg)
		case !inSync:
			ph.complete = false
			ph.apply = append(ph.apply, desired)
		case !ready:
			ph.complete = false
			ph.fail = append(ph.fail, fmt.Sprintf("%s %s: %s", desired["kind"], roDescribe(desired), probeMsg))
		}
	}
	out := map[string]any{"phases": []any{}, "active": int64(len(phases)), "activeName": "", "apply": []any{}, "collisions": []any{}, "probeFailures": []any{}, "progressed": progressed, "complete": true}
	var list []any
	found := false
	for i, ph := range phases {
		list = append(list, map[string]any{"name": ph.name, "complete": ph.complete, "objects": ph.objects})
		if !ph.complete && !found {
			found = true
			out["active"], out["activeName"], out["complete"] = int64(i), ph.name, false
			if ph.apply != nil {
				out["apply"] = ph.apply
			}
			if ph.coll != nil {
				out["collisions"] = ph.coll
			}
			if ph.fail != nil {
				out["probeFailures"] = ph.fail
			}
		}
	}
	if list != nil {
		out["phases"] = list
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

// Teardown computes what an archived ClusterObjectSet still has to do, in
// reverse phase order: in the last phase that still holds objects carrying
// its owner reference, delete the ones it controls and release (remove its
// owner reference from) the ones another revision controls; objects already
// being deleted are waited for. It returns {phase, delete: [refs],
// release: [{ref, ownerReferences}], waiting: [refs], done}.
func Teardown(cos, objects, lists any) map[string]any {
	self := roMap(cos)
	uid := roStr(roMap(self["metadata"])["uid"])
	out := map[string]any{"phase": "", "delete": []any{}, "release": []any{}, "waiting": []any{}, "done": true}
	objs := roList(objects)
	byPhase := map[int64][]map[string]any{}
	var order []int64
	names := map[int64]string{}
	for _, o := range objs {
		om := roMap(o)
		pi := roInt(om["phaseIndex"])
		if _, ok := byPhase[pi]; !ok {
			order = append(order, pi)
			names[pi] = roStr(om["phase"])
		}
		byPhase[pi] = append(byPhase[pi], roMap(om["object"]))
	}
	sort.Slice(order, func(i, j int) bool { return order[i] > order[j] })
	for _, pi := range order {
		var del, rel, waiting []any
		for _, obj := range byPhase[pi] {
			live, ok := roFindLive(obj, lists)
			if !ok {
				continue
			}
			if roStr(roMap(live["metadata"])["deletionTimestamp"]) != "" {
				waiting = append(waiting, roRef(live))
				continue
			}
			var keep []any
			mine, controls := false, false
			for _, r := range roList(roMap(live["metadata"])["ownerReferences"]) {
				rm := roMap(r)
				if roStr(rm["uid"]) == uid {
					mine = true
					if c, _ := rm["controller"].(bool); c {
						controls = true
					}
					continue
				}
				keep = append(keep, r)
			}
			switch {
			case controls:
				del = append(del, roRef(live))
			case mine:
				if keep == nil {
					keep = []any{}
				}
				rel = append(rel, map[string]any{"ref": roRef(live), "ownerReferences": keep})
			}
		}
		if del != nil || rel != nil || waiting != nil {
			out["phase"], out["done"] = names[pi], false
			if waiting != nil {
				out["waiting"] = waiting
			}
			if del != nil {
				out["delete"] = del
			}
			if rel != nil {
				out["release"] = rel
			}
			return out
		}
	}
	return out
}

// ---- probes ----

// roDefaultProbe is the assertion every object of a kind must pass (the
// operator-controller applier's defaultProgressionProbes).
func roDefaultProbe(obj map[string]any) (bool, string) {
	gv := roStr(obj["apiVersion"])
	group := ""
	if i := strings.Index(gv, "/"); i >= 0 {
		group = gv[:i]
	}
	kind := roStr(obj["kind"])
	cond := func(t, s string) (bool, string) {
		if roConditionIs(obj, t, s) {
			return true, ""
		}
		return false, fmt.Sprintf("condition %s is not %s", t, s)
	}
	field := func(p, want string) (bool, string) {
		v, _ := roPath(obj, p)
		if fmt.Sprint(v) == want {
			return true, ""
		}
		return false, fmt.Sprintf("%s is %v, not %s", p, roOrNone(v), want)
	}
	switch {
	case group == "apiextensions.k8s.io" && kind == "CustomResourceDefinition":
		return cond("Established", "True")
	case group == "cert-manager.io" && (kind == "Certificate" || kind == "Issuer"):
		return cond("Ready", "True")
	case group == "" && kind == "Namespace":
		return field("status.phase", "Active")
	case group == "" && kind == "PersistentVolumeClaim":
		return field("status.phase", "Bound")
	case group == "apps" && (kind == "Deployment" || kind == "StatefulSet"):
		want, has := roPath(obj, "spec.replicas")
		if !has {
			want = int64(1)
		}
		got, _ := roPath(obj, "status.updatedReplicas")
		if roInt(got) != roInt(want) {
			return false, fmt.Sprintf("status.updatedReplicas is %v, not %v", roOrNone(got), want)
		}
		return cond("Available", "True")
	}
	return true, ""
}

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

// celAssertion evaluates a probe's CEL assertion on obj; its compiled
// program is remembered in mem.
func (mem *Memory) celAssertion(expr string, obj map[string]any) (bool, error) {
	v := mem.tables().probes.Get(expr, func() probeProgram {
		env, err := cel.NewEnv(cel.Variable("self", cel.DynType), cel.OptionalTypes(), ext.Strings())
		if err != nil {
			return probeProgram{err: err}
		}
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			return probeProgram{err: iss.Err()}
		}
		prg, err := env.Program(ast, cel.CostLimit(1_000_000))
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

// Probe evaluates the readiness of a live object: the status.observedGeneration
// check (when the object reports one), the default probe of its kind, and
// every progression probe whose selector matches it (assertions
// ConditionEqual, FieldsEqual, FieldValue, CEL). It returns {ready, message}
// with the first failing assertion's message.
func (mem *Memory) Probe(object, probes any) map[string]any {
	obj := roMap(object)
	res := func(ok bool, msg string) map[string]any { return map[string]any{"ready": ok, "message": msg} }
	if og, has := roPath(obj, "status.observedGeneration"); has {
		if g, hasGen := roPath(obj, "metadata.generation"); hasGen && roInt(og) != roInt(g) {
			return res(false, fmt.Sprintf("status.observedGeneration %v is behind metadata.generation %v", og, g))
		}
	}
	if ok, msg := roDefaultProbe(obj); !ok {
		return res(false, msg)
	}
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
