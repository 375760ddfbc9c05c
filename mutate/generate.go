package mutate

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/google/cel-go/cel"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

// Mutant is one small change of a rule file: an operator, a constant, a
// clause, an assignment, a route or a transition, changed in one machine.
type Mutant struct {
	// File is the rule file as diagnostics name it (a path, or
	// policies/NAME.hcl for a shipped policy).
	File    string
	Machine string
	// Pos is where the change starts.
	Pos hcl.Pos
	// Element is the block changed: `transition "apply"`, `let "plan"`,
	// `transition "apply" on "*" "not_found"`.
	Element string
	// Attr is the attribute changed (`when`, `set.retryCount`), or "" when
	// the change is to the block itself.
	Attr string
	// Kind names the mutation (see Kinds).
	Kind string
	// Before and After are what the change does, as written and as mutated
	// (a piece of CEL, a literal, or a phrase such as "dropped").
	Before, After string
	// ID names the mutant independently of line numbers:
	// `MACHINE ELEMENT ATTR: KIND: BEFORE → AFTER`, with ` #N` when the
	// same change appears N times in one attribute.
	ID string

	focus focus
	edits []edit
	file  *ruleFile
}

// Kinds are the mutations, each with what it does.
var Kinds = []struct{ Name, Does string }{
	{"comparison", "a comparison's boundary moved (< and <=, > and >=) or the comparison negated (== and !=, < and >=, > and <=)"},
	{"logical", "&& and || swapped"},
	{"clause", "one operand of an && or || chain dropped"},
	{"negation", "a ! dropped"},
	{"ternary", "c ? a : b replaced by a, and by b"},
	{"constant", "an integer literal moved one down and one up"},
	{"duration", "a duration literal moved one of its smallest unit down and up"},
	{"element", "one element of a list literal dropped"},
	{"entry", "one entry of a map literal in an action's body dropped (a field the request no longer sends)"},
	{"guard", "a transition's, route's, action's or observation's when dropped (always true)"},
	{"set", "one status assignment of a set dropped"},
	{"condition", "a condition status flipped (True and False; Unknown to True)"},
	{"wait", "a route's after or at, or a state's recheck, dropped, or its wait doubled"},
	{"from", "one state of a transition's from dropped"},
	{"route", "an on route dropped"},
	{"transition", "a transition dropped"},
	{"order", "a transition swapped with the next one that fires from one of its states"},
	{"default", "a param default moved across its boundary (durations and ints both ways, bools flipped, strings emptied)"},
	{"override", "a param's override dropped: the CR field is ignored"},
}

// focus is what of the machine a mutant changes, to try first the
// scenarios that exercise it.
type focus struct {
	transition, state, let, param, observe string
	// readers, for a let, is what reads it.
	readers *letReaders
}

type edit struct {
	start, end int
	repl       string
}

// Source returns the mutated rule file.
func (m *Mutant) Source() []byte { return applyEdits(m.file.src, m.edits) }

func applyEdits(src []byte, edits []edit) []byte {
	es := append([]edit(nil), edits...)
	sort.Slice(es, func(i, j int) bool { return es[i].start < es[j].start })
	var out []byte
	at := 0
	for _, e := range es {
		out = append(out, src[at:e.start]...)
		out = append(out, e.repl...)
		at = e.end
	}
	return append(out, src[at:]...)
}

// Describe is the one-line description: `ELEMENT ATTR: KIND: BEFORE → AFTER`.
func (m *Mutant) Describe() string { return strings.TrimPrefix(m.ID, m.Machine+" ") }

// generator walks one rule file.
type generator struct {
	f       *ruleFile
	src     []byte
	exprs   map[int]*rules.Expr // by the byte offset of the attribute value
	types   map[int]*cel.Type
	machine string
	out     []*Mutant
	diags   hcl.Diagnostics // warnings: mutations left out
	readers map[string]map[string]*letReaders
}

// Generate lists the mutants of a rule file's source, in source order.
// compiled, when given, are the file's machines compiled (the types of
// expressions decide how a wait is doubled). The source must load. Warnings
// name mutations left out (none, unless a CEL offset does not map back into
// the file).
func Generate(src []byte, filename string, compiled []*fsm.Machine) ([]*Mutant, hcl.Diagnostics) {
	return generate(&ruleFile{name: filename, src: src}, compiled)
}

func generate(rf *ruleFile, compiled []*fsm.Machine) ([]*Mutant, hcl.Diagnostics) {
	model, diags := rules.Parse(rf.src, rf.name)
	if diags.HasErrors() {
		return nil, diags
	}
	hf, d := hclsyntax.ParseConfig(rf.src, rf.name, hcl.InitialPos)
	if d.HasErrors() {
		return nil, d
	}
	g := &generator{f: rf, src: rf.src, exprs: map[int]*rules.Expr{}, types: map[int]*cel.Type{}}
	readers := map[string]map[string]*letReaders{}
	for _, m := range model.Machines {
		indexExprs(m, g.exprs)
		readers[m.Name] = readersOfLets(m)
	}
	g.readers = readers
	for _, m := range compiled {
		for _, p := range m.Programs() {
			if p != nil && p.Expr != nil {
				g.types[p.Expr.Range.Start.Byte] = p.Out
			}
		}
	}
	body := hf.Body.(*hclsyntax.Body)
	for _, b := range body.Blocks {
		if b.Type == "machine" && len(b.Labels) == 1 {
			g.machine = b.Labels[0]
			g.machineBlock(b.Body)
		}
	}
	sort.SliceStable(g.out, func(i, j int) bool { return g.out[i].Pos.Byte < g.out[j].Pos.Byte })
	g.name()
	return g.out, g.diags
}

// indexExprs records every CEL expression of m by where its value starts.
func indexExprs(m *rules.Machine, idx map[int]*rules.Expr) {
	add := func(es ...*rules.Expr) {
		for _, e := range es {
			if e != nil {
				idx[e.Range.Start.Byte] = e
			}
		}
	}
	sets := func(as []rules.Assignment) {
		for _, a := range as {
			add(a.Value)
		}
	}
	route := func(r *rules.Route) {
		if r != nil {
			add(r.When, r.Message, r.After, r.At)
			sets(r.Set)
		}
	}
	for _, p := range m.Params {
		add(p.Valid)
	}
	for _, o := range m.Observes {
		add(o.Get, o.List, o.When)
	}
	for _, l := range m.Lets {
		add(l.Value)
	}
	for _, s := range m.States {
		add(s.Recheck, s.Jitter)
		sets(s.Set)
	}
	for _, t := range m.Transitions {
		add(t.When)
		for _, a := range t.Actions {
			add(a.Target, a.Body, a.Identity, a.Expect, a.ForEach, a.When)
		}
		route(t.Done)
		for _, r := range t.Routes {
			route(r)
		}
	}
}

func (g *generator) add(m *Mutant) {
	m.File, m.Machine, m.file = g.f.name, g.machine, g.f
	if m.Pos.Line == 0 && len(m.edits) > 0 {
		m.Pos = posAt(g.src, m.edits[0].start)
	}
	g.out = append(g.out, m)
}

// posAt converts a byte offset of src into a position.
func posAt(src []byte, off int) hcl.Pos {
	line, col := 1, 1
	for i, r := range string(src[:off]) {
		_ = i
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return hcl.Pos{Line: line, Column: col, Byte: off}
}

func sortedAttrs(b *hclsyntax.Body) []*hclsyntax.Attribute {
	var as []*hclsyntax.Attribute
	for _, a := range b.Attributes {
		as = append(as, a)
	}
	sort.Slice(as, func(i, j int) bool { return as[i].SrcRange.Start.Byte < as[j].SrcRange.Start.Byte })
	return as
}

func label(b *hclsyntax.Block) string {
	var parts []string
	parts = append(parts, b.Type)
	for _, l := range b.Labels {
		parts = append(parts, strconv.Quote(l))
	}
	return strings.Join(parts, " ")
}

func (g *generator) machineBlock(body *hclsyntax.Body) {
	var transitions []*hclsyntax.Block
	for _, b := range body.Blocks {
		el := label(b)
		switch b.Type {
		case "param":
			g.param(b, el)
		case "observe":
			g.attrs(b.Body, el, focus{observe: b.Labels[0]}, nil)
		case "let":
			g.attrs(b.Body, el, focus{let: b.Labels[0], readers: g.readers[g.machine][b.Labels[0]]}, nil)
		case "state":
			g.attrs(b.Body, el, focus{state: b.Labels[0]}, map[string]bool{"recheck": true})
		case "transition":
			transitions = append(transitions, b)
			g.transition(b, el)
		}
	}
	g.order(transitions)
}

func (g *generator) param(b *hclsyntax.Block, el string) {
	f := focus{param: b.Labels[0]}
	typ := ""
	if a, ok := b.Body.Attributes["type"]; ok {
		if v, ok := keywordOf(a.Expr); ok {
			typ = v
		}
	}
	for _, a := range sortedAttrs(b.Body) {
		switch a.Name {
		case "default":
			g.paramDefault(a, typ, el, f)
		case "override":
			g.add(&Mutant{Element: el, Attr: "override", Kind: "override", Before: string(a.Expr.Range().SliceBytes(g.src)), After: "dropped",
				focus: f, edits: []edit{g.dropLines(a.SrcRange)}, Pos: a.SrcRange.Start})
		}
	}
	g.attrs(b.Body, el, f, nil)
}

func (g *generator) paramDefault(a *hclsyntax.Attribute, typ, el string, f focus) {
	rng := a.Expr.Range()
	raw := string(rng.SliceBytes(g.src))
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() || v.IsNull() {
		return
	}
	var repls []string
	switch typ {
	case "duration":
		s, err := strconv.Unquote(raw)
		if err != nil {
			return
		}
		for _, n := range durationNeighbours(s) {
			repls = append(repls, strconv.Quote(n))
		}
	case "int":
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil {
			return
		}
		repls = []string{strconv.FormatInt(n-1, 10), strconv.FormatInt(n+1, 10)}
	case "bool":
		switch strings.TrimSpace(raw) {
		case "true":
			repls = []string{"false"}
		case "false":
			repls = []string{"true"}
		}
	case "string":
		if s, err := strconv.Unquote(raw); err == nil && s != "" {
			repls = []string{`""`}
		}
	}
	for _, r := range repls {
		g.add(&Mutant{Element: el, Attr: "default", Kind: "default", Before: raw, After: r, focus: f,
			edits: []edit{{rng.Start.Byte, rng.End.Byte, r}}})
	}
}

// waitAttrs are the attributes whose value is a wait.
var waitAttrs = map[string]bool{"after": true, "at": true, "recheck": true}

// attrs mutates the attributes of a block: every CEL expression (but a
// message, which is text for people), set and conditions maps, waits, and
// when, which is also dropped. drop lists other attributes that are
// dropped as a whole.
func (g *generator) attrs(body *hclsyntax.Body, el string, f focus, _ map[string]bool) {
	for _, a := range sortedAttrs(body) {
		switch a.Name {
		case "message", "description", "reason", "to", "type", "default", "override", "verb", "scope", "dry_run", "propagation", "initial", "final", "outcome":
			continue
		case "set":
			g.setMap(a, el, f)
			continue
		case "conditions":
			g.conditions(a, el, f)
			continue
		case "when":
			g.add(&Mutant{Element: el, Attr: "when", Kind: "guard", Before: g.celText(a), After: "dropped", focus: f,
				edits: []edit{g.dropLines(a.SrcRange)}, Pos: a.SrcRange.Start})
		}
		if waitAttrs[a.Name] {
			g.wait(a, body, el, f)
		}
		g.cel(a.Expr, el, a.Name, f, celOptions{entries: a.Name == "body"})
	}
}

// celText is an attribute's CEL source, for people.
func (g *generator) celText(a *hclsyntax.Attribute) string {
	if e := g.exprs[a.Expr.Range().Start.Byte]; e != nil {
		return e.Source
	}
	return string(a.Expr.Range().SliceBytes(g.src))
}

// cel adds the CEL mutations of the expression whose value is x.
func (g *generator) cel(x hclsyntax.Expression, el, attr string, f focus, opt celOptions) {
	e := g.exprs[x.Range().Start.Byte]
	if e == nil {
		return
	}
	for _, ce := range celMutations(e.Source, opt) {
		start := e.Pos(ce.start).Byte
		end := start
		if ce.end > ce.start {
			end = e.Pos(ce.end-1).Byte + 1
		}
		if !encodable(ce.repl) {
			continue
		}
		// The file holds the expression's text there: what it decodes
		// from is the same bytes, unless escapes are inside.
		if cel := e.Source[ce.start:ce.end]; encodable(cel) && string(g.src[start:end]) != cel {
			g.diags = append(g.diags, &hcl.Diagnostic{Severity: hcl.DiagWarning, Summary: "Mutation skipped",
				Detail:  fmt.Sprintf("The CEL text %q was not found where the expression maps it (%q); the mutation %s is left out.", cel, g.src[start:end], ce.kind),
				Subject: e.RangeAt(ce.start, ce.end-ce.start).Ptr()})
			continue
		}
		g.add(&Mutant{Element: el, Attr: attr, Kind: ce.kind, Before: ce.before, After: ce.after, focus: f,
			edits: []edit{{start, end, ce.repl}}})
	}
}

// encodable reports whether CEL text can be put into an HCL quoted string
// as it is: it was cut from one, so only quotes and escapes would need
// encoding again.
func encodable(s string) bool {
	return !strings.ContainsAny(s, "\"\\\n") && !strings.Contains(s, "${") && !strings.Contains(s, "%{")
}

func (g *generator) setMap(a *hclsyntax.Attribute, el string, f focus) {
	obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return
	}
	for i, it := range obj.Items {
		key, _ := keywordOf(it.KeyExpr)
		g.add(&Mutant{Element: el, Attr: "set." + key, Kind: "set", Before: key + " = " + g.exprSource(it.ValueExpr), After: "dropped", focus: f,
			edits: []edit{g.dropItem(obj, i)}, Pos: it.KeyExpr.Range().Start})
		g.cel(it.ValueExpr, el, "set."+key, f, celOptions{})
	}
}

func (g *generator) exprSource(x hclsyntax.Expression) string {
	if e := g.exprs[x.Range().Start.Byte]; e != nil {
		return e.Source
	}
	return string(x.Range().SliceBytes(g.src))
}

func (g *generator) conditions(a *hclsyntax.Attribute, el string, f focus) {
	obj, ok := a.Expr.(*hclsyntax.ObjectConsExpr)
	if !ok {
		return
	}
	for _, it := range obj.Items {
		key, _ := keywordOf(it.KeyExpr)
		v, ok := keywordOf(it.ValueExpr)
		if !ok {
			continue
		}
		flip := map[string]string{"True": "False", "False": "True", "Unknown": "True"}[v]
		if flip == "" {
			continue
		}
		rng := it.ValueExpr.Range()
		g.add(&Mutant{Element: el, Attr: "conditions." + key, Kind: "condition", Before: v, After: flip, focus: f,
			edits: []edit{{rng.Start.Byte, rng.End.Byte, flip}}})
	}
}

// wait drops a wait (a recheck with its jitter, which needs it) and doubles
// it.
func (g *generator) wait(a *hclsyntax.Attribute, body *hclsyntax.Body, el string, f focus) {
	drop := []edit{g.dropLines(a.SrcRange)}
	if j, ok := body.Attributes["jitter"]; ok && a.Name == "recheck" {
		drop = append(drop, g.dropLines(j.SrcRange))
	}
	g.add(&Mutant{Element: el, Attr: a.Name, Kind: "wait", Before: g.celText(a), After: "dropped", focus: f,
		edits: drop, Pos: a.SrcRange.Start})
	rng := a.Expr.Range()
	raw := string(rng.SliceBytes(g.src))
	if len(raw) < 2 || raw[0] != '"' {
		return // a heredoc: not doubled
	}
	inner := raw[1 : len(raw)-1]
	text := g.celText(a)
	var repl, after string
	switch t := g.types[rng.Start.Byte]; {
	case t != nil && t.String() == cel.TimestampType.String():
		repl = "(" + inner + ") + ((" + inner + ") - now)"
		after = "(" + text + ") + ((" + text + ") - now)"
	case t != nil && t.String() == cel.DurationType.String():
		repl = "(" + inner + ") + (" + inner + ")"
		after = "(" + text + ") + (" + text + ")"
	default:
		return
	}
	g.add(&Mutant{Element: el, Attr: a.Name, Kind: "wait", Before: text, After: after, focus: f,
		edits: []edit{{rng.Start.Byte + 1, rng.End.Byte - 1, repl}}})
}

func (g *generator) transition(b *hclsyntax.Block, el string) {
	name := b.Labels[0]
	f := focus{transition: name}
	g.add(&Mutant{Element: el, Kind: "transition", Before: el, After: "dropped", focus: f,
		edits: []edit{g.dropBlock(b)}, Pos: b.TypeRange.Start})
	if a, ok := b.Body.Attributes["from"]; ok {
		if tup, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok && len(tup.Exprs) > 1 {
			for i, x := range tup.Exprs {
				st, _ := keywordOf(x)
				g.add(&Mutant{Element: el, Attr: "from", Kind: "from", Before: st, After: "dropped", focus: f,
					edits: []edit{g.dropTupleItem(tup, i)}, Pos: x.Range().Start})
			}
		}
	}
	g.attrs(b.Body, el, f, nil)
	seen := map[string]int{}
	for _, blk := range b.Body.Blocks {
		sub := el + " " + label(blk)
		seen[sub]++
		if n := seen[sub]; n > 1 {
			sub += fmt.Sprintf(" (%d)", n)
		}
		switch blk.Type {
		case "do":
			g.attrs(blk.Body, sub, f, nil)
		case "on":
			g.add(&Mutant{Element: sub, Kind: "route", Before: label(blk), After: "dropped", focus: f,
				edits: []edit{g.dropBlock(blk)}, Pos: blk.TypeRange.Start})
			g.attrs(blk.Body, sub, f, nil)
		}
	}
}

// order swaps each transition with the next one that fires from one of
// its states (a swap of transitions with no state in common would change
// nothing).
func (g *generator) order(ts []*hclsyntax.Block) {
	froms := make([]map[string]bool, len(ts))
	for i, t := range ts {
		froms[i] = map[string]bool{}
		if a, ok := t.Body.Attributes["from"]; ok {
			if tup, ok := a.Expr.(*hclsyntax.TupleConsExpr); ok {
				for _, x := range tup.Exprs {
					if s, ok := keywordOf(x); ok {
						froms[i][s] = true
					}
				}
			}
		}
	}
	overlap := func(a, b map[string]bool) bool {
		if a["*"] || b["*"] {
			return true
		}
		for s := range a {
			if b[s] {
				return true
			}
		}
		return false
	}
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if !overlap(froms[i], froms[j]) {
				continue
			}
			a, b := g.blockLines(ts[i]), g.blockLines(ts[j])
			ta, tb := string(g.src[a.start:a.end]), string(g.src[b.start:b.end])
			g.add(&Mutant{Element: label(ts[i]), Kind: "order", Before: label(ts[i]) + " before " + label(ts[j]),
				After: label(ts[j]) + " before " + label(ts[i]), focus: focus{transition: ts[i].Labels[0]},
				edits: []edit{{a.start, a.end, tb}, {b.start, b.end, ta}}, Pos: ts[i].TypeRange.Start})
			break
		}
	}
}

// keywordOf reads a bare word or a quoted literal.
func keywordOf(x hclsyntax.Expression) (string, bool) {
	switch e := x.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		return e.Traversal.RootName(), len(e.Traversal) == 1
	case *hclsyntax.ObjectConsKeyExpr:
		return keywordOf(e.Wrapped)
	case *hclsyntax.TemplateExpr:
		if len(e.Parts) == 1 {
			if l, ok := e.Parts[0].(*hclsyntax.LiteralValueExpr); ok && l.Val.Type().FriendlyName() == "string" {
				return l.Val.AsString(), true
			}
		}
		if len(e.Parts) == 0 {
			return "", true
		}
	case *hclsyntax.LiteralValueExpr:
		if e.Val.Type().FriendlyName() == "string" {
			return e.Val.AsString(), true
		}
	}
	return "", false
}

// Line-based edits: a dropped attribute or block takes its whole lines when
// it stands alone on them, and the comment lines right above a block go
// with it.

type span struct{ start, end int }

func (g *generator) lineStart(off int) int {
	for off > 0 && g.src[off-1] != '\n' {
		off--
	}
	return off
}

func (g *generator) lineEnd(off int) int {
	for off < len(g.src) && g.src[off] != '\n' {
		off++
	}
	if off < len(g.src) {
		off++
	}
	return off
}

func blank(b []byte) bool { return strings.TrimSpace(string(b)) == "" }

// dropLines removes rng, with its lines when nothing else stands on them.
func (g *generator) dropLines(rng hcl.Range) edit {
	ls, le := g.lineStart(rng.Start.Byte), g.lineEnd(rng.End.Byte)
	endOfText := le
	if endOfText > 0 && g.src[endOfText-1] == '\n' {
		endOfText--
	}
	if blank(g.src[ls:rng.Start.Byte]) && blank(g.src[rng.End.Byte:endOfText]) {
		return edit{ls, le, ""}
	}
	return edit{rng.Start.Byte, rng.End.Byte, ""}
}

// blockLines is a block's lines with the comment lines right above it.
func (g *generator) blockLines(b *hclsyntax.Block) span {
	rng := b.Range()
	start, end := g.lineStart(rng.Start.Byte), g.lineEnd(rng.End.Byte)
	for start > 0 {
		prev := g.lineStart(start - 1)
		line := strings.TrimSpace(string(g.src[prev:start]))
		if !strings.HasPrefix(line, "#") && !strings.HasPrefix(line, "//") {
			break
		}
		start = prev
	}
	return span{start, end}
}

func (g *generator) dropBlock(b *hclsyntax.Block) edit {
	s := g.blockLines(b)
	// A blank line left between two blocks is kept once.
	if s.start > 1 && g.src[s.start-1] == '\n' && g.src[s.start-2] == '\n' && s.end < len(g.src) && g.src[s.end] == '\n' {
		s.end++
	}
	return edit{s.start, s.end, ""}
}

// dropItem removes item i of an object: its lines, or, on one line, the
// item with the separator after it (before it, for the last).
func (g *generator) dropItem(obj *hclsyntax.ObjectConsExpr, i int) edit {
	it := obj.Items[i]
	rng := hcl.RangeBetween(it.KeyExpr.Range(), it.ValueExpr.Range())
	ls, le := g.lineStart(rng.Start.Byte), g.lineEnd(rng.End.Byte)
	eot := le
	if eot > 0 && g.src[eot-1] == '\n' {
		eot--
	}
	rest := strings.TrimSpace(string(g.src[rng.End.Byte:eot]))
	if blank(g.src[ls:rng.Start.Byte]) && (rest == "" || rest == ",") {
		return edit{ls, le, ""}
	}
	if i < len(obj.Items)-1 {
		return edit{rng.Start.Byte, obj.Items[i+1].KeyExpr.Range().Start.Byte, ""}
	}
	if i > 0 {
		return edit{obj.Items[i-1].ValueExpr.Range().End.Byte, rng.End.Byte, ""}
	}
	return edit{rng.Start.Byte, rng.End.Byte, ""}
}

func (g *generator) dropTupleItem(tup *hclsyntax.TupleConsExpr, i int) edit {
	if i < len(tup.Exprs)-1 {
		return edit{tup.Exprs[i].Range().Start.Byte, tup.Exprs[i+1].Range().Start.Byte, ""}
	}
	return edit{tup.Exprs[i-1].Range().End.Byte, tup.Exprs[i].Range().End.Byte, ""}
}

// name gives every mutant its ID, numbering repeats.
func (g *generator) name() {
	count := map[string]int{}
	for _, m := range g.out {
		id := m.Machine + " " + m.Element
		if m.Attr != "" {
			id += " " + m.Attr
		}
		id += ": "
		if m.Kind != m.Attr && !strings.HasPrefix(m.Attr, m.Kind+".") {
			id += m.Kind + ": "
		}
		id += short(m.Before) + " → " + short(m.After)
		count[id]++
		if n := count[id]; n > 1 {
			id += fmt.Sprintf(" #%d", n)
		}
		m.ID = id
	}
}

// short cuts long text in the middle, and puts it on one line.
func short(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const max = 96
	if r := []rune(s); len(r) > max {
		return string(r[:max/2-1]) + " … " + string(r[len(r)-max/2+2:])
	}
	return s
}
