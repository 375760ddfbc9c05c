package fidelity

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Update modes: read-modify-write of the object last read (its
// resourceVersion included), the same with the oldest resourceVersion seen
// of it, and a whole object sent without any resourceVersion.
const (
	UpdateRMW   = "rmw"
	UpdateStale = "stale"
	UpdateFresh = "fresh"
)

// Step is one request of a sequence, written symbolically: names, uids and
// the object a read-modify-write starts from are resolved by each side
// when it is sent (run.go), so the same Step means the same request on
// both.
type Step struct {
	ID   int // its index in the generated sequence; kept when shrinking
	Verb adapters.Verb
	Kind string // a Kinds entry
	// Slot names the object: "a", "b", "c" (named <short>-<slot>), "bad"
	// (an invalid name), or "gen:N" (the object created by step N with
	// metadata.generateName).
	Slot        string
	Subresource string
	PatchType   adapters.PatchType
	// Body: for Create, the object without apiVersion, kind and name; for
	// Update, a merge patch applied to the object last read (UpdateRMW,
	// UpdateStale) or the whole object (UpdateFresh); for Patch, the patch
	// (an applied configuration without apiVersion, kind and name).
	Body         any
	Mode         string // for Update
	DryRun       bool
	GenerateName bool // for Create
	Manager      string
	Force        bool
	Selector     string // for List
	Propagation  string // for Delete
}

// Sequence is a generated list of steps, named by its seed and index.
type Sequence struct {
	Seed  uint64
	Index int
	Steps []Step
}

// Name identifies a sequence in reports: seed S sequence I.
func (s Sequence) Name() string { return fmt.Sprintf("seed %d sequence %d", s.Seed, s.Index) }

// Label renders the step's verb and options, as reports show them:
// "create", "patch(apply,force,m1)", "update/status(rmw)", "delete(Orphan)",
// with ",dry-run" when it is one.
func (s Step) Label() string {
	v := string(s.Verb)
	if s.Subresource != "" {
		v += "/" + s.Subresource
	}
	var opts []string
	switch s.Verb {
	case adapters.Patch:
		opts = append(opts, string(s.PatchType))
		if s.PatchType == adapters.ApplyPatch {
			if s.Force {
				opts = append(opts, "force")
			}
		}
	case adapters.Update:
		opts = append(opts, s.Mode)
	case adapters.Delete:
		if s.Propagation != "" {
			opts = append(opts, s.Propagation)
		}
	case adapters.Create:
		if s.GenerateName {
			opts = append(opts, "generateName")
		}
	case adapters.List:
		if s.Selector != "" {
			opts = append(opts, "selector")
		}
	}
	if s.DryRun {
		opts = append(opts, "dry-run")
	}
	if len(opts) > 0 {
		v += "(" + strings.Join(opts, ",") + ")"
	}
	return v
}

// Describe renders the step on one line, as a reproduction prints it.
func (s Step) Describe() string {
	k := kindByName(s.Kind)
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", s.Label(), k.APIVersion, k.Kind)
	if s.Verb == adapters.List {
		if !k.Cluster {
			b.WriteString(" in $T")
		}
		if s.Selector != "" {
			fmt.Fprintf(&b, " -l %q", s.Selector)
		}
	} else {
		b.WriteString(" " + displayName(k, s.Slot, s.Verb == adapters.Create && s.GenerateName))
	}
	if s.Manager != "" && (s.Verb == adapters.Patch && s.PatchType == adapters.ApplyPatch) {
		fmt.Fprintf(&b, " manager=%s", s.Manager)
	}
	if s.Body != nil {
		text, _ := jsonvalue.CanonicalJSON(display(s.Body))
		b.WriteString(" ")
		b.Write(text)
	}
	return b.String()
}

// display renders a body's placeholders as reports show them: "$T" for
// the sequence's namespace, names as displayName gives them, uids as
// <uid:Kind/slot>.
func display(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = display(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = display(e)
		}
		return out
	case string:
		switch {
		case t == "$ns":
			return "$T"
		case strings.HasPrefix(t, "$name:"):
			kind, slot, _ := strings.Cut(strings.TrimPrefix(t, "$name:"), "/")
			if k := kindByName(kind); k != nil {
				return slotName(k, slot, "$T")
			}
		case strings.HasPrefix(t, "$uid:"):
			return "<uid:" + strings.TrimPrefix(t, "$uid:") + ">"
		}
	}
	return v
}

// displayName is a slot's object as reports name it, with $T for the
// sequence's token: the name of its namespace, and the prefix of its
// cluster-scoped objects' names.
func displayName(k *Kind, slot string, generate bool) string {
	name := slotName(k, slot, "$T")
	if generate {
		name = "generateName " + generatePrefix(k, "$T")
	}
	if k.Cluster {
		return name
	}
	return "$T/" + name
}

// slotName is the name of a literal slot's object. Cluster-scoped objects
// carry the sequence's token, so that sequences sharing one server do not
// meet; namespaced ones live in the sequence's own namespace.
func slotName(k *Kind, slot, token string) string {
	if slot == "bad" {
		return "Bad_" + k.Short
	}
	if strings.HasPrefix(slot, "gen:") {
		return "<" + slot + ">"
	}
	if k.Cluster {
		return token + "-" + k.Short + "-" + slot
	}
	return k.Short + "-" + slot
}

func generatePrefix(k *Kind, token string) string {
	if k.Cluster {
		return token + "-" + k.Short + "-"
	}
	return k.Short + "-"
}

// Generate returns the sequence of the given seed and index: length steps
// over the index's primary kind (Kinds[index % len(Kinds)], so that
// consecutive indexes cover the catalogue) and one other kind. The same
// arguments give the same sequence.
func Generate(seed uint64, index, length int) Sequence {
	rng := rand.New(rand.NewPCG(seed, uint64(index)+0x5eed))
	primary := Kinds[index%len(Kinds)]
	secondary := Kinds[rng.IntN(len(Kinds))]
	g := &generator{rng: rng, kinds: []*Kind{primary}, created: map[string][]string{}}
	if secondary != primary {
		g.kinds = append(g.kinds, secondary)
	}
	seq := Sequence{Seed: seed, Index: index}
	for i := 0; i < length; i++ {
		st := g.step(i)
		st.ID = i
		seq.Steps = append(seq.Steps, st)
	}
	return seq
}

type generator struct {
	rng   *rand.Rand
	kinds []*Kind
	// created lists, per kind, the slots a create or an apply was sent
	// for (whatever its outcome): what later steps mostly refer to.
	created map[string][]string
}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func (g *generator) pick(list []any) any { return list[g.rng.IntN(len(list))] }

func (g *generator) pickString(list ...string) string { return list[g.rng.IntN(len(list))] }

// target picks the object a step refers to: mostly one already created.
func (g *generator) target(k *Kind) string {
	if c := g.created[k.Kind]; len(c) > 0 && g.chance(0.85) {
		return c[g.rng.IntN(len(c))]
	}
	return g.pickString("a", "b", "c")
}

func (g *generator) remember(k *Kind, slot string) {
	for _, s := range g.created[k.Kind] {
		if s == slot {
			return
		}
	}
	g.created[k.Kind] = append(g.created[k.Kind], slot)
}

// ownerRef returns an ownerReferences entry for an object of another slot
// that a k may have as owner (a cluster-scoped object may only have
// cluster-scoped owners), or nil.
func (g *generator) ownerRef(k *Kind, slot string) any {
	var cands [][2]string
	for _, ok := range g.kinds {
		if k.Cluster && !ok.Cluster {
			continue
		}
		for _, s := range g.created[ok.Kind] {
			if ok != k || s != slot {
				cands = append(cands, [2]string{ok.Kind, s})
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	sort.Slice(cands, func(i, j int) bool { return cands[i][0]+cands[i][1] < cands[j][0]+cands[j][1] })
	c := cands[g.rng.IntN(len(cands))]
	ok := kindByName(c[0])
	ref := map[string]any{
		"apiVersion": ok.APIVersion, "kind": ok.Kind,
		"name": "$name:" + ok.Kind + "/" + c[1], "uid": "$uid:" + ok.Kind + "/" + c[1],
	}
	if g.chance(0.5) {
		ref["blockOwnerDeletion"] = true
	}
	if g.chance(0.3) {
		ref["controller"] = true
	}
	return map[string]any{"metadata": map[string]any{"ownerReferences": []any{ref}}}
}

func (g *generator) manager() string { return g.pickString("m1", "m2", "fidelity") }

func (g *generator) step(i int) Step {
	k := g.kinds[0]
	if len(g.kinds) > 1 && g.chance(0.3) {
		k = g.kinds[1]
	}
	if len(g.created[k.Kind]) == 0 && (i == 0 || g.chance(0.6)) {
		return g.create(k, i)
	}
	switch w := g.rng.IntN(100); {
	case w < 14:
		return g.create(k, i)
	case w < 22:
		st := Step{Verb: adapters.Get, Kind: k.Kind, Slot: g.target(k)}
		if k.Status && g.chance(0.1) {
			st.Subresource = "status"
		}
		return st
	case w < 29:
		return Step{Verb: adapters.List, Kind: k.Kind, Selector: g.pickString(selectors...)}
	case w < 41:
		return g.update(k)
	case w < 53:
		return g.patch(k, adapters.MergePatch)
	case w < 61:
		return g.patch(k, adapters.JSONPatch)
	case w < 73:
		return g.patch(k, adapters.ApplyPatch)
	case w < 85:
		if k.Status || g.chance(0.2) {
			return g.status(k)
		}
		return g.patch(k, adapters.MergePatch)
	default:
		st := Step{Verb: adapters.Delete, Kind: k.Kind, Slot: g.target(k), DryRun: g.chance(0.12)}
		st.Propagation = g.pickString("", "Background", "Foreground", "Orphan")
		return st
	}
}

func (g *generator) create(k *Kind, id int) Step {
	st := Step{Verb: adapters.Create, Kind: k.Kind, DryRun: g.chance(0.12)}
	invalid := len(k.Invalid) > 0 && g.chance(0.2)
	var body any
	if invalid {
		body = jsonvalue.DeepCopy(g.pick(k.Invalid))
	} else {
		body = jsonvalue.DeepCopy(g.pick(k.Valid))
	}
	switch {
	case g.chance(0.1):
		st.GenerateName = true
		st.Slot = fmt.Sprintf("gen:%d", id)
	case g.chance(0.03):
		st.Slot = "bad"
	default:
		st.Slot = g.pickString("a", "b", "c")
	}
	if g.chance(0.15) {
		if o := g.ownerRef(k, st.Slot); o != nil {
			body = jsonvalue.MergePatch(body, o)
		}
	}
	if g.chance(0.15) {
		body = jsonvalue.MergePatch(body, map[string]any{"metadata": map[string]any{"finalizers": []any{Finalizer}}})
	}
	st.Body = body
	if !st.DryRun && st.Slot != "bad" {
		g.remember(k, st.Slot)
	}
	return st
}

func (g *generator) mergeBody(k *Kind, slot string) any {
	if g.chance(0.08) {
		if o := g.ownerRef(k, slot); o != nil {
			return o
		}
	}
	if len(k.Merge) > 0 && g.chance(0.6) {
		return jsonvalue.DeepCopy(g.pick(k.Merge))
	}
	return jsonvalue.DeepCopy(g.pick(commonMerge))
}

func (g *generator) update(k *Kind) Step {
	st := Step{Verb: adapters.Update, Kind: k.Kind, Slot: g.target(k), DryRun: g.chance(0.1), Manager: "fidelity"}
	switch w := g.rng.IntN(10); {
	case w < 6:
		st.Mode = UpdateRMW
		st.Body = g.mergeBody(k, st.Slot)
	case w < 8:
		st.Mode = UpdateStale
		st.Body = g.mergeBody(k, st.Slot)
	default:
		st.Mode = UpdateFresh
		st.Body = jsonvalue.DeepCopy(g.pick(k.Valid))
	}
	return st
}

func (g *generator) patch(k *Kind, pt adapters.PatchType) Step {
	st := Step{Verb: adapters.Patch, Kind: k.Kind, Slot: g.target(k), PatchType: pt, DryRun: g.chance(0.1), Manager: "fidelity"}
	switch pt {
	case adapters.MergePatch:
		st.Body = g.mergeBody(k, st.Slot)
	case adapters.JSONPatch:
		if len(k.JSON) > 0 && g.chance(0.6) {
			st.Body = jsonvalue.DeepCopy(g.pick(k.JSON))
		} else {
			st.Body = jsonvalue.DeepCopy(g.pick(commonJSON))
		}
	case adapters.ApplyPatch:
		st.Manager = g.manager()
		st.Force = g.chance(0.4)
		switch {
		case g.chance(0.15):
			// An apply of a whole object: creates it when missing.
			st.Body = jsonvalue.DeepCopy(g.pick(k.Valid))
			if !st.DryRun {
				g.remember(k, st.Slot)
			}
		case g.chance(0.08):
			if o := g.ownerRef(k, st.Slot); o != nil {
				st.Body = o
				break
			}
			fallthrough
		case len(k.Apply) > 0 && g.chance(0.6):
			st.Body = jsonvalue.DeepCopy(g.pick(k.Apply))
		default:
			st.Body = jsonvalue.DeepCopy(g.pick(commonApply))
		}
	}
	return st
}

func (g *generator) status(k *Kind) Step {
	st := Step{Verb: adapters.Update, Kind: k.Kind, Slot: g.target(k), Subresource: "status", DryRun: g.chance(0.1), Manager: "fidelity"}
	body := any(map[string]any{"status": map[string]any{"observedGeneration": 1}})
	if len(k.StatusBodies) > 0 {
		body = jsonvalue.DeepCopy(g.pick(k.StatusBodies))
	}
	if g.chance(0.1) {
		// a metadata change sent to the status subresource
		body = jsonvalue.MergePatch(body, map[string]any{"metadata": map[string]any{"labels": map[string]any{"status-writer": "yes"}}})
	}
	switch w := g.rng.IntN(10); {
	case w < 4:
		st.Mode = UpdateRMW
		st.Body = body
	case w < 7:
		st.Verb, st.PatchType, st.Body = adapters.Patch, adapters.MergePatch, body
	default:
		st.Verb, st.PatchType, st.Body = adapters.Patch, adapters.ApplyPatch, body
		st.Manager, st.Force = g.manager(), g.chance(0.4)
	}
	return st
}
