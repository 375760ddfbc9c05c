package fidelity

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Class is one aspect in which the two answers to a request are compared.
type Class string

// The classes, in the order reports list them.
const (
	// Outcome: the classified outcome of every request.
	ClassOutcome Class = "outcome"
	// Shape: whether the answer carries an object (every request whose
	// outcomes agree).
	ClassShape Class = "shape"
	// Content: the returned object's fields, after normalisation, except
	// the fields the server added on its own (defaulting), generation,
	// resourceVersion and managedFields.
	ClassContent Class = "content"
	// Defaulting: fields the server returns that the sim does not, with a
	// value no request of the sequence wrote there on that object (or an
	// empty object); outside metadata, or labels and annotations.
	ClassDefaulting Class = "defaulting"
	// Generation: metadata.generation, present or not, and its value.
	ClassGeneration Class = "generation"
	// ResourceVersion: present or not, and whether it changed since the
	// object was last seen on that side (its value never).
	ClassRV Class = "resourceVersion"
	// List: which of the sequence's objects a list returns.
	ClassList Class = "list"
	// Deletion: after a delete both accepted, whether the object and the
	// objects it owns are gone, present, or being deleted (and their
	// finalizers), read back on both sides at once.
	ClassDeletion Class = "deletion"
	// ManagedFields: metadata.managedFields, times left out.
	ClassManaged Class = "managedFields"
)

// Classes lists every class in report order.
var Classes = []Class{ClassOutcome, ClassShape, ClassContent, ClassDefaulting, ClassGeneration, ClassRV, ClassList, ClassDeletion, ClassManaged}

// Check is one comparison of one class for one step.
type Check struct {
	Class Class
	Step  int // Step.ID
	Agree bool
	// Signature names the disagreement: class, the step's kind of request
	// and object kind, and what differs; equal signatures are the same
	// disagreement wherever they occur.
	Signature string
	// Notes are the values that differ, for the reproduction.
	Notes []string
	// Downstream: an earlier step of the sequence on the same object (on
	// the same kind, for a list) had outcomes or deletions that differ, so
	// the two sides no longer hold the same object and this check may only
	// repeat that difference.
	Downstream bool
}

// normalise returns a copy of obj with what legitimately differs between
// the sides replaced (uids, generated names, creation and deletion times,
// the resourceVersion's value), and its managedFields apart, their times
// left out and sorted.
func (s *side) normalise(obj map[string]any) (map[string]any, []any) {
	names := map[string]string{}
	for kn, g := range s.genBy {
		_, n, _ := strings.Cut(kn, "/")
		names[n] = "<" + g + ">"
	}
	var replace func(v any) any
	replace = func(v any) any {
		switch t := v.(type) {
		case map[string]any:
			out := make(map[string]any, len(t))
			for k, e := range t {
				out[k] = replace(e)
			}
			return out
		case []any:
			out := make([]any, len(t))
			for i, e := range t {
				out[i] = replace(e)
			}
			return out
		case string:
			if label, ok := s.uids[t]; ok {
				return "<uid:" + label + ">"
			}
			if g, ok := names[t]; ok {
				return g
			}
		}
		return v
	}
	c := jsonvalue.DeepCopy(obj).(map[string]any)
	md := meta(c)
	var managed []any
	if mf, ok := md["managedFields"].([]any); ok {
		managed = s.normaliseManaged(mf, names)
		delete(md, "managedFields")
	}
	for _, f := range []string{"creationTimestamp", "deletionTimestamp"} {
		if v, ok := md[f].(string); ok && v != "" {
			md[f] = "<time>"
		}
	}
	if v, ok := md["resourceVersion"].(string); ok && v != "" {
		md["resourceVersion"] = "<rv>"
	}
	out := replace(c).(map[string]any)
	if uid, ok := meta(out)["uid"].(string); ok && !strings.HasPrefix(uid, "<uid:") && uid != "" {
		meta(out)["uid"] = "<uid>"
	}
	return out, managed
}

func (s *side) normaliseManaged(mf []any, names map[string]string) []any {
	text, err := json.Marshal(mf)
	if err != nil {
		return mf
	}
	str := string(text)
	var olds []string
	for uid := range s.uids {
		olds = append(olds, uid)
	}
	sort.Strings(olds)
	for _, uid := range olds {
		str = strings.ReplaceAll(str, uid, "<uid:"+s.uids[uid]+">")
	}
	var gens []string
	for n := range names {
		gens = append(gens, n)
	}
	sort.Slice(gens, func(i, j int) bool {
		return len(gens[i]) > len(gens[j]) || len(gens[i]) == len(gens[j]) && gens[i] < gens[j]
	})
	for _, n := range gens {
		str = strings.ReplaceAll(str, `\"`+n+`\"`, `\"`+names[n]+`\"`)
	}
	v, err := jsonvalue.Decode([]byte(str))
	if err != nil {
		return mf
	}
	entries, _ := v.([]any)
	for _, e := range entries {
		if m, ok := e.(map[string]any); ok {
			delete(m, "time")
		}
	}
	sort.SliceStable(entries, func(i, j int) bool { return managerKey(entries[i]) < managerKey(entries[j]) })
	return entries
}

func managerKey(e any) string {
	m, _ := e.(map[string]any)
	str := func(k string) string { s, _ := m[k].(string); return s }
	key := str("manager") + "/" + str("operation")
	if sub := str("subresource"); sub != "" {
		key += "/" + sub
	}
	return key
}

// diffItem is one difference between the server's and the sim's object.
type diffItem struct {
	Path   string // JSON pointer
	Op     byte   // '+' only the server has it, '-' only the sim, '~' both, different
	Server any
	Sim    any
}

func diffValues(path string, a, b any, out *[]diffItem) {
	am, aIsMap := a.(map[string]any)
	bm, bIsMap := b.(map[string]any)
	if aIsMap && bIsMap {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for _, k := range jsonvalue.SortedKeys(keys) {
			p := path + "/" + jsonvalue.EscapeToken(k)
			av, inA := am[k]
			bv, inB := bm[k]
			switch {
			case inA && !inB:
				*out = append(*out, diffItem{Path: p, Op: '+', Server: av})
			case inB && !inA:
				*out = append(*out, diffItem{Path: p, Op: '-', Sim: bv})
			default:
				diffValues(p, av, bv, out)
			}
		}
		return
	}
	al, aIsList := a.([]any)
	bl, bIsList := b.([]any)
	if aIsList && bIsList && len(al) == len(bl) {
		for i := range al {
			diffValues(path+"/"+strconv.Itoa(i), al[i], bl[i], out)
		}
		return
	}
	if !jsonvalue.Equal(a, b) {
		*out = append(*out, diffItem{Path: path, Op: '~', Server: a, Sim: b})
	}
}

// general replaces the list indices of a pointer with "*".
func general(p string) string {
	parts := strings.Split(p, "/")
	for i, s := range parts {
		if s == "-" {
			parts[i] = "*"
		} else if _, err := strconv.Atoi(s); err == nil && s != "" {
			parts[i] = "*"
		}
	}
	return strings.Join(parts, "/")
}

// written collects, per object (Kind/slot), what the sequence's requests
// wrote: the values written at each field (general pointers), and the
// fields below which something was written.
type written map[string]*writes

type writes struct {
	values map[string][]any
	above  map[string]bool
}

func (w written) add(st Step) {
	if st.Body == nil || st.Verb == adapters.Delete || st.Verb == adapters.Get || st.Verb == adapters.List {
		return
	}
	key := objKey(st.Kind, st.Slot)
	wr := w[key]
	if wr == nil {
		wr = &writes{values: map[string][]any{}, above: map[string]bool{}}
		w[key] = wr
	}
	parents := func(p string) {
		for q := p[:max(0, strings.LastIndex(p, "/"))]; q != ""; q = q[:max(0, strings.LastIndex(q, "/"))] {
			wr.above[general(q)] = true
		}
	}
	var walk func(p string, v any)
	walk = func(p string, v any) {
		if v == nil {
			return // a merge patch's null removes, it writes nothing
		}
		wr.values[general(p)] = append(wr.values[general(p)], v)
		parents(p)
		switch t := v.(type) {
		case map[string]any:
			for k, e := range t {
				walk(p+"/"+jsonvalue.EscapeToken(k), e)
			}
		case []any:
			for _, e := range t {
				walk(p+"/*", e)
			}
		}
	}
	if st.Verb == adapters.Patch && st.PatchType == adapters.JSONPatch {
		ops, _ := st.Body.([]any)
		for _, op := range ops {
			m, _ := op.(map[string]any)
			p, _ := m["path"].(string)
			parents(p)
			if v, ok := m["value"]; ok {
				walk(p, v)
			}
		}
		return
	}
	walk("", st.Body)
}

// wrote says whether the server's value v at p is what a request wrote to
// key: the same value was written there, or v is an object or a list below
// which something was written.
func (w written) wrote(key, p string, v any) bool {
	wr := w[key]
	if wr == nil {
		return false
	}
	g := general(p)
	for _, x := range wr.values[g] {
		if jsonvalue.Equal(x, v) {
			return true
		}
	}
	switch v.(type) {
	case map[string]any, []any:
		return wr.above[g] || len(wr.values[g]) > 0
	}
	return false
}

// sig renders a signature: "class op Kind: detail", or "class Kind:
// detail" when op is empty.
func sig(class Class, op string, st Step, detail string) string {
	if op == "" {
		return fmt.Sprintf("%s %s: %s", class, st.Kind, detail)
	}
	return fmt.Sprintf("%s %s %s: %s", class, op, st.Kind, detail)
}

// coarseLabel is the step's verb, subresource, patch type and dry-run:
// the classes that look at content do not tell update modes, propagation
// policies or field managers apart.
func coarseLabel(st Step) string {
	v := string(st.Verb)
	if st.Subresource != "" {
		v += "/" + st.Subresource
	}
	var opts []string
	if st.Verb == adapters.Patch {
		opts = append(opts, string(st.PatchType))
	}
	if st.DryRun {
		opts = append(opts, "dry-run")
	}
	if len(opts) > 0 {
		v += "(" + strings.Join(opts, ",") + ")"
	}
	return v
}

// compare classifies one step's answers.
func compare(o Obs, w written) []Check {
	st := o.Step
	var out []Check
	add := func(class Class, op string, agree bool, detail string, notes ...string) {
		c := Check{Class: class, Step: st.ID, Agree: agree}
		if !agree {
			c.Signature = sig(class, op, st, detail)
			c.Notes = notes
		}
		out = append(out, c)
	}
	// The outcome and deletion classes tell every option of a request
	// apart (update modes, propagation policies, force); shape and
	// resourceVersion the verb, subresource, patch type and dry-run; the
	// classes that look at an object's fields only the kind and what
	// differs (compareObjects decides for generation).
	full, coarse := st.Label(), coarseLabel(st)
	rs, rm := o.Res[Server], o.Res[Sim]
	add(ClassOutcome, full, rs.Outcome == rm.Outcome, fmt.Sprintf("server %s, sim %s", rs.Outcome, rm.Outcome))
	if rs.Outcome != rm.Outcome {
		return out
	}
	has := func(r adapters.Result) string {
		if r.Object != nil {
			return "an object"
		}
		return "no object"
	}
	add(ClassShape, coarse, (rs.Object != nil) == (rm.Object != nil), fmt.Sprintf("server returns %s, sim %s", has(rs), has(rm)))
	if o.Obj[Server] != nil && o.Obj[Sim] != nil {
		for _, c := range compareObjects(o.Obj[Server], o.Obj[Sim], objKey(st.Kind, st.Slot), w) {
			add(c.class, c.op(coarse), c.agree, c.detail, c.notes...)
		}
	}
	if st.Verb == adapters.List && rs.Outcome == adapters.OK {
		out = append(out, compareList(o, coarse, w)...)
	}
	if len(o.Probes) > 0 {
		agree, detail, notes := true, "", []string(nil)
		for _, p := range o.Probes {
			a, b := probeState(p.Res[Server]), probeState(p.Res[Sim])
			if a == b {
				continue
			}
			agree = false
			what := "the deleted object"
			if p.Key != objKey(st.Kind, st.Slot) {
				what = "dependent " + strings.SplitN(p.Key, "/", 2)[0]
			}
			if detail == "" {
				detail = fmt.Sprintf("%s: server %s, sim %s", what, a, b)
			}
			notes = append(notes, fmt.Sprintf("%s (%s): server %s, sim %s", what, p.Key, a, b))
			if hint := controllerHint(p, a, b); hint != "" {
				notes = append(notes, hint)
			}
		}
		add(ClassDeletion, full, agree, detail, notes...)
	}
	return out
}

// controllerHint says which controller a cluster would run that the local
// control plane does not, when a deletion's difference is one that
// controller would settle later: the comparison is of the moment right
// after the delete, when on any cluster it has not acted yet.
func controllerHint(p Probe, server, sim string) string {
	kind := strings.SplitN(p.Key, "/", 2)[0]
	switch {
	case kind == "Namespace" && strings.HasPrefix(server, "deleting"):
		return "(on a cluster the namespace controller empties a terminating namespace and removes its finalizer later; the local control plane runs none)"
	case strings.Contains(server, "foregroundDeletion") || strings.Contains(server, "orphan"):
		return "(on a cluster the garbage collector acts on this finalizer later; the local control plane runs none)"
	case server == "present" && sim == "gone":
		return "(on a cluster the garbage collector may remove a dependent later; the local control plane runs none)"
	}
	return ""
}

// probeState renders what a read after a delete found.
func probeState(r adapters.Result) string {
	switch {
	case r.Outcome == adapters.NotFound:
		return "gone"
	case r.Outcome != adapters.OK:
		return string(r.Outcome)
	case metaString(r.Object, "deletionTimestamp") != "":
		fin, _ := meta(r.Object)["finalizers"].([]any)
		var names []string
		for _, f := range fin {
			s, _ := f.(string)
			names = append(names, s)
		}
		sort.Strings(names)
		return "deleting, finalizers [" + strings.Join(names, " ") + "]"
	}
	return "present"
}

type objCheck struct {
	class  Class
	agree  bool
	detail string
	notes  []string
	byOp   bool // the signature names the request (see compare)
}

func (c objCheck) op(coarse string) string {
	if c.byOp {
		return coarse
	}
	return ""
}

// compareObjects compares one object both sides returned.
func compareObjects(a, b *seen, key string, w written) []objCheck {
	var out []objCheck
	if a.Slot != "" {
		key = objKey(strings.SplitN(key, "/", 2)[0], a.Slot)
	}
	// generation: present or not; then, when both sides saw the object
	// before, whether and by how much it moved, else its value (so that
	// one earlier difference does not make every later one differ)
	ga, gb := meta(a.Raw)["generation"], meta(b.Raw)["generation"]
	gc := objCheck{class: ClassGeneration, agree: true}
	switch {
	case ga == nil && gb != nil:
		gc.agree, gc.detail = false, "server has none, sim has one"
	case ga != nil && gb == nil:
		gc.agree, gc.detail = false, "server has one, sim has none"
	case ga == nil:
	case a.HadPrev && b.HadPrev && a.PrevGen != nil && b.PrevGen != nil:
		da, db := delta(ga, a.PrevGen), delta(gb, b.PrevGen)
		if da != db {
			gc.agree, gc.byOp = false, true
			gc.detail = fmt.Sprintf("server %s, sim %s", da, db)
		}
	case !jsonvalue.Equal(ga, gb):
		gc.agree, gc.byOp = false, true
		gc.detail = "values differ"
	}
	if !gc.agree {
		gc.notes = []string{fmt.Sprintf("metadata.generation: server %s, sim %s", show(ga), show(gb))}
	}
	out = append(out, gc)
	// resourceVersion: present, and changed or not
	ra, rb := metaString(a.Raw, "resourceVersion"), metaString(b.Raw, "resourceVersion")
	rc := objCheck{class: ClassRV, agree: true, byOp: true}
	switch {
	case (ra == "") != (rb == ""):
		rc.agree = false
		rc.detail = fmt.Sprintf("server %s, sim %s", present(ra), present(rb))
	case a.HadPrev && b.HadPrev && (ra != a.PrevRV) != (rb != b.PrevRV):
		rc.agree = false
		rc.detail = fmt.Sprintf("server %s, sim %s", changed(ra != a.PrevRV), changed(rb != b.PrevRV))
	}
	out = append(out, rc)
	// managedFields
	mc := objCheck{class: ClassManaged, agree: jsonvalue.Equal(a.Managed, b.Managed)}
	if !mc.agree {
		switch {
		case b.Managed == nil:
			mc.detail = "sim returns none"
		case a.Managed == nil:
			mc.detail = "server returns none"
		default:
			ka, kb := managerKeys(a.Managed), managerKeys(b.Managed)
			if ka != kb {
				mc.detail = fmt.Sprintf("entries differ: server [%s], sim [%s]", ka, kb)
			} else {
				mc.detail = "fields of " + ka + " differ"
			}
		}
		mc.notes = []string{"managedFields: server " + clip(a.Managed, 400), "managedFields: sim " + clip(b.Managed, 400)}
	}
	out = append(out, mc)
	// content and defaulting
	na, nb := jsonvalue.DeepCopy(a.Norm).(map[string]any), jsonvalue.DeepCopy(b.Norm).(map[string]any)
	for _, m := range []map[string]any{na, nb} {
		delete(meta(m), "generation")
		delete(meta(m), "resourceVersion")
	}
	var raw, items []diffItem
	diffValues("", na, nb, &raw)
	// A map only the server has, below which the sequence wrote something
	// to this object, is told apart field by field: what was written and
	// lost is content, what the server added is defaulting.
	var split func(it diffItem)
	split = func(it diffItem) {
		m, isMap := it.Server.(map[string]any)
		if it.Op != '+' || !isMap || len(m) == 0 || !w.wrote(key, it.Path, it.Server) {
			items = append(items, it)
			return
		}
		for _, k := range jsonvalue.SortedKeys(m) {
			split(diffItem{Path: it.Path + "/" + jsonvalue.EscapeToken(k), Op: '+', Server: m[k]})
		}
	}
	for _, it := range raw {
		split(it)
	}
	var defaults, contents []string
	var dnotes, cnotes []string
	for _, it := range items {
		empty := false
		if m, ok := it.Server.(map[string]any); ok && len(m) == 0 {
			empty = true
		}
		switch {
		case it.Op == '+' && defaultable(it.Path) && (empty || !w.wrote(key, it.Path, it.Server)):
			defaults = append(defaults, general(it.Path))
			dnotes = append(dnotes, fmt.Sprintf("%s: server %s, sim absent", it.Path, clip(it.Server, 160)))
		case it.Op == '+':
			contents = append(contents, "+"+general(it.Path))
			cnotes = append(cnotes, fmt.Sprintf("%s: server %s, sim absent", it.Path, clip(it.Server, 160)))
		case it.Op == '-':
			contents = append(contents, "-"+general(it.Path))
			cnotes = append(cnotes, fmt.Sprintf("%s: server absent, sim %s", it.Path, clip(it.Sim, 160)))
		default:
			contents = append(contents, "~"+general(it.Path))
			cnotes = append(cnotes, fmt.Sprintf("%s: server %s, sim %s", it.Path, clip(it.Server, 160), clip(it.Sim, 160)))
		}
	}
	cc := objCheck{class: ClassContent, agree: len(contents) == 0, notes: cnotes}
	if !cc.agree {
		cc.detail = summarise(contents)
	}
	dc := objCheck{class: ClassDefaulting, agree: len(defaults) == 0, notes: dnotes}
	if !dc.agree {
		dc.detail = "server adds " + summarise(defaults)
	}
	return append(out, cc, dc)
}

// defaultable says whether a field the server alone returns may be one
// it defaulted: anything but metadata, where only labels and annotations
// are (kubernetes.io/metadata.name, a Job's controller labels); the rest
// of metadata (a uid, a deletionTimestamp, finalizers) is state.
func defaultable(p string) bool {
	if !strings.HasPrefix(p, "/metadata/") {
		return true
	}
	return strings.HasPrefix(p, "/metadata/labels") || strings.HasPrefix(p, "/metadata/annotations")
}

// compareList compares which of the sequence's objects a list returned on
// each side, and the objects both returned, one check per class for the
// whole list.
func compareList(o Obs, op string, w written) []Check {
	st := o.Step
	names := func(items []*seen) ([]string, map[string]*seen) {
		by := map[string]*seen{}
		var out []string
		for _, it := range items {
			n := metaString(it.Norm, "name")
			by[n] = it
			out = append(out, n)
		}
		sort.Strings(out)
		return out, by
	}
	ns, bys := names(o.Items[Server])
	nm, bym := names(o.Items[Sim])
	var missing, extra []string
	for _, n := range ns {
		if bym[n] == nil {
			missing = append(missing, n)
		}
	}
	for _, n := range nm {
		if bys[n] == nil {
			extra = append(extra, n)
		}
	}
	var out []Check
	lc := Check{Class: ClassList, Step: st.ID, Agree: len(missing) == 0 && len(extra) == 0}
	if !lc.Agree {
		var what []string
		if len(missing) > 0 {
			what = append(what, "sim leaves out objects the server lists")
		}
		if len(extra) > 0 {
			what = append(what, "sim lists objects the server does not")
		}
		lc.Signature = sig(ClassList, "", st, strings.Join(what, "; "))
		lc.Notes = []string{fmt.Sprintf("server lists [%s]", strings.Join(ns, " ")), fmt.Sprintf("sim lists [%s]", strings.Join(nm, " "))}
	}
	out = append(out, lc)
	byClass := map[Class]*Check{}
	for _, n := range ns {
		if bym[n] == nil {
			continue
		}
		for _, c := range compareObjects(bys[n], bym[n], objKey(st.Kind, bys[n].Slot), w) {
			agg := byClass[c.class]
			if agg == nil {
				agg = &Check{Class: c.class, Step: st.ID, Agree: true}
				byClass[c.class] = agg
			}
			if !c.agree && agg.Agree {
				agg.Agree = false
				agg.Signature = sig(c.class, c.op(op), st, c.detail)
				agg.Notes = append([]string{"item " + n + ":"}, c.notes...)
			}
		}
	}
	for _, c := range Classes {
		if agg := byClass[c]; agg != nil {
			out = append(out, *agg)
		}
	}
	return out
}

func managerKeys(entries []any) string {
	var keys []string
	for _, e := range entries {
		keys = append(keys, managerKey(e))
	}
	return strings.Join(keys, " ")
}

// summarise joins sorted, distinct paths, at most eight of them.
func summarise(paths []string) string {
	set := map[string]bool{}
	for _, p := range paths {
		set[p] = true
	}
	list := jsonvalue.SortedKeys(set)
	if len(list) > 8 {
		return strings.Join(list[:8], ", ") + fmt.Sprintf(" and %d more", len(list)-8)
	}
	return strings.Join(list, ", ")
}

func delta(now, prev any) string {
	n, okn := now.(int64)
	p, okp := prev.(int64)
	if !okn || !okp {
		return show(now)
	}
	return fmt.Sprintf("%+d", n-p)
}

func present(rv string) string {
	if rv == "" {
		return "none"
	}
	return "set"
}

func changed(c bool) string {
	if c {
		return "changed"
	}
	return "kept"
}

func show(v any) string {
	if v == nil {
		return "absent"
	}
	return clip(v, 80)
}

// clip renders v as canonical JSON, cut at n bytes.
func clip(v any, n int) string {
	text, err := jsonvalue.CanonicalJSON(v)
	if err != nil {
		text = []byte(fmt.Sprint(v))
	}
	if len(text) > n {
		return string(text[:n]) + "…"
	}
	return string(text)
}
