package scenario

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"
	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/library"
)

// Scenario is one decoded scenario file.
type Scenario struct {
	Name  string
	File  string // path of the scenario file
	Dir   string // folder the scenario's relative paths start from
	Rules []string
	// Params overrides param defaults of the rule files, by machine then
	// param name: a tuned policy tried without editing it.
	Params map[string]map[string]any
	// Staging is applied before anything else happens.
	Staging   *Staging
	Start     time.Time
	RunFor    time.Duration
	Seed      uint64
	Objects   []map[string]any
	Events    []*Event
	Expects   []*Expect
	DeclRange hcl.Range

	// Recorded stages Objects as a recording of a real cluster holds them:
	// with the uid, creationTimestamp and generation the server gave them
	// (see Restorer), so that owner references and observed generations
	// still hold.
	Recorded bool
	// Resume, when set, says how the engine's work stood at the start, for
	// a recording that starts in the middle of a run: each listed object
	// is first reconciled at its Wake (none: only when something changes)
	// instead of at the start.
	Resume []Resume
	// ExpectError, when set, makes the scenario a check that its rule files
	// are refused: it passes only when loading and compiling them with its
	// param overrides fails with an error whose summary or detail contains
	// this text (ExpectedError). Nothing runs and there is no golden trace.
	ExpectError      string
	ExpectErrorRange hcl.Range

	// Pinned (schedule = "events") makes the engine reconcile only when an
	// event says so (Event.Reconcile): never at the start, on a change or
	// at a wake-up. A recording replayed at the times the controller
	// reconciled, to compare its decisions with the recorded ones.
	Pinned bool
}

// Resume is the engine's pending wake-up of one starting object.
type Resume struct {
	Object Target
	Wake   *time.Duration // nil: the object was at rest, waiting for a change
	Range  hcl.Range
}

// Event is something the world does at a time: create, update, patch or
// delete an object. Every repeats it (0: once).
type Event struct {
	At      time.Duration
	Every   time.Duration
	Until   time.Duration // for repeated events; 0: until the end
	As      string        // the identity the world acts as ("" = "scenario")
	Staging *Staging
	Create  []map[string]any
	Delete  []Target
	// Restart stops the engine and starts a new one: pending wake-ups are
	// lost and every driven object is reconciled from its status, as after
	// a real restart's initial list.
	Restart bool
	// Propagation is the deletion propagation policy of Delete
	// ("Background" when empty, "Foreground" or "Orphan").
	Propagation string
	Patch       []PatchEvent
	Range       hcl.Range

	// Reconcile lists objects the engine reconciles at this time: in a
	// scenario whose schedule is "events" (Scenario.Pinned), the only
	// reconciles there are.
	Reconcile []Target
}

// PatchEvent merge-patches one object.
type PatchEvent struct {
	Target Target
	Merge  map[string]any
	// Status, when set, is merge-patched into the status subresource (as
	// the controller that owns the object's status would).
	Status map[string]any
}

// Target names an object as Kind/namespace/name or Kind/name.
type Target struct {
	Kind, Namespace, Name string
	Range                 hcl.Range
}

func (t Target) String() string {
	if t.Namespace == "" {
		return t.Kind + "/" + t.Name
	}
	return t.Kind + "/" + t.Namespace + "/" + t.Name
}

// Expect is a set of assertions at a time.
type Expect struct {
	At     time.Duration
	Object Target
	State  *string
	Reason *string
	Fields []FieldExpect
	Absent bool
	Writes []WriteCount
	Range  hcl.Range
}

// FieldExpect asserts one field by dotted path; a nil Value means absent.
type FieldExpect struct {
	Path  string
	Value any
}

var fileSchema = &hcl.BodySchema{Blocks: []hcl.BlockHeaderSchema{{Type: "scenario", LabelNames: []string{"name"}}}}

var scenarioSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "rules"}, {Name: "start"}, {Name: "run_for"},
		{Name: "seed"}, {Name: "objects"}, {Name: "recorded"}, {Name: "schedule"},
		{Name: "expect_error"},
	},
	Blocks: append([]hcl.BlockHeaderSchema{
		{Type: "rule", LabelNames: []string{"name"}},
		{Type: "at", LabelNames: []string{"time"}},
		{Type: "every", LabelNames: []string{"interval"}},
		{Type: "expect", LabelNames: []string{"time"}},
		{Type: "resume", LabelNames: []string{"object"}},
	}, stagingBlocks...),
}

var resumeSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "wake"}}}

var ruleSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "params"}}}

var eventSchema = &hcl.BodySchema{
	Attributes: append([]hcl.AttributeSchema{{Name: "create"}, {Name: "delete"}, {Name: "from"}, {Name: "until"}, {Name: "as"}, {Name: "propagation"}, {Name: "restart"}, {Name: "reconcile"}}, stagingAttrs...),
	Blocks:     append([]hcl.BlockHeaderSchema{{Type: "patch", LabelNames: []string{"object"}}}, stagingBlocks...),
}

var patchSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{{Name: "merge"}, {Name: "status"}}}

var expectSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "object"}, {Name: "state"}, {Name: "reason"}, {Name: "fields"}, {Name: "absent"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "writes"}, {Type: "reads"}},
}

// DefaultStart is the virtual time a scenario starts at unless it says.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Load reads and decodes a scenario file and the YAML files it names.
func Load(path string) (*Scenario, hcl.Diagnostics) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Cannot read scenario", Detail: err.Error()}}
	}
	return Parse(src, path)
}

// Parse decodes scenario source; relative paths are resolved from the
// folder of filename.
func Parse(src []byte, filename string) (*Scenario, hcl.Diagnostics) {
	f, diags := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	content, d := f.Body.Content(fileSchema)
	diags = append(diags, d...)
	if len(content.Blocks) != 1 {
		if !diags.HasErrors() {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "One scenario per file",
				Detail: "A scenario file holds exactly one scenario block.", Subject: &hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos}})
		}
		return nil, diags
	}
	b := content.Blocks[0]
	s := &Scenario{Name: b.Labels[0], File: filename, Dir: filepath.Dir(filename), Start: DefaultStart, Seed: 1, DeclRange: b.DefRange}
	body, d := b.Body.Content(scenarioSchema)
	diags = append(diags, d...)
	if a, ok := body.Attributes["rules"]; ok {
		s.Rules, d = stringList(a.Expr)
		diags = append(diags, d...)
	}
	if a, ok := body.Attributes["start"]; ok {
		str, d := stringValue(a.Expr)
		diags = append(diags, d...)
		t, err := time.Parse(time.RFC3339, str)
		if err != nil && !d.HasErrors() {
			diags = append(diags, exprDiag(a.Expr, "Invalid start", "start is an RFC 3339 time such as \"2026-01-01T00:00:00Z\"."))
		}
		s.Start = t.UTC()
	}
	if a, ok := body.Attributes["run_for"]; ok {
		s.RunFor, d = durationValue(a.Expr)
		diags = append(diags, d...)
	}
	if a, ok := body.Attributes["expect_error"]; ok {
		s.ExpectError, d = stringValue(a.Expr)
		diags = append(diags, d...)
		s.ExpectErrorRange = a.Range
		if s.ExpectError == "" && !d.HasErrors() {
			diags = append(diags, exprDiag(a.Expr, "Empty expect_error", "expect_error is a part of the summary or detail of the error the rule files must be refused with."))
		}
	}
	if a, ok := body.Attributes["seed"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() && v.Type() == cty.Number {
			n, _ := v.AsBigFloat().Uint64()
			s.Seed = n
		}
	}
	if a, ok := body.Attributes["objects"]; ok {
		files, d := stringList(a.Expr)
		diags = append(diags, d...)
		for _, f := range files {
			objs, err := readYAML(filepath.Join(s.Dir, f))
			if err != nil {
				diags = append(diags, exprDiag(a.Expr, "Cannot read objects", err.Error()))
				continue
			}
			s.Objects = append(s.Objects, objs...)
		}
	}
	if a, ok := body.Attributes["recorded"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() && v.Type() != cty.Bool {
			diags = append(diags, exprDiag(a.Expr, "Expected a bool", "recorded is true or false."))
		}
		s.Recorded = !d.HasErrors() && v.Type() == cty.Bool && v.True()
	}
	if a, ok := body.Attributes["schedule"]; ok {
		v, d := stringValue(a.Expr)
		diags = append(diags, d...)
		switch v {
		case "simulator":
		case "events":
			s.Pinned = true
		default:
			if !d.HasErrors() {
				diags = append(diags, exprDiag(a.Expr, "Invalid schedule", "schedule is \"simulator\" (the default: the engine reconciles at the start, on changes and at its wake-ups) or \"events\" (only where an at block's reconcile says)."))
			}
		}
	}
	st, d := decodeStaging(&hcl.BodyContent{Blocks: body.Blocks})
	diags = append(diags, d...)
	s.Staging = st
	for _, blk := range body.Blocks {
		switch blk.Type {
		case "rule":
			s.Rules = append(s.Rules, blk.Labels[0])
			rc, d := blk.Body.Content(ruleSchema)
			diags = append(diags, d...)
			if a, ok := rc.Attributes["params"]; ok {
				m, d := objectValue(a.Expr)
				diags = append(diags, d...)
				if s.Params == nil {
					s.Params = map[string]map[string]any{}
				}
				s.Params[blk.Labels[0]] = m
			}
		case "at", "every":
			e, d := s.event(blk)
			diags = append(diags, d...)
			if e != nil {
				s.Events = append(s.Events, e)
			}
		case "expect":
			e, d := expect(blk)
			diags = append(diags, d...)
			if e != nil {
				s.Expects = append(s.Expects, e)
			}
		case "resume":
			rs, d := resume(blk)
			diags = append(diags, d...)
			if rs != nil {
				s.Resume = append(s.Resume, *rs)
			}
		}
	}
	_, hasRunFor := body.Attributes["run_for"]
	switch {
	case s.ExpectError == "" && !hasRunFor && !diags.HasErrors():
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Missing required argument",
			Detail: "The argument \"run_for\" is required (only a scenario with expect_error, which runs nothing, goes without).", Subject: b.DefRange.Ptr()})
	case s.ExpectError != "" && (hasRunFor || len(s.Events) > 0 || len(s.Expects) > 0 || len(s.Objects) > 0 || len(s.Resume) > 0 || s.Stages()):
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Nothing runs",
			Detail: "A scenario with expect_error only loads and compiles its rule files, which must be refused: run_for, objects, staging, at, every, expect and resume blocks would never be used.", Subject: s.ExpectErrorRange.Ptr()})
	}
	if len(s.Rules) == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "No rules",
			Detail: "A scenario names the rule files it runs, with rules = [...] or rule blocks.", Subject: b.DefRange.Ptr()})
	}
	return s, diags
}

func (s *Scenario) event(b *hcl.Block) (*Event, hcl.Diagnostics) {
	e := &Event{Range: b.DefRange}
	var diags hcl.Diagnostics
	dur, err := parseDuration(b.Labels[0])
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid time", Detail: err.Error(), Subject: b.LabelRanges[0].Ptr()}}
	}
	if b.Type == "at" {
		e.At = dur
	} else {
		if dur <= 0 {
			return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid interval", Detail: "An every block repeats after a positive duration.", Subject: b.LabelRanges[0].Ptr()}}
		}
		e.Every, e.At = dur, dur
	}
	body, d := b.Body.Content(eventSchema)
	diags = append(diags, d...)
	if a, ok := body.Attributes["from"]; ok && b.Type == "every" {
		e.At, d = durationValue(a.Expr)
		diags = append(diags, d...)
	}
	if a, ok := body.Attributes["until"]; ok && b.Type == "every" {
		e.Until, d = durationValue(a.Expr)
		diags = append(diags, d...)
	}
	if a, ok := body.Attributes["create"]; ok {
		files, d := stringList(a.Expr)
		diags = append(diags, d...)
		for _, f := range files {
			objs, err := readYAML(filepath.Join(s.Dir, f))
			if err != nil {
				diags = append(diags, exprDiag(a.Expr, "Cannot read objects", err.Error()))
				continue
			}
			e.Create = append(e.Create, objs...)
		}
	}
	if a, ok := body.Attributes["delete"]; ok {
		refs, d := stringList(a.Expr)
		diags = append(diags, d...)
		for _, r := range refs {
			t, err := parseTarget(r)
			if err != nil {
				diags = append(diags, exprDiag(a.Expr, "Invalid object", err.Error()))
				continue
			}
			t.Range = a.Expr.Range()
			e.Delete = append(e.Delete, t)
		}
	}
	if a, ok := body.Attributes["reconcile"]; ok {
		refs, d := stringList(a.Expr)
		diags = append(diags, d...)
		for _, r := range refs {
			t, err := parseTarget(r)
			if err != nil {
				diags = append(diags, exprDiag(a.Expr, "Invalid object", err.Error()))
				continue
			}
			t.Range = a.Expr.Range()
			e.Reconcile = append(e.Reconcile, t)
		}
	}
	if a, ok := body.Attributes["as"]; ok {
		e.As, d = stringValue(a.Expr)
		diags = append(diags, d...)
	}
	if a, ok := body.Attributes["propagation"]; ok {
		e.Propagation, d = stringValue(a.Expr)
		diags = append(diags, d...)
		if p := e.Propagation; p != "Background" && p != "Foreground" && p != "Orphan" {
			diags = append(diags, exprDiag(a.Expr, "Invalid propagation", "A deletion propagation policy is Background, Foreground or Orphan."))
		}
	}
	if a, ok := body.Attributes["restart"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		e.Restart = !d.HasErrors() && v.Type() == cty.Bool && v.True()
	}
	e.Staging, d = decodeStaging(body)
	diags = append(diags, d...)
	for _, pb := range body.Blocks {
		if pb.Type != "patch" {
			continue
		}
		t, err := parseTarget(pb.Labels[0])
		if err != nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid object", Detail: err.Error(), Subject: pb.LabelRanges[0].Ptr()})
			continue
		}
		t.Range = pb.LabelRanges[0]
		pc, d := pb.Body.Content(patchSchema)
		diags = append(diags, d...)
		pe := PatchEvent{Target: t}
		if a, ok := pc.Attributes["merge"]; ok {
			m, d := objectValue(a.Expr)
			diags = append(diags, d...)
			pe.Merge = m
		}
		if a, ok := pc.Attributes["status"]; ok {
			m, d := objectValue(a.Expr)
			diags = append(diags, d...)
			pe.Status = m
		}
		if pe.Merge == nil && pe.Status == nil {
			diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty patch",
				Detail: "A patch block sets merge, status or both.", Subject: pb.DefRange.Ptr()})
			continue
		}
		e.Patch = append(e.Patch, pe)
	}
	return e, diags
}

func resume(b *hcl.Block) (*Resume, hcl.Diagnostics) {
	t, err := parseTarget(b.Labels[0])
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid object", Detail: err.Error(), Subject: b.LabelRanges[0].Ptr()}}
	}
	t.Range = b.LabelRanges[0]
	rs := &Resume{Object: t, Range: b.DefRange}
	body, diags := b.Body.Content(resumeSchema)
	if a, ok := body.Attributes["wake"]; ok {
		w, d := durationValue(a.Expr)
		diags = append(diags, d...)
		rs.Wake = &w
	}
	return rs, diags
}

func expect(b *hcl.Block) (*Expect, hcl.Diagnostics) {
	dur, err := parseDuration(b.Labels[0])
	if err != nil {
		return nil, hcl.Diagnostics{{Severity: hcl.DiagError, Summary: "Invalid time", Detail: err.Error(), Subject: b.LabelRanges[0].Ptr()}}
	}
	e := &Expect{At: dur, Range: b.DefRange}
	body, diags := b.Body.Content(expectSchema)
	for _, wb := range body.Blocks {
		w, d := decodeWrites(wb)
		diags = append(diags, d...)
		e.Writes = append(e.Writes, w)
	}
	if _, ok := body.Attributes["object"]; !ok && len(e.Writes) == 0 {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Nothing to expect",
			Detail: "An expect block names an object (with state, reason, fields or absent) or counts writes or reads.", Subject: b.DefRange.Ptr()})
	}
	if a, ok := body.Attributes["object"]; ok {
		s, d := stringValue(a.Expr)
		diags = append(diags, d...)
		t, err := parseTarget(s)
		if err != nil && !d.HasErrors() {
			diags = append(diags, exprDiag(a.Expr, "Invalid object", err.Error()))
		}
		t.Range = a.Expr.Range()
		e.Object = t
	}
	for _, name := range []string{"state", "reason"} {
		if a, ok := body.Attributes[name]; ok {
			s, d := stringValue(a.Expr)
			diags = append(diags, d...)
			if name == "state" {
				e.State = &s
			} else {
				e.Reason = &s
			}
		}
	}
	if a, ok := body.Attributes["absent"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		e.Absent = !d.HasErrors() && v.Type() == cty.Bool && v.True()
	}
	if a, ok := body.Attributes["fields"]; ok {
		pairs, d := hcl.ExprMap(a.Expr)
		diags = append(diags, d...)
		for _, kv := range pairs {
			k, d := stringValue(kv.Key)
			diags = append(diags, d...)
			v, d := kv.Value.Value(nil)
			diags = append(diags, d...)
			if d.HasErrors() {
				continue
			}
			g, err := ctyGo(v)
			if err != nil {
				diags = append(diags, exprDiag(kv.Value, "Invalid value", err.Error()))
				continue
			}
			e.Fields = append(e.Fields, FieldExpect{Path: k, Value: g})
		}
	}
	return e, diags
}

func parseTarget(s string) (Target, error) {
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 2:
		return Target{Kind: parts[0], Name: parts[1]}, nil
	case 3:
		return Target{Kind: parts[0], Namespace: parts[1], Name: parts[2]}, nil
	}
	return Target{}, fmt.Errorf("%q: name an object as Kind/namespace/name or Kind/name", s)
}

// parseDuration accepts Go durations plus a day unit ("7d", "1d12h").
func parseDuration(s string) (time.Duration, error) {
	var days time.Duration
	if i := strings.Index(s, "d"); i > 0 {
		var n int
		if _, err := fmt.Sscanf(s[:i], "%d", &n); err != nil {
			return 0, fmt.Errorf("%q is not a duration such as \"12m\", \"1h30m\" or \"7d\"", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		s = s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as \"12m\", \"1h30m\" or \"7d\"", s)
	}
	return days + d, nil
}

func readYAML(path string) ([]map[string]any, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for i, doc := range bytes.Split(b, []byte("\n---")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", path, i+1, err)
		}
		v, err := library.DecodeJSON(js)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %v", path, i+1, err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			if v == nil {
				continue
			}
			return nil, fmt.Errorf("%s: document %d is not an object", path, i+1)
		}
		out = append(out, m)
	}
	return out, nil
}

func exprDiag(e hcl.Expression, summary, detail string) *hcl.Diagnostic {
	return &hcl.Diagnostic{Severity: hcl.DiagError, Summary: summary, Detail: detail, Subject: e.Range().Ptr()}
}

func stringValue(e hcl.Expression) (string, hcl.Diagnostics) {
	v, d := e.Value(nil)
	if d.HasErrors() {
		return "", d
	}
	if v.IsNull() || v.Type() != cty.String {
		return "", hcl.Diagnostics{exprDiag(e, "Expected a string", "This value must be a quoted string.")}
	}
	return v.AsString(), nil
}

func stringList(e hcl.Expression) ([]string, hcl.Diagnostics) {
	items, d := hcl.ExprList(e)
	if d.HasErrors() {
		s, d2 := stringValue(e)
		if d2.HasErrors() {
			return nil, d
		}
		return []string{s}, nil
	}
	var out []string
	var diags hcl.Diagnostics
	for _, it := range items {
		s, d := stringValue(it)
		diags = append(diags, d...)
		out = append(out, s)
	}
	return out, diags
}

func durationValue(e hcl.Expression) (time.Duration, hcl.Diagnostics) {
	s, d := stringValue(e)
	if d.HasErrors() {
		return 0, d
	}
	dur, err := parseDuration(s)
	if err != nil {
		return 0, hcl.Diagnostics{exprDiag(e, "Invalid duration", err.Error())}
	}
	return dur, nil
}

func objectValue(e hcl.Expression) (map[string]any, hcl.Diagnostics) {
	v, d := e.Value(nil)
	if d.HasErrors() {
		return nil, d
	}
	g, err := ctyGo(v)
	m, ok := g.(map[string]any)
	if err != nil || !ok {
		return nil, hcl.Diagnostics{exprDiag(e, "Expected an object", "This value must be an object, such as { metadata = { labels = { a = \"b\" } } }.")}
	}
	return m, nil
}

// ctyGo converts an HCL value to unstructured JSON.
func ctyGo(v cty.Value) (any, error) {
	if v.IsNull() {
		return nil, nil
	}
	b, err := ctyjson.Marshal(v, v.Type())
	if err != nil {
		return nil, err
	}
	return library.DecodeJSON(b)
}
