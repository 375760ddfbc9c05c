package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/statecraft/statecraft/rules/policies"
	"github.com/statecraft/statecraft/spec/crds"
)

// LoadFile reads and decodes one rule file.
func LoadFile(path string) (*File, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Cannot read rule file",
			Detail:   err.Error(),
		}}
	}
	return Parse(src, path)
}

// Load reads and decodes several rule files, in the order given, and checks
// that machine names are unique across them.
func Load(paths ...string) ([]*File, hcl.Diagnostics) {
	var files []*File
	var diags hcl.Diagnostics
	for _, p := range paths {
		f, d := LoadFile(p)
		diags = append(diags, d...)
		if f != nil {
			files = append(files, f)
		}
	}
	diags = append(diags, checkUniqueMachines(files)...)
	return files, diags
}

func checkUniqueMachines(files []*File) hcl.Diagnostics {
	var diags hcl.Diagnostics
	seen := map[string]*Machine{}
	for _, f := range files {
		for _, m := range f.Machines {
			if prev, ok := seen[m.Name]; ok {
				diags = append(diags, dupDiag("machine", m.Name, prev.NameRange, m.NameRange))
				continue
			}
			seen[m.Name] = m
		}
	}
	return diags
}

// Parse decodes rule-file source. It never panics: a malformed file gives
// diagnostics and as much of the model as could be decoded.
func Parse(src []byte, filename string) (file *File, diags hcl.Diagnostics) {
	defer func() {
		if r := recover(); r != nil {
			file = nil
			diags = append(diags, &hcl.Diagnostic{
				Severity: hcl.DiagError,
				Summary:  "Internal error while loading rule file",
				Detail:   fmt.Sprintf("The loader failed on this input (%v). Please report it with the file attached.", r),
				Subject:  &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos},
			})
		}
	}()
	hf, d := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	diags = append(diags, d...)
	if hf == nil || d.HasErrors() {
		return nil, diags
	}
	l := &loader{src: newSourceFile(filename, src)}
	file = &File{Filename: filename}
	content, d := hf.Body.Content(fileSchema)
	diags = append(diags, d...)
	for _, b := range content.Blocks {
		m, d := l.machine(b)
		diags = append(diags, d...)
		if m != nil {
			file.Machines = append(file.Machines, m)
		}
	}
	if len(content.Blocks) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "No machine",
			Detail:   "A rule file declares at least one machine block.",
			Subject:  &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos},
		})
	}
	diags = append(diags, checkUniqueMachines([]*File{file})...)
	return file, diags
}

var fileSchema = &hcl.BodySchema{
	Blocks: []hcl.BlockHeaderSchema{{Type: "machine", LabelNames: []string{"name"}}},
}

var machineSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "description"},
		{Name: "state_field"},
		{Name: "max_steps"},
		{Name: "memory"},
		{Name: "memory_key"},
		{Name: "memory_namespace"},
		{Name: "event_controller"},
	},
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "resource", LabelNames: []string{"api_version", "kind"}},
		{Type: "param", LabelNames: []string{"name"}},
		{Type: "observe", LabelNames: []string{"name"}},
		{Type: "let", LabelNames: []string{"name"}},
		{Type: "function", LabelNames: []string{"name"}},
		{Type: "state", LabelNames: []string{"name"}},
		{Type: "transition", LabelNames: []string{"name"}},
		{Type: "property", LabelNames: []string{"name"}},
		{Type: "accept", LabelNames: []string{"name"}},
	},
}

type loader struct {
	src *sourceFile
	// eventController is the reportingController of the Events of the
	// machine being loaded (its event_controller).
	eventController string
}

// readSchema reads a CRD manifest named by a resource's schema attribute.
func (l *loader) readSchema(name string) ([]byte, error) {
	if rest, ok := strings.CutPrefix(name, "crd:"); ok {
		return crds.Read(rest)
	}
	if filepath.IsAbs(name) {
		return os.ReadFile(name)
	}
	return os.ReadFile(filepath.Join(filepath.Dir(l.src.name), name))
}

func (l *loader) machine(b *hcl.Block) (*Machine, hcl.Diagnostics) {
	m := &Machine{
		Name:       b.Labels[0],
		StateField: "state",
		MaxSteps:   16,
		MemoryIn:   "status",
		MemoryKey:  "statecraft.dev/memory",
		// EventController is every event action's controller unless
		// the action names its own.
		EventController: "statecraft.dev/engine",
		DeclRange:       b.DefRange,
		NameRange:       b.LabelRanges[0],
	}
	var diags hcl.Diagnostics
	diags = append(diags, checkName("machine", m.Name, b.LabelRanges[0])...)
	content, d := b.Body.Content(machineSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["description"]; ok {
		m.Description, d = literalString(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["state_field"]; ok {
		m.StateField, d = literalString(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["memory"]; ok {
		m.MemoryIn, d = keyword(a)
		m.MemoryRange = a.Expr.Range()
		diags = append(diags, d...)
		if m.MemoryIn != "status" && m.MemoryIn != "annotation" && m.MemoryIn != "companion" {
			diags = append(diags, attrDiag(a, "Unknown memory", "memory is status (the driven object's status), annotation (an annotation on it) or companion (a ConfigMap it owns)."))
		}
	}
	if a, ok := content.Attributes["memory_key"]; ok {
		m.MemoryKey, d = literalString(a)
		diags = append(diags, d...)
		if m.MemoryIn != "annotation" {
			diags = append(diags, attrDiag(a, "memory_key without annotation memory", "memory_key names the annotation that holds the memory; set memory = annotation."))
		} else if errs := validation.IsQualifiedName(m.MemoryKey); len(errs) > 0 {
			diags = append(diags, attrDiag(a, "Invalid annotation key", strings.Join(errs, "; ")+"."))
		}
	}
	if a, ok := content.Attributes["memory_namespace"]; ok {
		m.MemoryNamespace, d = literalString(a)
		diags = append(diags, d...)
		if m.MemoryIn != "companion" {
			diags = append(diags, attrDiag(a, "memory_namespace without companion memory", "memory_namespace is where a cluster-scoped object's companion ConfigMap lives; set memory = companion."))
		}
	}
	if a, ok := content.Attributes["event_controller"]; ok {
		m.EventController, d = literalString(a)
		diags = append(diags, d...)
		if m.EventController == "" {
			diags = append(diags, attrDiag(a, "Empty event_controller", "event_controller is the reportingController of the machine's Events, such as example.com/my-controller."))
		}
	}
	l.eventController = m.EventController
	if a, ok := content.Attributes["max_steps"]; ok {
		n, d := literalInt(a)
		diags = append(diags, d...)
		if n < 1 || n > 1000 {
			diags = append(diags, attrDiag(a, "Invalid max_steps", "max_steps must be between 1 and 1000."))
		} else {
			m.MaxSteps = n
		}
	}
	names := map[string]hcl.Range{}
	unique := func(kind, name string, rng hcl.Range) bool {
		key := kind + ":" + name
		if kind == "observe" || kind == "let" || kind == "param" {
			key = "value:" + name // share one namespace in CEL
		}
		if prev, ok := names[key]; ok {
			diags = append(diags, dupDiag(kind, name, prev, rng))
			return false
		}
		names[key] = rng
		return true
	}
	for _, blk := range content.Blocks {
		name := blk.Labels[len(blk.Labels)-1]
		rng := blk.LabelRanges[len(blk.LabelRanges)-1]
		switch blk.Type {
		case "resource":
			r, d := l.resource(blk)
			diags = append(diags, d...)
			if r != nil && unique("resource", r.APIVersion+"/"+r.Kind, blk.DefRange) {
				m.Resources = append(m.Resources, r)
			}
		case "param":
			p, d := l.param(blk)
			diags = append(diags, d...)
			if p != nil && unique("param", name, rng) {
				m.Params = append(m.Params, p)
			}
		case "observe":
			o, d := l.observe(blk)
			diags = append(diags, d...)
			if o != nil && unique("observe", name, rng) {
				m.Observes = append(m.Observes, o)
			}
		case "let":
			x, d := l.let(blk)
			diags = append(diags, d...)
			if x != nil && unique("let", name, rng) {
				m.Lets = append(m.Lets, x)
			}
		case "function":
			f, d := l.function(blk)
			diags = append(diags, d...)
			if f != nil && unique("function", f.Name, rng) {
				m.Functions = append(m.Functions, f)
			}
		case "state":
			s, d := l.state(blk)
			diags = append(diags, d...)
			if s != nil && unique("state", name, rng) {
				m.States = append(m.States, s)
			}
		case "transition":
			t, d := l.transition(blk)
			diags = append(diags, d...)
			if t != nil && unique("transition", name, rng) {
				m.Transitions = append(m.Transitions, t)
			}
		case "property":
			p, d := property(blk)
			diags = append(diags, d...)
			if p != nil && unique("property", name, rng) {
				m.Properties = append(m.Properties, p)
			}
		case "accept":
			a, d := accept(blk)
			diags = append(diags, d...)
			if a != nil && unique("accept", name, rng) {
				m.Accepts = append(m.Accepts, a)
			}
		}
	}
	if m.MemoryIn == "companion" && m.MemoryNamespace == "" {
		for _, r := range m.Resources {
			if r.Scope == "Cluster" {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Companion memory without a namespace",
					Detail:  fmt.Sprintf("%s is cluster-scoped: its companion ConfigMap needs memory_namespace.", r.Kind),
					Subject: m.MemoryRange.Ptr()})
				break
			}
		}
	}
	if len(m.Resources) == 0 {
		diags = append(diags, &hcl.Diagnostic{
			Severity: hcl.DiagError,
			Summary:  "Machine binds no resource",
			Detail:   fmt.Sprintf("Machine %q needs at least one resource block naming the custom resource it drives.", m.Name),
			Subject:  m.DeclRange.Ptr(),
		})
	}
	return m, diags
}

var resourceSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "scope", Required: true}, {Name: "schema"}},
}

func (l *loader) resource(b *hcl.Block) (*Resource, hcl.Diagnostics) {
	r := &Resource{APIVersion: b.Labels[0], Kind: b.Labels[1], DeclRange: b.DefRange}
	content, diags := b.Body.Content(resourceSchema)
	if a, ok := content.Attributes["scope"]; ok {
		s, d := keyword(a)
		diags = append(diags, d...)
		if s != "" && s != "Namespaced" && s != "Cluster" {
			diags = append(diags, attrDiag(a, "Invalid scope", "scope is Namespaced or Cluster."))
		}
		r.Scope = s
	}
	if a, ok := content.Attributes["schema"]; ok {
		s, d := literalString(a)
		diags = append(diags, d...)
		r.Schema, r.SchemaRange = s, a.Expr.Range()
		if s != "" {
			src, err := l.readSchema(s)
			if err != nil {
				diags = append(diags, attrDiag(a, "Cannot read schema", fmt.Sprintf("The CRD manifest %q cannot be read: %v.", s, err)))
			}
			r.SchemaSource = src
		}
	}
	if r.APIVersion == "" || strings.Count(r.APIVersion, "/") > 1 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid apiVersion",
			Detail: "The first label of a resource block is an apiVersion such as \"group/v1\" or \"v1\".", Subject: b.LabelRanges[0].Ptr()})
	}
	diags = append(diags, checkName("kind", r.Kind, b.LabelRanges[1])...)
	return r, diags
}

// ParamTypes are the types a param may declare.
var ParamTypes = []string{"bool", "duration", "int", "string"}

var paramSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default", Required: true},
		{Name: "override"}, {Name: "valid"}, {Name: "reason"},
	},
}

func (l *loader) param(b *hcl.Block) (*Param, hcl.Diagnostics) {
	p := &Param{Name: b.Labels[0], DeclRange: b.DefRange, Reason: "InvalidParameter"}
	diags := checkName("param", p.Name, b.LabelRanges[0])
	content, d := b.Body.Content(paramSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["type"]; ok {
		p.Type, d = keyword(a)
		diags = append(diags, d...)
		if p.Type != "" && !contains(ParamTypes, p.Type) {
			diags = append(diags, attrDiag(a, "Unknown param type", fmt.Sprintf("A param type is one of %s.", strings.Join(ParamTypes, ", "))))
		}
	}
	if a, ok := content.Attributes["default"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		p.DefaultRange = a.Expr.Range()
		if !d.HasErrors() {
			p.Default, d = ctyToGo(v, a)
			diags = append(diags, d...)
		}
		if _, typed := content.Attributes["type"]; !typed && !diags.HasErrors() {
			p.Type, d = defaultType(p.Default, a)
			diags = append(diags, d...)
		}
	}
	if a, ok := content.Attributes["override"]; ok {
		p.Override, d = literalString(a)
		diags = append(diags, d...)
		p.OverrideRange = a.Expr.Range()
		if p.Override != "" && !validFieldPath(p.Override) {
			diags = append(diags, attrDiag(a, "Invalid field path", "override is a dotted field path of the resource, such as \"spec.requeueInterval\"."))
		}
	}
	if a, ok := content.Attributes["valid"]; ok {
		p.Valid, d = l.src.celExpr(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["reason"]; ok {
		p.Reason, d = keyword(a)
		diags = append(diags, d...)
	}
	return p, diags
}

var observeSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "get"}, {Name: "list"}, {Name: "when"}, {Name: "for_each"}},
}

func (l *loader) observe(b *hcl.Block) (*Observe, hcl.Diagnostics) {
	o := &Observe{Name: b.Labels[0], DeclRange: b.DefRange}
	diags := checkName("observe", o.Name, b.LabelRanges[0])
	content, d := b.Body.Content(observeSchema)
	diags = append(diags, d...)
	o.Get, diags = l.optExpr(content, "get", diags)
	o.List, diags = l.optExpr(content, "list", diags)
	o.When, diags = l.optExpr(content, "when", diags)
	o.ForEach, diags = l.optExpr(content, "for_each", diags)
	if (o.Get == nil) == (o.List == nil) && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Observation needs get or list",
			Detail: "An observe block has exactly one of get (one object) or list (objects by label selector).", Subject: b.DefRange.Ptr()})
	}
	return o, diags
}

var functionSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "value", Required: true}}}

// function loads a function block, whose label is its signature:
// `function "key(o)"` declares key with one parameter, o.
func (l *loader) function(b *hcl.Block) (*Function, hcl.Diagnostics) {
	f, diags := signature(b.Labels[0], b.LabelRanges[0])
	f.DeclRange = b.DefRange
	content, d := b.Body.Content(functionSchema)
	for _, x := range d {
		if x.Summary == "Unsupported argument" && x.Subject != nil && strings.Contains(x.Detail, `"params"`) {
			x.Detail = fmt.Sprintf("A function's parameters are declared in its label: function %q.", f.Name+"(a, b)")
		}
	}
	diags = append(diags, d...)
	f.Value, diags = l.optExpr(content, "value", diags)
	return f, diags
}

// signature parses a function's label, NAME(PARAM, ...), into a Function
// with its name and parameters; each diagnostic points at the part of the
// label it is about.
func signature(label string, rng hcl.Range) (*Function, hcl.Diagnostics) {
	// at is the range of label[i:j] inside the quoted label.
	at := func(i, j int) *hcl.Range {
		r := rng
		r.Start.Column, r.Start.Byte = rng.Start.Column+1+i, rng.Start.Byte+1+i
		r.End.Column, r.End.Byte = rng.Start.Column+1+j, rng.Start.Byte+1+j
		if rng.Start.Line != rng.End.Line {
			return rng.Ptr()
		}
		return &r
	}
	open, end := strings.IndexByte(label, '('), strings.LastIndexByte(label, ')')
	if open < 0 || end != len(label)-1 || end < open {
		name := label
		if open >= 0 {
			name = label[:open]
		}
		return &Function{Name: strings.TrimSpace(name)}, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid function signature",
			Detail: fmt.Sprintf("A function's label is its name and its parameters: %q.", strings.TrimSpace(name)+"(a, b)"), Subject: rng.Ptr()}}
	}
	f := &Function{Name: strings.TrimSpace(label[:open])}
	diags := checkName("function", f.Name, *at(0, open))
	if strings.TrimSpace(label[open+1:end]) == "" {
		return f, diags
	}
	seen := map[string]bool{}
	start := open + 1
	for _, part := range strings.Split(label[open+1:end], ",") {
		i := start + len(part) - len(strings.TrimLeft(part, " "))
		n := strings.TrimSpace(part)
		sub := at(i, i+len(n))
		start += len(part) + 1
		switch {
		case !hclsyntax.ValidIdentifier(n) || strings.Contains(n, "-"):
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid parameter name",
				Detail: "A parameter is named like a CEL identifier: a letter or _, then letters, digits and _.", Subject: sub})
		case seen[n]:
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate parameter",
				Detail: fmt.Sprintf("%s is a parameter of %s twice.", n, f.Name), Subject: sub})
		default:
			seen[n] = true
			f.Params = append(f.Params, n)
		}
	}
	return f, diags
}

var letSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "value", Required: true}}}

func (l *loader) let(b *hcl.Block) (*Let, hcl.Diagnostics) {
	x := &Let{Name: b.Labels[0], DeclRange: b.DefRange}
	diags := checkName("let", x.Name, b.LabelRanges[0])
	content, d := b.Body.Content(letSchema)
	diags = append(diags, d...)
	x.Value, diags = l.optExpr(content, "value", diags)
	return x, diags
}

var stateSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "initial"}, {Name: "final"}, {Name: "outcome"}, {Name: "conditions"}, {Name: "recheck"}, {Name: "jitter"}, {Name: "set"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "condition", LabelNames: []string{"type"}}},
}

var conditionSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "status", Required: true}, {Name: "reason"}, {Name: "message"}},
}

// conditionBlocks decodes condition blocks; a type set twice, here or in
// the conditions map, is an error.
func (l *loader) conditionBlocks(blocks hcl.Blocks, lits []Assignment) ([]*Condition, hcl.Diagnostics) {
	var out []*Condition
	var diags hcl.Diagnostics
	seen := map[string]hcl.Range{}
	for _, a := range lits {
		seen[a.Path] = a.Range
	}
	for _, b := range blocks {
		if b.Type != "condition" {
			continue
		}
		c := &Condition{Type: b.Labels[0], DeclRange: b.DefRange}
		if prev, ok := seen[c.Type]; ok {
			diags = append(diags, dupDiag("condition", c.Type, prev, b.LabelRanges[0]))
			continue
		}
		seen[c.Type] = b.LabelRanges[0]
		content, d := b.Body.Content(conditionSchema)
		diags = append(diags, d...)
		c.Status, diags = l.optExpr(content, "status", diags)
		c.Reason, diags = l.optExpr(content, "reason", diags)
		c.Message, diags = l.optExpr(content, "message", diags)
		out = append(out, c)
	}
	return out, diags
}

func (l *loader) state(b *hcl.Block) (*State, hcl.Diagnostics) {
	s := &State{Name: b.Labels[0], DeclRange: b.DefRange}
	diags := checkName("state", s.Name, b.LabelRanges[0])
	content, d := b.Body.Content(stateSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["initial"]; ok {
		s.Initial, d = literalBool(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["final"]; ok {
		s.Final, d = literalBool(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["outcome"]; ok {
		s.Outcome, d = keyword(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["conditions"]; ok {
		s.Conditions, d = conditions(a)
		diags = append(diags, d...)
	}
	if a, ok := content.Attributes["set"]; ok {
		s.Set, d = l.assignments(a)
		diags = append(diags, d...)
	}
	s.Computed, d = l.conditionBlocks(content.Blocks, s.Conditions)
	diags = append(diags, d...)
	s.Recheck, diags = l.optExpr(content, "recheck", diags)
	if s.Final && s.Recheck != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Final state with recheck",
			Detail: "A final state is not polled; remove recheck or final.", Subject: s.Recheck.Range.Ptr()})
	}
	s.Jitter, diags = l.optExpr(content, "jitter", diags)
	if s.Jitter != nil && s.Recheck == nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Jitter without recheck",
			Detail: "jitter delays a state's rechecks; this state has no recheck.", Subject: s.Jitter.Range.Ptr()})
	}
	return s, diags
}

var transitionSchema = &hcl.BodySchema{
	Attributes: append([]hcl.AttributeSchema{{Name: "from", Required: true}, {Name: "when"}}, routeAttrs...),
	Blocks: []hcl.BlockHeaderSchema{
		{Type: "do", LabelNames: []string{"name"}},
		{Type: "on", LabelNames: []string{"action", "outcome"}},
		{Type: "condition", LabelNames: []string{"type"}},
	},
}

var routeAttrs = []hcl.AttributeSchema{
	{Name: "to"}, {Name: "reason"}, {Name: "reasons"}, {Name: "message"}, {Name: "set"}, {Name: "after"}, {Name: "at"}, {Name: "conditions"},
}

// conditions decodes a map of condition type to literal status.
func conditions(a *hcl.Attribute) ([]Assignment, hcl.Diagnostics) {
	var out []Assignment
	pairs, diags := hcl.ExprMap(a.Expr)
	for _, kv := range pairs {
		k, d := mapKey(kv.Key)
		diags = append(diags, d...)
		v, d := keywordExpr(kv.Value, "condition status")
		diags = append(diags, d...)
		if v != "" && v != "True" && v != "False" && v != "Unknown" {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid condition status",
				Detail: "A condition status is True, False or Unknown.", Subject: kv.Value.Range().Ptr()})
		}
		out = append(out, Assignment{Path: k, Lit: v, Range: kv.Key.Range()})
	}
	return out, diags
}

var routeSchema = &hcl.BodySchema{
	Attributes: append([]hcl.AttributeSchema{{Name: "when"}}, routeAttrs...),
	Blocks:     []hcl.BlockHeaderSchema{{Type: "condition", LabelNames: []string{"type"}}},
}

func (l *loader) transition(b *hcl.Block) (*Transition, hcl.Diagnostics) {
	t := &Transition{Name: b.Labels[0], DeclRange: b.DefRange}
	var diags hcl.Diagnostics
	if strings.TrimSpace(t.Name) == "" {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty transition name",
			Detail: "A transition is named by a short phrase, such as \"apply\".", Subject: b.LabelRanges[0].Ptr()})
	}
	content, d := b.Body.Content(transitionSchema)
	diags = append(diags, d...)
	if a, ok := content.Attributes["from"]; ok {
		t.FromRange = a.Expr.Range()
		items, d := hcl.ExprList(a.Expr)
		diags = append(diags, d...)
		for _, it := range items {
			n, d := keywordExpr(it, "state name")
			diags = append(diags, d...)
			if n != "" {
				t.From = append(t.From, n)
			}
		}
		if len(items) == 0 && !d.HasErrors() {
			diags = append(diags, attrDiag(a, "Empty from", "from lists at least one state, or \"*\" for every state."))
		}
	}
	t.When, diags = l.optExpr(content, "when", diags)
	done, d := l.route(content.Attributes, b.DefRange)
	diags = append(diags, d...)
	done.Computed, d = l.conditionBlocks(content.Blocks, done.Conditions)
	diags = append(diags, d...)
	if done.To != "" || done.HasReason() || done.Set != nil || done.After != nil || done.At != nil || done.Message != nil || done.Conditions != nil || done.Computed != nil {
		t.Done = done
	}
	for _, blk := range content.Blocks {
		switch blk.Type {
		case "do":
			a, d := l.action(blk)
			diags = append(diags, d...)
			if a != nil {
				for _, prev := range t.Actions {
					if prev.Name == a.Name {
						diags = append(diags, dupDiag("action", a.Name, prev.DeclRange, blk.LabelRanges[0]))
					}
				}
				t.Actions = append(t.Actions, a)
			}
		case "on":
			rc, d := blk.Body.Content(routeSchema)
			diags = append(diags, d...)
			r, d := l.route(rc.Attributes, blk.DefRange)
			diags = append(diags, d...)
			r.Action, r.Outcome = blk.Labels[0], blk.Labels[1]
			r.When, diags = l.optExpr(rc, "when", diags)
			r.Computed, d = l.conditionBlocks(rc.Blocks, r.Conditions)
			diags = append(diags, d...)
			t.Routes = append(t.Routes, r)
		}
	}
	if t.Done != nil {
		for _, r := range t.Routes {
			r.inherit(t.Done)
		}
	}
	return t, diags
}

// inherit gives an on route what its transition's own route says and it
// does not: the destination, the reason (with its declared set) and the
// set assignments (an explicit set = {} sets nothing).
func (r *Route) inherit(t *Route) {
	if r.To == "" && t.To != "" {
		r.To, r.ToRange = t.To, t.ToRange
		r.Inherited = append(r.Inherited, "to")
	}
	if !r.HasReason() && t.HasReason() {
		r.Reason, r.ReasonExpr, r.Reasons = t.Reason, t.ReasonExpr, t.Reasons
		r.Inherited = append(r.Inherited, "reason")
	}
	if r.Set == nil && len(t.Set) > 0 {
		r.Set = t.Set
		r.Inherited = append(r.Inherited, "set")
	}
}

func (l *loader) route(attrs hcl.Attributes, rng hcl.Range) (*Route, hcl.Diagnostics) {
	r := &Route{DeclRange: rng}
	var diags hcl.Diagnostics
	var d hcl.Diagnostics
	if a, ok := attrs["to"]; ok {
		r.To, d = keyword(a)
		r.ToRange = a.Expr.Range()
		diags = append(diags, d...)
	}
	if a, ok := attrs["reasons"]; ok {
		items, d := hcl.ExprList(a.Expr)
		diags = append(diags, d...)
		seen := map[string]bool{}
		for _, it := range items {
			n, d := keywordExpr(it, "reason")
			diags = append(diags, d...)
			if n != "" && seen[n] {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate reason",
					Detail: fmt.Sprintf("%s is declared twice in this set.", n), Subject: it.Range().Ptr()})
			}
			if n != "" {
				seen[n] = true
				r.Reasons = append(r.Reasons, n)
			}
		}
		if len(r.Reasons) == 0 && !d.HasErrors() {
			diags = append(diags, attrDiag(a, "Empty reasons", "reasons declares the reasons a computed reason may take: at least one."))
		}
	}
	if a, ok := attrs["reason"]; ok {
		if _, computed := attrs["reasons"]; computed {
			r.ReasonExpr, d = l.src.celExpr(a)
		} else {
			r.Reason, d = keyword(a)
		}
		diags = append(diags, d...)
	} else if a, ok := attrs["reasons"]; ok {
		diags = append(diags, attrDiag(a, "Reasons without reason", "reasons declares the set a computed reason takes its value from; add reason = \"CEL\" computing it."))
	}
	content := &hcl.BodyContent{Attributes: attrs}
	r.Message, diags = l.optExpr(content, "message", diags)
	r.After, diags = l.optExpr(content, "after", diags)
	r.At, diags = l.optExpr(content, "at", diags)
	if r.After != nil && r.At != nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Both after and at",
			Detail: "A route waits either for a duration (after) or until a time (at), not both.", Subject: r.At.Range.Ptr()})
	}
	if a, ok := attrs["conditions"]; ok {
		r.Conditions, d = conditions(a)
		diags = append(diags, d...)
	}
	if a, ok := attrs["set"]; ok {
		r.Set, d = l.assignments(a)
		diags = append(diags, d...)
	}
	return r, diags
}

// assignments decodes a set map: status field (a dotted path) to CEL value.
func (l *loader) assignments(a *hcl.Attribute) ([]Assignment, hcl.Diagnostics) {
	pairs, diags := hcl.ExprMap(a.Expr)
	out := []Assignment{}
	seen := map[string]bool{}
	for _, kv := range pairs {
		k, d := mapKey(kv.Key)
		diags = append(diags, d...)
		if k != "" && !validFieldPath(k) {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid status field",
				Detail: "A set key is a status field name or a dotted path below status, such as retryCount or drift.count.", Subject: kv.Key.Range().Ptr()})
		}
		if seen[k] {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Duplicate status field",
				Detail: fmt.Sprintf("%q is set twice in this block.", k), Subject: kv.Key.Range().Ptr()})
		}
		seen[k] = true
		v, d := l.src.celExpr(&hcl.Attribute{Name: k, Expr: kv.Value, Range: kv.Value.Range()})
		diags = append(diags, d...)
		if v != nil {
			out = append(out, Assignment{Path: k, Value: v, Range: kv.Key.Range()})
		}
	}
	return out, diags
}

// Verbs are the action verbs, each with its attribute set.
var Verbs = []string{"apply", "create", "delete", "event", "get", "patch", "status", "update"}

var actionSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "verb", Required: true}, {Name: "target"}, {Name: "body"},
		{Name: "type"}, {Name: "dry_run"}, {Name: "identity"}, {Name: "expect"}, {Name: "propagation"},
		{Name: "for_each"}, {Name: "when"}, {Name: "best_effort"},
		// event
		{Name: "reason"}, {Name: "message"}, {Name: "regarding"}, {Name: "related"}, {Name: "action"},
		{Name: "name"}, {Name: "controller"}, {Name: "instance"},
	},
}

// eventOnly are the attributes only an event action takes.
var eventOnly = []string{"reason", "message", "regarding", "related", "action", "name", "controller", "instance"}

func (l *loader) action(b *hcl.Block) (*Action, hcl.Diagnostics) {
	a := &Action{Name: b.Labels[0], DeclRange: b.DefRange}
	diags := checkName("action", a.Name, b.LabelRanges[0])
	content, d := b.Body.Content(actionSchema)
	diags = append(diags, d...)
	if at, ok := content.Attributes["verb"]; ok {
		a.Verb, d = keyword(at)
		diags = append(diags, d...)
		if a.Verb != "" && !contains(Verbs, a.Verb) {
			diags = append(diags, attrDiag(at, "Unknown verb", fmt.Sprintf("An action verb is one of %s.", strings.Join(Verbs, ", "))))
		}
	}
	if a.Verb == "event" {
		return a, append(diags, l.eventAction(a, b, content)...)
	}
	for _, name := range eventOnly {
		if at, ok := content.Attributes[name]; ok {
			diags = append(diags, attrDiag(at, "Unexpected attribute", fmt.Sprintf("%s is an attribute of event actions; this is a %s action.", name, a.Verb)))
		}
	}
	if _, ok := content.Attributes["target"]; !ok && a.Verb != "" {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing target",
			Detail: fmt.Sprintf("A %s action needs a target: the reference map of the object acted on.", a.Verb), Subject: b.DefRange.Ptr()})
	}
	if at, ok := content.Attributes["best_effort"]; ok {
		a.BestEffort, d = literalBool(at)
		diags = append(diags, d...)
	}
	a.Target, diags = l.optExpr(content, "target", diags)
	a.Body, diags = l.optExpr(content, "body", diags)
	a.Identity, diags = l.optExpr(content, "identity", diags)
	a.Expect, diags = l.optExpr(content, "expect", diags)
	a.ForEach, diags = l.optExpr(content, "for_each", diags)
	a.When, diags = l.optExpr(content, "when", diags)
	if at, ok := content.Attributes["type"]; ok {
		a.PatchType, d = keyword(at)
		diags = append(diags, d...)
		if a.PatchType != "merge" && a.PatchType != "json" {
			diags = append(diags, attrDiag(at, "Unknown patch type", "type is merge or json; server-side apply is the apply verb."))
		}
		if a.Verb != "patch" && a.Verb != "status" {
			diags = append(diags, attrDiag(at, "Patch type on a non-patch action", "type applies to the patch and status verbs only."))
		}
	}
	if at, ok := content.Attributes["dry_run"]; ok {
		a.DryRun, d = literalBool(at)
		diags = append(diags, d...)
	}
	if at, ok := content.Attributes["propagation"]; ok {
		a.Propagation, d = keyword(at)
		diags = append(diags, d...)
		if a.Propagation != "Foreground" && a.Propagation != "Background" && a.Propagation != "Orphan" {
			diags = append(diags, attrDiag(at, "Unknown propagation", "propagation is Foreground, Background or Orphan."))
		}
	}
	needsBody := a.Verb == "create" || a.Verb == "update" || a.Verb == "patch" || a.Verb == "apply" || a.Verb == "status"
	if needsBody && a.Body == nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing body",
			Detail: fmt.Sprintf("A %s action needs a body: the object or patch to send.", a.Verb), Subject: b.DefRange.Ptr()})
	}
	if !needsBody && a.Body != nil && a.Verb != "" {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Unexpected body",
			Detail: fmt.Sprintf("A %s action sends no body.", a.Verb), Subject: a.Body.Range.Ptr()})
	}
	return a, diags
}

// --- small decoding helpers -------------------------------------------------

func (l *loader) optExpr(c *hcl.BodyContent, name string, diags hcl.Diagnostics) (*Expr, hcl.Diagnostics) {
	a, ok := c.Attributes[name]
	if !ok {
		return nil, diags
	}
	e, d := l.src.celExpr(a)
	return e, append(diags, d...)
}

func attrDiag(a *hcl.Attribute, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: a.Expr.Range().Ptr()}
}

func dupDiag(kind, name string, prev, rng hcl.Range) *hcl.Diagnostic {
	return &hcl.Diagnostic{
		Severity: hcl.DiagError,
		Summary:  "Duplicate " + kind,
		Detail:   fmt.Sprintf("A %s named %q was already declared at %s.", kind, name, prev.String()),
		Subject:  rng.Ptr(),
	}
}

func checkName(kind, name string, rng hcl.Range) hcl.Diagnostics {
	if !hclsyntax.ValidIdentifier(name) || strings.Contains(name, "-") && (kind == "param" || kind == "observe" || kind == "let" || kind == "function") {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid " + kind + " name",
			Detail:   fmt.Sprintf("%q is not a valid name: use letters, digits and underscores, starting with a letter.", name),
			Subject:  rng.Ptr(),
		}}
	}
	if (kind == "param" || kind == "observe" || kind == "let") && contains(ReservedNames, name) {
		return hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Reserved name",
			Detail:   fmt.Sprintf("%q is a built-in variable of the rule language; choose another name.", name),
			Subject:  rng.Ptr(),
		}}
	}
	return nil
}

// ReservedNames are the built-in CEL variables; no param, observation or
// let may take them.
var ReservedNames = []string{"self", "status", "now", "param", "last", "result", "value", "item", "index"}

func keyword(a *hcl.Attribute) (string, hcl.Diagnostics) {
	return keywordExpr(a.Expr, a.Name)
}

// keywordExpr reads a name written either as a bare word or as a quoted
// literal string.
func keywordExpr(e hcl.Expression, what string) (string, hcl.Diagnostics) {
	if kw := hcl.ExprAsKeyword(e); kw != "" {
		return kw, nil
	}
	v, d := e.Value(nil)
	if d.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid " + what,
			Detail:   "Expected a name, written as a bare word (Applied) or a quoted string (\"Applied\").",
			Subject:  e.Range().Ptr(),
		}}
	}
	return v.AsString(), nil
}

func mapKey(e hcl.Expression) (string, hcl.Diagnostics) {
	v, d := e.Value(nil)
	if d.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid key",
			Detail: "Keys are bare names or quoted strings.", Subject: e.Range().Ptr()}}
	}
	return v.AsString(), nil
}

func literalString(a *hcl.Attribute) (string, hcl.Diagnostics) {
	v, d := a.Expr.Value(nil)
	if d.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		return "", hcl.Diagnostics{attrDiag(a, "Invalid "+a.Name, "Expected a literal string.")}
	}
	return v.AsString(), nil
}

func literalBool(a *hcl.Attribute) (bool, hcl.Diagnostics) {
	v, d := a.Expr.Value(nil)
	if d.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.Bool {
		return false, hcl.Diagnostics{attrDiag(a, "Invalid "+a.Name, "Expected true or false.")}
	}
	return v.True(), nil
}

func literalInt(a *hcl.Attribute) (int, hcl.Diagnostics) {
	v, d := a.Expr.Value(nil)
	if d.HasErrors() || v.IsNull() || !v.IsKnown() || v.Type() != cty.Number || !v.AsBigFloat().IsInt() {
		return 0, hcl.Diagnostics{attrDiag(a, "Invalid "+a.Name, "Expected a whole number.")}
	}
	n, _ := v.AsBigFloat().Int64()
	if n > 1<<31 || n < -(1<<31) {
		return 0, hcl.Diagnostics{attrDiag(a, "Invalid "+a.Name, "The number is out of range.")}
	}
	return int(n), nil
}

func ctyToGo(v cty.Value, a *hcl.Attribute) (any, hcl.Diagnostics) {
	switch {
	case v.IsNull() || !v.IsKnown():
		return nil, hcl.Diagnostics{attrDiag(a, "Invalid default", "A param default is a literal value.")}
	case v.Type() == cty.String:
		return v.AsString(), nil
	case v.Type() == cty.Bool:
		return v.True(), nil
	case v.Type() == cty.Number:
		bf := v.AsBigFloat()
		if !bf.IsInt() {
			return nil, hcl.Diagnostics{attrDiag(a, "Invalid default", "A number default is a whole number.")}
		}
		n, _ := bf.Int64()
		return n, nil
	}
	return nil, hcl.Diagnostics{attrDiag(a, "Invalid default", "A param default is a string, number or bool literal.")}
}

// defaultType is the type of a param declared without one: its default's,
// bool, int or string. A string that reads as a duration could be either,
// so it needs its type said.
func defaultType(v any, a *hcl.Attribute) (string, hcl.Diagnostics) {
	switch v := v.(type) {
	case bool:
		return "bool", nil
	case int64:
		return "int", nil
	case string:
		if _, err := time.ParseDuration(v); err == nil {
			return "", hcl.Diagnostics{attrDiag(a, "Param type needed", fmt.Sprintf("%q could be a duration or a string: say which with type = duration or type = string.", v))}
		}
		return "string", nil
	}
	return "", nil
}

func validFieldPath(p string) bool {
	if p == "" {
		return false
	}
	for _, seg := range strings.Split(p, ".") {
		if seg == "" || strings.ContainsAny(seg, " \t\n\"'[]") {
			return false
		}
	}
	return true
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// LoadRef loads a rule file named by path, or, when no such file exists, the
// shipped policy of that name (see package policies).
func LoadRef(ref string) (*File, hcl.Diagnostics) {
	if _, err := os.Stat(ref); err != nil {
		if src, name, ok := policies.Source(ref); ok {
			return Parse(src, name)
		}
	}
	return LoadFile(ref)
}

// eventAction decodes an event action: what the Event says (type, reason,
// message), whom it is about (regarding, related), and how it is named.
func (l *loader) eventAction(a *Action, b *hcl.Block, content *hcl.BodyContent) hcl.Diagnostics {
	var diags hcl.Diagnostics
	var d hcl.Diagnostics
	ev := &EventSpec{Type: "Normal", Action: a.Name, Controller: l.eventController, Instance: "statecraft"}
	a.Event, a.BestEffort = ev, true
	for _, name := range []string{"target", "body", "dry_run", "identity", "expect", "propagation"} {
		if at, ok := content.Attributes[name]; ok {
			diags = append(diags, attrDiag(at, "Unexpected attribute", fmt.Sprintf("An event action records an Event from its type, reason, message and regarding; it takes no %s.", name)))
		}
	}
	if at, ok := content.Attributes["type"]; ok {
		ev.Type, d = keyword(at)
		diags = append(diags, d...)
		if ev.Type != "Normal" && ev.Type != "Warning" {
			diags = append(diags, attrDiag(at, "Unknown event type", "An Event's type is Normal or Warning."))
		}
	}
	if at, ok := content.Attributes["reason"]; ok {
		ev.Reason, d = keyword(at)
		diags = append(diags, d...)
	} else {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing reason",
			Detail: "An event action needs a reason: a name such as AutoPatchHalted.", Subject: b.DefRange.Ptr()})
	}
	if at, ok := content.Attributes["action"]; ok {
		ev.Action, d = keyword(at)
		diags = append(diags, d...)
	}
	for _, f := range []struct {
		name string
		dst  *string
	}{{"controller", &ev.Controller}, {"instance", &ev.Instance}} {
		if at, ok := content.Attributes[f.name]; ok {
			*f.dst, d = keyword(at)
			diags = append(diags, d...)
		}
	}
	if at, ok := content.Attributes["best_effort"]; ok {
		a.BestEffort, d = literalBool(at)
		diags = append(diags, d...)
	}
	ev.Note, diags = l.optExpr(content, "message", diags)
	if ev.Note == nil {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing message",
			Detail: "An event action needs a message: a CEL string, the Event's note.", Subject: b.DefRange.Ptr()})
	}
	ev.Regarding, diags = l.optExpr(content, "regarding", diags)
	ev.Related, diags = l.optExpr(content, "related", diags)
	ev.Name, diags = l.optExpr(content, "name", diags)
	a.ForEach, diags = l.optExpr(content, "for_each", diags)
	a.When, diags = l.optExpr(content, "when", diags)
	return diags
}
