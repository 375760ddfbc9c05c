package verify

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"
)

// ScenarioSteps is the counterexample a written scenario plays: the path,
// then one round of the cycle (its steps carry their own times, so a
// second round is a different path; the round ends where it began).
func (f *Finding) ScenarioSteps() []*Step {
	return append(append([]*Step(nil), f.Path...), f.Cycle...)
}

// WriteScenario writes the finding's counterexample as a scenario file (and
// the YAML files it stages) into dir, named NAME.scenario.hcl, and returns
// its path. rules is the rule file reference the scenario loads (a shipped
// name, or a path, made relative to dir when possible).
func WriteScenario(dir, name, rules string, rep *Report, f *Finding) (string, error) {
	if !f.Reproducible {
		return "", fmt.Errorf("the counterexample edits the spec without changing it, which a scenario cannot do")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if _, err := os.Stat(rules); err == nil {
		if abs, err := filepath.Abs(rules); err == nil {
			if absDir, err := filepath.Abs(dir); err == nil {
				if rel, err := filepath.Rel(absDir, abs); err == nil {
					rules = rel
				}
			}
		}
	}
	objFile := name + "-objects.yaml"
	if err := writeYAML(filepath.Join(dir, objFile), rep.Objects); err != nil {
		return "", err
	}
	steps := f.ScenarioSteps()
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by statecraft verify: %s\n", f.Kind)
	for _, l := range wrap(f.Summary, 96) {
		fmt.Fprintf(&b, "# %s\n", l)
	}
	last := steps[len(steps)-1].At
	fmt.Fprintf(&b, "scenario %q {\n", "verify: "+f.Kind+" in "+rep.Machine)
	fmt.Fprintf(&b, "  rules   = [%q]\n", filepath.ToSlash(rules))
	fmt.Fprintf(&b, "  run_for = %q\n", dur(last+time.Second))
	if !rep.Start.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		fmt.Fprintf(&b, "  start   = %q\n", rep.Start.Format(time.RFC3339))
	}
	fmt.Fprintf(&b, "  objects = [%q]\n", objFile)
	faults := false
	for i, s := range steps {
		ev := s.ev
		var body []string
		if faults {
			body = append(body, "clear_faults = true")
			faults = false
		}
		switch ev.kind {
		case "drift", "annotate":
			body = append(body, fmt.Sprintf("patch %q {\n      merge = %s\n    }", target(ev.ref.Kind, ev.ref.Namespace, ev.ref.Name), hclValue(ev.patch, "      ")))
		case "delete":
			body = append(body, fmt.Sprintf("delete = [%q]", target(ev.ref.Kind, ev.ref.Namespace, ev.ref.Name)))
		case "create":
			file := fmt.Sprintf("%s-create-%d.yaml", name, i)
			if err := writeYAML(filepath.Join(dir, file), []map[string]any{ev.obj}); err != nil {
				return "", err
			}
			body = append(body, fmt.Sprintf("create = [%q]", file))
		}
		var fb []string
		if ev.fault != nil {
			ft := ev.fault
			fb = append(fb, fmt.Sprintf("fault {\n      verb        = %q\n      api_version = %q\n      kind        = %q\n      at_calls    = [%d]\n      outcome     = %q\n    }",
				ft.verb, ft.apiVersion, ft.kind, ft.nth, ft.outcome))
			faults = true
		}
		fmt.Fprintf(&b, "\n  # %s %s\n", stamp(s.At), s.Event)
		// The fault is staged after the world's own requests of that
		// time, so that it counts only the engine's calls.
		for _, blk := range [][]string{body, fb} {
			if len(blk) > 0 {
				fmt.Fprintf(&b, "  at %q {\n    %s\n  }\n", dur(s.At), strings.Join(blk, "\n    "))
			}
		}
	}
	if st, reason := finalState(steps); st != "" {
		fmt.Fprintf(&b, "\n  expect %q {\n    object = %q\n    state  = %q\n", dur(last), strings.TrimSpace(rep.Object), st)
		if reason != "" {
			fmt.Fprintf(&b, "    reason = %q\n", reason)
		}
		b.WriteString("  }\n")
	}
	b.WriteString("}\n")
	path := filepath.Join(dir, name+".scenario.hcl")
	return path, os.WriteFile(path, []byte(b.String()), 0o644)
}

func target(kind, ns, name string) string {
	if ns == "" {
		return kind + "/" + name
	}
	return kind + "/" + ns + "/" + name
}

// TransitionLines returns the transition lines of steps, in order (the
// lines a reproducing simulation must print).
func TransitionLines(steps []*Step) []string {
	var out []string
	for _, s := range steps {
		for _, l := range s.Lines {
			if strings.Contains(l, " → ") {
				out = append(out, l)
			}
		}
	}
	return out
}

func finalState(steps []*Step) (string, string) {
	ls := TransitionLines(steps)
	if len(ls) == 0 {
		return "", ""
	}
	l := ls[len(ls)-1]
	rest := l[strings.Index(l, " → ")+len(" → "):]
	st := strings.Fields(rest)[0]
	reason := ""
	if i := strings.Index(rest, " reason "); i >= 0 {
		reason = strings.Fields(rest[i+len(" reason "):])[0]
	}
	return st, reason
}

func dur(d time.Duration) string {
	if d%time.Second != 0 {
		return d.String()
	}
	return fmt.Sprintf("%ds", int64(d/time.Second))
}

func writeYAML(path string, objs []map[string]any) error {
	var b strings.Builder
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		y, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		b.Write(y)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// hclValue renders a JSON-like value as an HCL expression.
func hclValue(v any, indent string) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("{\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "%s  %q = %s\n", indent, k, hclValue(x[k], indent+"  "))
		}
		b.WriteString(indent + "}")
		return b.String()
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = hclValue(e, indent)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case string:
		s, _ := json.Marshal(x)
		return strings.ReplaceAll(string(s), "${", "$${")
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func wrap(s string, n int) []string {
	var out []string
	line := ""
	for _, w := range strings.Fields(s) {
		if len(line)+len(w)+1 > n && line != "" {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(out, line)
}
