package fidelity

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// The two sides of every comparison, in this order everywhere.
const (
	Server = 0
	Sim    = 1
)

var sideNames = [2]string{"server", "sim"}

// side is one API with what a sequence has seen of it.
type side struct {
	api   adapters.API
	token string // the sequence's namespace, and the prefix of its cluster-scoped names
	objs  map[string]*objState
	gen   map[int]string    // step ID -> name generated for it (stored objects only)
	genBy map[string]string // Kind/name -> "gen:N", dry runs' names included
	uids  map[string]string // uid -> Kind/slot
}

// objState is what one side last saw of one object (Kind/slot), outside
// dry runs.
type objState struct {
	last map[string]any
	uid  string
	rvs  []string // resourceVersions seen of this incarnation, oldest first
	gen  any      // metadata.generation last seen (nil: none)
}

func newSide(api adapters.API, token string) *side {
	return &side{api: api, token: token, objs: map[string]*objState{}, gen: map[int]string{},
		genBy: map[string]string{}, uids: map[string]string{}}
}

func objKey(kind, slot string) string { return kind + "/" + slot }

// name resolves a slot to the name of its object on this side.
func (s *side) name(k *Kind, slot string) string {
	if rest, ok := strings.CutPrefix(slot, "gen:"); ok {
		var id int
		fmt.Sscan(rest, &id)
		if n, ok := s.gen[id]; ok {
			return n
		}
		return "missing-gen-" + rest
	}
	return slotName(k, slot, s.token)
}

// slotOf finds the slot of an object this side returned, "" when it is
// none of the sequence's.
func (s *side) slotOf(kind, name string) string {
	k := kindByName(kind)
	if k == nil {
		return ""
	}
	if g, ok := s.genBy[kind+"/"+name]; ok {
		return g
	}
	for _, slot := range []string{"a", "b", "c", "bad"} {
		if slotName(k, slot, s.token) == name {
			return slot
		}
	}
	if kind == "Namespace" && name == s.token {
		return "ns"
	}
	return ""
}

// resolve replaces the placeholders of a step's body with this side's
// names and uids: "$ns", "$name:Kind/slot", "$uid:Kind/slot" (an unknown
// object's uid is the zero uid, the same on both sides).
func (s *side) resolve(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = s.resolve(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = s.resolve(e)
		}
		return out
	case string:
		switch {
		case t == "$ns":
			return s.token
		case strings.HasPrefix(t, "$name:"):
			kind, slot, _ := strings.Cut(strings.TrimPrefix(t, "$name:"), "/")
			if k := kindByName(kind); k != nil {
				return s.name(k, slot)
			}
		case strings.HasPrefix(t, "$uid:"):
			key := strings.TrimPrefix(t, "$uid:")
			if o := s.objs[key]; o != nil && o.uid != "" {
				return o.uid
			}
			return "00000000-0000-0000-0000-000000000000"
		}
	}
	return v
}

// request materialises a step as this side's request.
func (s *side) request(st Step) adapters.Request {
	k := kindByName(st.Kind)
	ref := adapters.Ref{APIVersion: k.APIVersion, Kind: k.Kind}
	if !k.Cluster {
		ref.Namespace = s.token
	}
	req := adapters.Request{Verb: st.Verb, Subresource: st.Subresource, PatchType: st.PatchType,
		DryRun: st.DryRun, FieldManager: st.Manager, Force: st.Force, LabelSelector: st.Selector,
		Propagation: st.Propagation}
	if st.Verb != adapters.List {
		ref.Name = s.name(k, st.Slot)
	}
	body := s.resolve(st.Body)
	switch st.Verb {
	case adapters.Create:
		obj := s.object(k, body, ref)
		if st.GenerateName {
			md := obj["metadata"].(map[string]any)
			delete(md, "name")
			md["generateName"] = generatePrefix(k, s.token)
			ref.Name = ""
		}
		req.Body = obj
		if req.FieldManager == "" {
			req.FieldManager = "fidelity"
		}
	case adapters.Update:
		switch o := s.objs[objKey(st.Kind, st.Slot)]; {
		case st.Mode == UpdateFresh:
			req.Body = s.object(k, body, ref)
		case o == nil || o.last == nil:
			// Nothing read yet: the change alone, without a resourceVersion.
			req.Body = s.object(k, body, ref)
		default:
			obj := jsonvalue.MergePatch(jsonvalue.DeepCopy(o.last), body).(map[string]any)
			if st.Mode == UpdateStale && len(o.rvs) > 0 {
				meta(obj)["resourceVersion"] = o.rvs[0]
			}
			req.Body = obj
		}
	case adapters.Patch:
		if st.PatchType == adapters.ApplyPatch {
			req.Body = s.object(k, body, ref)
		} else {
			req.Body = body
		}
	}
	req.Ref = ref
	return req
}

// object completes a partial object with apiVersion, kind, name and
// namespace.
func (s *side) object(k *Kind, body any, ref adapters.Ref) map[string]any {
	obj, _ := jsonvalue.DeepCopy(body).(map[string]any)
	if obj == nil {
		obj = map[string]any{}
	}
	obj["apiVersion"], obj["kind"] = k.APIVersion, k.Kind
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	md["name"] = ref.Name
	if ref.Namespace != "" {
		md["namespace"] = ref.Namespace
	}
	return obj
}

func meta(obj map[string]any) map[string]any {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	return md
}

func metaString(obj map[string]any, field string) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md[field].(string)
	return s
}

// seen is one object of a result with what its side knew of it before.
type seen struct {
	Slot    string
	Raw     map[string]any // as returned (a private copy)
	Norm    map[string]any // normalised, without metadata.managedFields
	Managed []any          // normalised metadata.managedFields (nil: none)
	PrevRV  string         // resourceVersion last seen of it, "" when none was
	HadPrev bool
	PrevGen any
}

// record takes in the result of st on this side: remembers generated
// names, uids and the objects read (unless st is a dry run), and returns
// the result's objects, normalised.
func (s *side) record(st Step, res adapters.Result) (obj *seen, items []*seen) {
	if res.Outcome == adapters.OK && st.Verb == adapters.Create && st.GenerateName && res.Object != nil {
		if n := metaString(res.Object, "name"); n != "" {
			s.genBy[st.Kind+"/"+n] = fmt.Sprintf("gen:%d", st.ID)
			if !st.DryRun {
				s.gen[st.ID] = n
			}
		}
	}
	take := func(o map[string]any) *seen {
		o = jsonvalue.DeepCopy(o).(map[string]any)
		kind, _ := o["kind"].(string)
		if kind == "" {
			kind = st.Kind
		}
		slot := s.slotOf(kind, metaString(o, "name"))
		if uid := metaString(o, "uid"); uid != "" && slot != "" {
			s.uids[uid] = objKey(kind, slot)
		}
		sn := &seen{Slot: slot, Raw: o}
		if slot != "" {
			key := objKey(kind, slot)
			if prev := s.objs[key]; prev != nil && prev.uid == metaString(o, "uid") && len(prev.rvs) > 0 {
				sn.PrevRV, sn.HadPrev, sn.PrevGen = prev.rvs[len(prev.rvs)-1], true, prev.gen
			}
			if !st.DryRun {
				s.remember(key, o)
			}
		}
		return sn
	}
	if res.Object != nil {
		obj = take(res.Object)
	}
	for _, it := range res.Items {
		if sn := take(it); s.mine(st, sn) {
			items = append(items, sn)
		}
	}
	if obj != nil {
		obj.Norm, obj.Managed = s.normalise(obj.Raw)
	}
	for _, it := range items {
		it.Norm, it.Managed = s.normalise(it.Raw)
	}
	if res.Outcome == adapters.NotFound && st.Verb != adapters.List && st.Verb != adapters.Create && st.Subresource == "" {
		delete(s.objs, objKey(st.Kind, st.Slot)) // it is gone on this side
	}
	return obj, items
}

// mine says whether a listed object belongs to the sequence: every
// namespaced one does (lists are of the sequence's namespace); a
// cluster-scoped one does when it carries the sequence's token.
func (s *side) mine(st Step, sn *seen) bool {
	k := kindByName(st.Kind)
	if !k.Cluster {
		return true
	}
	n := metaString(sn.Raw, "name")
	return n == s.token || strings.HasPrefix(n, s.token+"-")
}

func (s *side) remember(key string, o map[string]any) {
	uid := metaString(o, "uid")
	st := s.objs[key]
	if st == nil || st.uid != uid {
		st = &objState{uid: uid}
		s.objs[key] = st
	}
	st.last = o
	if rv := metaString(o, "resourceVersion"); rv != "" && (len(st.rvs) == 0 || st.rvs[len(st.rvs)-1] != rv) {
		st.rvs = append(st.rvs, rv)
	}
	st.gen = meta(o)["generation"]
}

// dependents lists the objects this side last saw with an owner reference
// to the object key names.
func (s *side) dependents(key string) []string {
	var out []string
	for k, o := range s.objs {
		if k == key || o.last == nil {
			continue
		}
		refs, _ := meta(o.last)["ownerReferences"].([]any)
		for _, r := range refs {
			m, _ := r.(map[string]any)
			uid, _ := m["uid"].(string)
			if s.uids[uid] == key {
				out = append(out, k)
				break
			}
		}
	}
	sort.Strings(out)
	return out
}

// Probe is a read the harness adds after a delete, on both sides: of the
// deleted object and of every object that named it as owner.
type Probe struct {
	Key string // Kind/slot
	Res [2]adapters.Result
	Obj [2]*seen
}

// Obs is one step carried out on both sides.
type Obs struct {
	Step   Step
	Req    [2]adapters.Request
	Res    [2]adapters.Result
	Obj    [2]*seen
	Items  [2][]*seen
	Probes []Probe
}

// execute runs a sequence on both sides, each starting from a fresh
// namespace named token, and returns what each step gave on each.
func execute(ctx context.Context, seq []Step, sides [2]*side) ([]Obs, error) {
	for i, sd := range sides {
		res := sd.api.Do(ctx, adapters.Request{Verb: adapters.Create, FieldManager: "fidelity",
			Ref:  adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: sd.token},
			Body: map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": map[string]any{"name": sd.token}}})
		if res.Outcome != adapters.OK {
			return nil, fmt.Errorf("%s: create namespace %s: %s: %s", sideNames[i], sd.token, res.Outcome, res.Message)
		}
	}
	var out []Obs
	for _, st := range seq {
		var o Obs
		o.Step = st
		for i, sd := range sides {
			o.Req[i] = sd.request(st)
			o.Res[i] = sd.api.Do(ctx, o.Req[i])
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			o.Obj[i], o.Items[i] = sd.record(st, o.Res[i])
		}
		if st.Verb == adapters.Delete && !st.DryRun && o.Res[Server].Outcome == adapters.OK && o.Res[Sim].Outcome == adapters.OK {
			o.Probes = probe(ctx, st, sides)
		}
		out = append(out, o)
	}
	return out, nil
}

// probe reads, on both sides, the object a delete named and every object
// either side last saw owned by it.
func probe(ctx context.Context, st Step, sides [2]*side) []Probe {
	key := objKey(st.Kind, st.Slot)
	keys := []string{key}
	seenKey := map[string]bool{key: true}
	for _, sd := range sides {
		for _, d := range sd.dependents(key) {
			if !seenKey[d] {
				seenKey[d] = true
				keys = append(keys, d)
			}
		}
	}
	sort.Strings(keys[1:])
	var out []Probe
	for _, k := range keys {
		kind, slot, _ := strings.Cut(k, "/")
		get := Step{ID: st.ID, Verb: adapters.Get, Kind: kind, Slot: slot}
		p := Probe{Key: k}
		for i, sd := range sides {
			p.Res[i] = sd.api.Do(ctx, sd.request(get))
			p.Obj[i], _ = sd.record(get, p.Res[i])
		}
		out = append(out, p)
	}
	return out
}
