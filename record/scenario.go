package record

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2/hclwrite"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"github.com/statecraft/statecraft/rules"
)

// Rendered is a recording rendered as a scenario: its source, and the
// object files it names (paths relative to the recording folder).
type Rendered struct {
	Source  []byte
	Objects map[string][]map[string]any
	// Start is the scenario's start: the first kept segment's.
	Start time.Time
	// From is that start as an offset since the recording's start.
	From Offset
}

// WriteScenario renders the recording in dir as recording.scenario.hcl
// and its objects/ folder, replacing what was there.
func WriteScenario(dir string) error {
	rec, err := Load(dir)
	if err != nil {
		return err
	}
	r, err := Render(rec)
	if err != nil {
		return err
	}
	return r.Write(dir)
}

// Write writes the scenario and its object files into dir (which holds,
// or is given, the recording's rules/).
func (r *Rendered) Write(dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, objectsDir)); err != nil {
		return err
	}
	for _, name := range sortedKeys(r.Objects) {
		if err := WriteObjects(filepath.Join(dir, name), r.Objects[name]); err != nil {
			return err
		}
	}
	return writeFileAtomic(filepath.Join(dir, ScenarioFile), r.Source)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// scenarioEvent is one at block of the scenario.
type scenarioEvent struct {
	at   Offset
	body string
}

// Render renders a recording as a scenario: the first kept segment's
// checkpoint (and the objects first seen in it) as its starting objects,
// restored as recorded; the rule files with the recorded params; the
// engine's pending wake-ups at that checkpoint; the denials the engine met
// as RBAC staging; every change by another actor, and each restart of the
// engine, as a timed at block.
func Render(rec *Recording) (*Rendered, error) {
	m := rec.Manifest
	first := m.Segments[0]
	out := &Rendered{Objects: map[string][]map[string]any{}, Start: m.Start.Add(first.At), From: first.At}
	rel := func(at Offset) Offset { return max(0, at-first.At) }

	start := append([]map[string]any(nil), rec.Objects...)
	var events []scenarioEvent
	active := map[Denial]bool{}
	for _, d := range first.Denials {
		active[d] = true
	}
	var startDenials []Denial
	for _, d := range first.Denials {
		startDenials = append(startDenials, d)
	}
	restarts := map[int]bool{}
	for _, s := range m.Segments[1:] {
		if s.Restart {
			restarts[s.N] = true
		}
	}
	creates := 0
	objFile := func(obj map[string]any) string {
		creates++
		name := filepath.Join(objectsDir, fmt.Sprintf("%06d.yaml", creates))
		out.Objects[name] = []map[string]any{forCreate(obj)}
		return name
	}
	segIdx := 0
	emitRestarts := func(upTo Offset) {
		for segIdx+1 < len(m.Segments) && m.Segments[segIdx+1].At <= upTo {
			segIdx++
			if s := m.Segments[segIdx]; s.Restart {
				events = append(events, scenarioEvent{rel(s.At), "    restart = true\n"})
			}
		}
	}
	for _, c := range rec.World {
		// A restart comes after what changed while no engine ran, which
		// is logged at its time.
		emitRestarts(c.At - 1)
		at := rel(c.At)
		switch c.Op {
		case "seen":
			if c.At < segmentEnd(m, 0) {
				start = append(start, c.Object)
				continue
			}
			events = append(events, scenarioEvent{at, fmt.Sprintf("    create = [%q]\n", objFile(c.Object))})
		case "create":
			if c.By == "other" {
				events = append(events, scenarioEvent{at, fmt.Sprintf("    create = [%q]\n", objFile(c.Object))})
			}
		case "update":
			if c.By != "other" {
				continue
			}
			body, err := patchBlock(*c.Ref, c.Patch)
			if err != nil {
				return nil, err
			}
			if body != "" {
				events = append(events, scenarioEvent{at, body})
			}
		case "delete":
			if c.By == "other" {
				events = append(events, scenarioEvent{at, fmt.Sprintf("    delete = [%q]\n", c.Ref.String())})
			}
		case "deny":
			d := *c.Denial
			if active[d] {
				continue
			}
			active[d] = true
			if c.At <= first.At {
				startDenials = append(startDenials, d)
				continue
			}
			events = append(events, scenarioEvent{at, denyBlock(d, "    ")})
		case "allow":
			d := *c.Denial
			if !active[d] {
				continue
			}
			delete(active, d)
			if c.At <= first.At {
				startDenials = remove(startDenials, d)
				continue
			}
			body := "    allow_all = true\n"
			for _, rest := range sortedDenials(active) {
				body += denyBlock(rest, "    ")
			}
			events = append(events, scenarioEvent{at, body})
		}
	}
	emitRestarts(1 << 62)
	sort.SliceStable(events, func(i, j int) bool { return events[i].at < events[j].at })
	out.Objects[filepath.Join(objectsDir, "start.yaml")] = start

	var b strings.Builder
	fmt.Fprintf(&b, "# A recording of %s", m.Server)
	if m.Context != "" {
		fmt.Fprintf(&b, " (context %s)", m.Context)
	}
	fmt.Fprintf(&b, ", from %s to %s,\n", out.Start.Format(time.RFC3339Nano), m.End.Format(time.RFC3339Nano))
	b.WriteString("# rendered by statecraft record from its segments (spec/recording.md): do not edit,\n")
	b.WriteString("# it is written again. The engine's own decisions are in segments/*.decisions.jsonl;\n")
	b.WriteString("# statecraft replay compares them with this scenario's.\n")
	if m.Dropped > 0 {
		fmt.Fprintf(&b, "# The %d oldest segments were rotated away: it starts at segment %d's checkpoint.\n", m.Dropped, first.N)
	}
	b.WriteString("scenario \"recording\" {\n")
	fmt.Fprintf(&b, "  start    = %q\n", out.Start.UTC().Format(time.RFC3339Nano))
	fmt.Fprintf(&b, "  run_for  = %q\n", durLabel(max(m.End.Sub(out.Start), 0)+time.Millisecond))
	b.WriteString("  recorded = true\n")
	fmt.Fprintf(&b, "  objects  = [%q]\n", filepath.Join(objectsDir, "start.yaml"))
	params, err := ruleParams(rec)
	if err != nil {
		return nil, err
	}
	for _, rf := range m.Rules {
		b.WriteString("\n")
		if p := params[rf.File]; p != "" {
			fmt.Fprintf(&b, "  rule %q {\n    params = %s\n  }\n", rf.File, p)
		} else {
			fmt.Fprintf(&b, "  rule %q {}\n", rf.File)
		}
	}
	if rec.Resume != nil && len(rec.Resume.Objects) > 0 {
		b.WriteString("\n  # The engine's pending wake-ups at the checkpoint this starts from.\n")
		for _, ro := range rec.Resume.Objects {
			if ro.Wake == nil {
				fmt.Fprintf(&b, "  resume %q {}\n", ro.Ref.String())
			} else {
				fmt.Fprintf(&b, "  resume %q { wake = %q }\n", ro.Ref.String(), durLabel(rel(*ro.Wake)))
			}
		}
	}
	if len(startDenials) > 0 {
		b.WriteString("\n  # Requests the API server refused the engine, from the start.\n")
		for _, d := range sortedDenialList(startDenials) {
			b.WriteString(denyBlock(d, "  "))
		}
	}
	for _, e := range events {
		fmt.Fprintf(&b, "\n  at %q {\n%s  }\n", durLabel(e.at), e.body)
	}
	b.WriteString("}\n")
	formatted := hclwrite.Format([]byte(b.String()))
	out.Source = formatted
	return out, nil
}

// segmentEnd is when segment i ends (the next one's start, or the end).
func segmentEnd(m Manifest, i int) Offset {
	if i+1 < len(m.Segments) {
		return m.Segments[i+1].At
	}
	return m.End.Sub(m.Start)
}

func remove(ds []Denial, d Denial) []Denial {
	var out []Denial
	for _, x := range ds {
		if x != d {
			out = append(out, x)
		}
	}
	return out
}

func sortedDenials(m map[Denial]bool) []Denial {
	var out []Denial
	for d := range m {
		out = append(out, d)
	}
	return sortedDenialList(out)
}

func sortedDenialList(ds []Denial) []Denial {
	out := append([]Denial(nil), ds...)
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		return a.Identity+"\x00"+a.Verb+"\x00"+a.APIVersion+"\x00"+a.Kind < b.Identity+"\x00"+b.Verb+"\x00"+b.APIVersion+"\x00"+b.Kind
	})
	return out
}

func denyBlock(d Denial, indent string) string {
	return fmt.Sprintf("%sdeny {\n%s  identity    = %q\n%s  verb        = %q\n%s  api_version = %q\n%s  kind        = %q\n%s}\n",
		indent, indent, d.Identity, indent, d.Verb, indent, d.APIVersion, indent, d.Kind, indent)
}

// forCreate returns an object as another actor created it: without what
// the server sets.
func forCreate(obj map[string]any) map[string]any { return withoutServerFields(obj) }

// patchBlock renders another actor's change to ref as a scenario patch
// block: the status through the status subresource, the rest as a merge
// patch.
func patchBlock(ref Ref, patch map[string]any) (string, error) {
	merge := map[string]any{}
	var status any
	for k, v := range patch {
		if k == "status" {
			status = v
			continue
		}
		merge[k] = v
	}
	var b strings.Builder
	fmt.Fprintf(&b, "    patch %q {\n", ref.String())
	if len(merge) > 0 {
		v, err := hclValue(merge)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "      merge = %s\n", v)
	}
	if sm, ok := status.(map[string]any); ok && len(sm) > 0 {
		v, err := hclValue(sm)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "      status = %s\n", v)
	} else if status == nil && hasKey(patch, "status") {
		fmt.Fprintf(&b, "      status = {}\n")
	}
	if len(merge) == 0 && status == nil && !hasKey(patch, "status") {
		return "", nil
	}
	b.WriteString("    }\n")
	return b.String(), nil
}

func hasKey(m map[string]any, k string) bool {
	_, ok := m[k]
	return ok
}

// hclValue renders a JSON value as an HCL expression (strings escaped
// for HCL's templates, keys quoted where they must be).
func hclValue(v any) (string, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	ty, err := ctyjson.ImpliedType(data)
	if err != nil {
		return "", err
	}
	cv, err := ctyjson.Unmarshal(data, ty)
	if err != nil {
		return "", err
	}
	return string(hclwrite.TokensForValue(cv).Bytes()), nil
}

// durLabel renders an offset as a scenario time: days, then Go's
// duration ("1d2h3m4.5s", "250ms", "0s").
func durLabel(d time.Duration) string {
	days := d / (24 * time.Hour)
	rest := d - days*24*time.Hour
	if days == 0 {
		return rest.String()
	}
	if rest == 0 {
		return strconv.FormatInt(int64(days), 10) + "d"
	}
	return strconv.FormatInt(int64(days), 10) + "d" + rest.String()
}

// ruleParams renders the recorded --param values as each rule file's
// params object, typed as the params are declared.
func ruleParams(rec *Recording) (map[string]string, error) {
	byFile := map[string]map[string]any{}
	for _, flag := range rec.Manifest.Params {
		key, value, _ := strings.Cut(flag, "=")
		machine, name, _ := strings.Cut(key, ".")
		var file string
		for _, rf := range rec.Manifest.Rules {
			for _, mm := range rf.Machines {
				if mm == machine {
					file = rf.File
				}
			}
		}
		if file == "" {
			return nil, fmt.Errorf("%s: --param %s: no recorded rule file holds machine %s", filepath.Join(rec.Dir, ManifestFile), flag, machine)
		}
		f, diags := rules.LoadRef(filepath.Join(rec.Dir, file))
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s: %s", file, diags.Error())
		}
		var typ string
		for _, mm := range f.Machines {
			if mm.Name != machine {
				continue
			}
			for _, p := range mm.Params {
				if p.Name == name {
					typ = p.Type
				}
			}
		}
		var v any = value
		switch typ {
		case "":
			return nil, fmt.Errorf("%s: --param %s: machine %s has no param %s", filepath.Join(rec.Dir, ManifestFile), flag, machine, name)
		case "bool":
			b, err := strconv.ParseBool(value)
			if err != nil {
				return nil, fmt.Errorf("--param %s: want true or false", flag)
			}
			v = b
		case "int":
			n, err := strconv.ParseInt(value, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("--param %s: want an integer", flag)
			}
			v = n
		}
		if byFile[file] == nil {
			byFile[file] = map[string]any{}
		}
		byFile[file][name] = v
	}
	out := map[string]string{}
	for file, ps := range byFile {
		s, err := hclValue(ps)
		if err != nil {
			return nil, err
		}
		out[file] = s
	}
	return out, nil
}
