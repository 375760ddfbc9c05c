package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/rules/policies"
	"github.com/statecraft/statecraft/scenario"
	"github.com/statecraft/statecraft/textdiff"
)

// ruleVersion is one side of a diff: rule files read once and parsed again
// for every use (scenario param overrides change a parsed File).
type ruleVersion struct {
	label string
	srcs  []ruleSrc
	files []*rules.File
	byM   map[string]int // machine name -> index into srcs
}

type ruleSrc struct {
	name string
	src  []byte
}

func loadVersion(path string) (*ruleVersion, hcl.Diagnostics) {
	v := &ruleVersion{label: path, byM: map[string]int{}}
	var names []string
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".hcl") && !strings.HasSuffix(p, scenario.Ext) {
				names = append(names, p)
			}
			return nil
		})
		sort.Strings(names)
	} else {
		names = []string{path}
	}
	var diags hcl.Diagnostics
	for _, n := range names {
		f, d := rules.LoadRef(n)
		diags = append(diags, d...)
		if f == nil {
			continue
		}
		src, err := os.ReadFile(n)
		if err != nil { // a shipped policy by name
			src, _, _ = policies.Source(n)
		}
		v.srcs = append(v.srcs, ruleSrc{name: f.Filename, src: src})
		v.files = append(v.files, f)
		for _, m := range f.Machines {
			v.byM[m.Name] = len(v.srcs) - 1
		}
	}
	return v, diags
}

// replacer swaps every rule file a scenario loads that holds a machine of
// this version for this version's file.
func (v *ruleVersion) replacer() scenario.Replacer {
	return func(_ string, loaded *rules.File) (*rules.File, hcl.Diagnostics) {
		for _, m := range loaded.Machines {
			if i, ok := v.byM[m.Name]; ok {
				return rules.Parse(v.srcs[i].src, v.srcs[i].name)
			}
		}
		return nil, nil
	}
}

func (v *ruleVersion) machines() map[string]*rules.Machine {
	out := map[string]*rules.Machine{}
	for _, f := range v.files {
		for _, m := range f.Machines {
			out[m.Name] = m
		}
	}
	return out
}

func diffCmd(stdout, stderr io.Writer) *cobra.Command {
	var format string
	var dirs []string
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Structural and behavioural differences between two versions of rule files; exit 1 when behaviour changed",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" {
				return fmt.Errorf("--format is text or markdown")
			}
			oldV, d1 := loadVersion(args[0])
			newV, d2 := loadVersion(args[1])
			if diags := append(d1, d2...); diags.HasErrors() {
				printDiags(stderr, diags)
				return ExitError{1}
			}
			rep := &diffReport{old: args[0], new: args[1]}
			rep.structural = structuralDiff(oldV.machines(), newV.machines())
			if err := rep.behaviour(cmd.Context(), oldV, newV, dirs); err != nil {
				return err
			}
			if format == "markdown" {
				rep.writeMarkdown(stdout)
			} else {
				rep.writeText(stdout)
			}
			if rep.changed() {
				return ExitError{1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or markdown (for a pull-request comment)")
	cmd.Flags().StringSliceVar(&dirs, "scenarios", []string{"spec/conformance", "examples"}, "folders (or files) of scenarios to run under both versions")
	return cmd
}

// ------------------------------------------------------------ structure

// change is one structural difference.
type change struct {
	machine string
	kind    string // "+", "-", "~"
	what    string // `state "Applied"`
	detail  []string
}

func structuralDiff(oldM, newM map[string]*rules.Machine) []change {
	var out []change
	names := map[string]bool{}
	for n := range oldM {
		names[n] = true
	}
	for n := range newM {
		names[n] = true
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		o, nw := oldM[n], newM[n]
		switch {
		case o == nil:
			out = append(out, change{machine: n, kind: "+", what: "machine " + q(n)})
		case nw == nil:
			out = append(out, change{machine: n, kind: "-", what: "machine " + q(n)})
		default:
			out = append(out, machineDiff(n, o, nw)...)
		}
	}
	return out
}

// element is a named part of a machine rendered as attributes.
type element struct {
	what  string
	attrs [][2]string
}

func elements(m *rules.Machine) []element {
	var out []element
	out = append(out, element{what: "machine settings", attrs: [][2]string{{"state_field", m.StateField}, {"max_steps", fmt.Sprint(m.MaxSteps)}, {"description", m.Description}}})
	for _, r := range m.Resources {
		out = append(out, element{what: "resource " + q(r.APIVersion+" "+r.Kind), attrs: [][2]string{{"scope", r.Scope}, {"schema", r.Schema}}})
	}
	for _, p := range m.Params {
		out = append(out, element{what: "param " + q(p.Name), attrs: [][2]string{{"type", p.Type}, {"default", fmt.Sprint(p.Default)}, {"override", p.Override}, {"valid", ex(p.Valid)}, {"reason", p.Reason}}})
	}
	for _, o := range m.Observes {
		out = append(out, element{what: "observe " + q(o.Name), attrs: [][2]string{{"get", ex(o.Get)}, {"list", ex(o.List)}, {"when", ex(o.When)}}})
	}
	for _, l := range m.Lets {
		out = append(out, element{what: "let " + q(l.Name), attrs: [][2]string{{"value", ex(l.Value)}}})
	}
	for _, s := range m.States {
		out = append(out, element{what: "state " + q(s.Name), attrs: [][2]string{{"initial", fmt.Sprint(s.Initial)}, {"final", fmt.Sprint(s.Final)}, {"outcome", s.Outcome}, {"conditions", lits(s.Conditions)}, {"recheck", ex(s.Recheck)}}})
	}
	for i, t := range m.Transitions {
		a := [][2]string{{"order", fmt.Sprint(i + 1)}, {"from", strings.Join(t.From, ", ")}, {"when", ex(t.When)}}
		for _, ac := range t.Actions {
			p := "do " + q(ac.Name) + " "
			a = append(a, [2]string{p + "verb", ac.Verb}, [2]string{p + "target", ex(ac.Target)}, [2]string{p + "body", ex(ac.Body)},
				[2]string{p + "type", ac.PatchType}, [2]string{p + "dry_run", fmt.Sprint(ac.DryRun)}, [2]string{p + "identity", ex(ac.Identity)},
				[2]string{p + "expect", ex(ac.Expect)}, [2]string{p + "for_each", ex(ac.ForEach)}, [2]string{p + "when", ex(ac.When)}, [2]string{p + "propagation", ac.Propagation})
		}
		if t.Done != nil {
			a = append(a, routeAttrs("success ", t.Done)...)
		}
		seen := map[string]int{}
		for _, r := range t.Routes {
			key := "on " + q(r.Action) + " " + q(r.Outcome)
			seen[key]++
			if seen[key] > 1 {
				key += fmt.Sprintf(" #%d", seen[key])
			}
			a = append(a, routeAttrs(key+" ", r)...)
		}
		out = append(out, element{what: "transition " + q(t.Name), attrs: a})
	}
	return out
}

func routeAttrs(p string, r *rules.Route) [][2]string {
	return [][2]string{{p + "when", ex(r.When)}, {p + "to", r.To}, {p + "reason", r.Reason}, {p + "message", ex(r.Message)},
		{p + "set", sets(r.Set)}, {p + "conditions", lits(r.Conditions)}, {p + "after", ex(r.After)}, {p + "at", ex(r.At)}}
}

func q(s string) string { return fmt.Sprintf("%q", s) }

func ex(e *rules.Expr) string {
	if e == nil {
		return ""
	}
	return oneLine(e.Source)
}

func lits(as []rules.Assignment) string {
	var p []string
	for _, a := range as {
		p = append(p, a.Path+" = "+a.Lit)
	}
	return strings.Join(p, ", ")
}

func sets(as []rules.Assignment) string {
	var p []string
	for _, a := range as {
		p = append(p, a.Path+" = "+ex(a.Value))
	}
	return strings.Join(p, ", ")
}

func reasons(m *rules.Machine) map[string]bool {
	out := map[string]bool{}
	for _, t := range m.Transitions {
		if t.Done != nil && t.Done.Reason != "" {
			out[t.Done.Reason] = true
		}
		for _, r := range t.Routes {
			if r.Reason != "" {
				out[r.Reason] = true
			}
		}
	}
	for _, p := range m.Params {
		if p.Override != "" || p.Valid != nil {
			out[p.Reason] = true
		}
	}
	return out
}

func machineDiff(name string, o, n *rules.Machine) []change {
	var out []change
	oe, ne := elements(o), elements(n)
	index := func(es []element) map[string]element {
		m := map[string]element{}
		for _, e := range es {
			m[e.what] = e
		}
		return m
	}
	oi, ni := index(oe), index(ne)
	for _, e := range oe {
		if _, ok := ni[e.what]; !ok {
			out = append(out, change{machine: name, kind: "-", what: e.what})
		}
	}
	for _, e := range ne {
		old, ok := oi[e.what]
		if !ok {
			out = append(out, change{machine: name, kind: "+", what: e.what})
			continue
		}
		om := map[string]string{}
		for _, a := range old.attrs {
			om[a[0]] = a[1]
		}
		nm := map[string]bool{}
		var det []string
		for _, a := range e.attrs {
			nm[a[0]] = true
			if ov := om[a[0]]; ov != a[1] {
				det = append(det, fmt.Sprintf("%s: %s → %s", a[0], shown(ov), shown(a[1])))
			}
		}
		for _, a := range old.attrs {
			if !nm[a[0]] && a[1] != "" {
				det = append(det, fmt.Sprintf("%s: %s → %s", a[0], shown(a[1]), shown("")))
			}
		}
		if len(det) > 0 {
			out = append(out, change{machine: name, kind: "~", what: e.what, detail: det})
		}
	}
	or, nr := reasons(o), reasons(n)
	for _, r := range sortedKeys(or) {
		if !nr[r] {
			out = append(out, change{machine: name, kind: "-", what: "reason " + r})
		}
	}
	for _, r := range sortedKeys(nr) {
		if !or[r] {
			out = append(out, change{machine: name, kind: "+", what: "reason " + r})
		}
	}
	return out
}

func shown(s string) string {
	if s == "" {
		return "(none)"
	}
	return q(s)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ------------------------------------------------------------ behaviour

type scenarioDiff struct {
	path     string
	oldTrace []scenario.Line
	newTrace []scenario.Line
	oldErr   string
	newErr   string
}

type diffReport struct {
	old, new   string
	structural []change
	run        int // scenarios run under both versions
	unaffected int // scenarios that load none of the machines
	differ     []scenarioDiff
}

func (r *diffReport) changed() bool { return len(r.differ) > 0 }

func (r *diffReport) behaviour(ctx context.Context, oldV, newV *ruleVersion, dirs []string) error {
	if ctx == nil {
		ctx = context.Background()
	}
	var existing []string
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			existing = append(existing, d)
		}
	}
	paths, err := scenario.Find(existing...)
	if err != nil {
		return err
	}
	for _, p := range paths {
		s, diags := scenario.Load(p)
		if diags.HasErrors() {
			continue
		}
		if !touches(s, oldV, newV) {
			r.unaffected++
			continue
		}
		r.run++
		ot, oe := runVersion(ctx, s, oldV)
		s2, _ := scenario.Load(p)
		nt, ne := runVersion(ctx, s2, newV)
		if oe != ne || !bytes.Equal(scenario.RenderTrace(ot), scenario.RenderTrace(nt)) {
			r.differ = append(r.differ, scenarioDiff{path: p, oldTrace: ot, newTrace: nt, oldErr: oe, newErr: ne})
		}
	}
	return nil
}

// touches reports whether a scenario loads a machine of either version.
func touches(s *scenario.Scenario, vs ...*ruleVersion) bool {
	for _, ref := range s.Rules {
		p := ref
		if fp := filepath.Join(s.Dir, ref); fileExistsCLI(fp) {
			p = fp
		}
		f, _ := rules.LoadRef(p)
		if f == nil {
			continue
		}
		for _, m := range f.Machines {
			for _, v := range vs {
				if _, ok := v.byM[m.Name]; ok {
					return true
				}
			}
		}
	}
	return false
}

func fileExistsCLI(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

func runVersion(ctx context.Context, s *scenario.Scenario, v *ruleVersion) ([]scenario.Line, string) {
	ms, diags := scenario.CompileWith(s, v.replacer())
	if diags.HasErrors() {
		var msgs []string
		for _, d := range diags {
			if d.Severity == hcl.DiagError {
				msgs = append(msgs, rules.DiagnosticLine(d))
			}
		}
		return nil, strings.Join(msgs, "; ")
	}
	res, err := scenario.Run(ctx, s, ms, scenario.Options{})
	if err != nil {
		return nil, err.Error()
	}
	return res.Trace, ""
}

func traceStrings(ls []scenario.Line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

func (r *diffReport) structuralByMachine() ([]string, map[string][]change) {
	by := map[string][]change{}
	var order []string
	for _, c := range r.structural {
		if _, ok := by[c.machine]; !ok {
			order = append(order, c.machine)
		}
		by[c.machine] = append(by[c.machine], c)
	}
	return order, by
}

func (r *diffReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "statecraft diff %s %s\n\n", r.old, r.new)
	if len(r.structural) == 0 {
		fmt.Fprintln(w, "structure: no changes")
	} else {
		fmt.Fprintln(w, "structure:")
		order, by := r.structuralByMachine()
		for _, m := range order {
			fmt.Fprintf(w, "  machine %s\n", m)
			for _, c := range by[m] {
				fmt.Fprintf(w, "    %s %s\n", c.kind, c.what)
				for _, d := range c.detail {
					fmt.Fprintf(w, "        %s\n", d)
				}
			}
		}
	}
	fmt.Fprintf(w, "\nbehaviour: %d of %d scenarios differ (%d others load neither version)\n", len(r.differ), r.run, r.unaffected)
	for _, d := range r.differ {
		fmt.Fprintf(w, "\n  %s\n", d.path)
		if d.oldErr != "" || d.newErr != "" {
			fmt.Fprintf(w, "    OLD: %s\n    NEW: %s\n", orOK(d.oldErr), orOK(d.newErr))
			continue
		}
		ops := textdiff.Hunks(textdiff.Align(traceStrings(d.oldTrace), traceStrings(d.newTrace)), 2)
		width := len("OLD")
		for _, op := range ops {
			if op != nil {
				width = max(width, len([]rune(op.Old)))
			}
		}
		fmt.Fprintf(w, "    %-*s │ %s\n", width, "OLD", "NEW")
		for _, op := range ops {
			switch {
			case op == nil:
				fmt.Fprintf(w, "    %-*s │ %s\n", width, "…", "…")
			case op.Eq:
				fmt.Fprintf(w, "    %-*s │ %s\n", width, op.Old, "(same)")
			default:
				mk := "≠"
				fmt.Fprintf(w, "  %s %-*s │ %s\n", mk, width, orDash(op.Old), orDash(op.New))
			}
		}
	}
}

func (r *diffReport) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "### statecraft diff `%s` → `%s`\n\n", r.old, r.new)
	if len(r.structural) == 0 {
		fmt.Fprintln(w, "**Structure:** no changes.")
	} else {
		fmt.Fprintln(w, "**Structure:**")
		fmt.Fprintln(w)
		order, by := r.structuralByMachine()
		for _, m := range order {
			fmt.Fprintf(w, "- machine `%s`\n", m)
			for _, c := range by[m] {
				verb := map[string]string{"+": "added", "-": "removed", "~": "changed"}[c.kind]
				fmt.Fprintf(w, "  - %s %s\n", verb, mdCode(c.what))
				for _, d := range c.detail {
					fmt.Fprintf(w, "    - %s\n", mdCode(d))
				}
			}
		}
	}
	fmt.Fprintf(w, "\n**Behaviour:** %d of %d scenarios differ (%d others load neither version).\n", len(r.differ), r.run, r.unaffected)
	for _, d := range r.differ {
		fmt.Fprintf(w, "\n<details><summary><code>%s</code></summary>\n\n", d.path)
		if d.oldErr != "" || d.newErr != "" {
			fmt.Fprintf(w, "- OLD: %s\n- NEW: %s\n\n</details>\n", mdCell(orOK(d.oldErr)), mdCell(orOK(d.newErr)))
			continue
		}
		fmt.Fprintln(w, "| OLD | NEW |")
		fmt.Fprintln(w, "|---|---|")
		for _, op := range textdiff.Hunks(textdiff.Align(traceStrings(d.oldTrace), traceStrings(d.newTrace)), 2) {
			switch {
			case op == nil:
				fmt.Fprintln(w, "| … | … |")
			case op.Eq:
				fmt.Fprintf(w, "| %s | *(same)* |\n", mdCell(op.Old))
			default:
				fmt.Fprintf(w, "| **%s** | **%s** |\n", mdCell(orDash(op.Old)), mdCell(orDash(op.New)))
			}
		}
		fmt.Fprintln(w, "\n</details>")
	}
}

func mdCode(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func orOK(s string) string {
	if s == "" {
		return "runs"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
