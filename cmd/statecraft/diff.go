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
	var format, output string
	var dirs []string
	cmd := &cobra.Command{
		Use:   "diff OLD NEW",
		Short: "Structural and behavioural differences between two versions of rule files; exit 1 when behaviour changed",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" {
				return fmt.Errorf("--format is text or markdown")
			}
			if err := checkOutput(output); err != nil {
				return err
			}
			oldV, d1 := loadVersion(args[0])
			newV, d2 := loadVersion(args[1])
			if diags := append(d1, d2...); diags.HasErrors() {
				printDiags(stderr, diags)
				return ExitError{1}
			}
			rep := &diffReport{old: args[0], new: args[1]}
			rep.structural = rules.Diff(oldV.machines(), newV.machines())
			if err := rep.behaviour(cmd.Context(), oldV, newV, dirs); err != nil {
				return err
			}
			switch {
			case output != "":
				if err := writeStructured(stdout, output, rep.document()); err != nil {
					return err
				}
			case format == "markdown":
				rep.writeMarkdown(stdout)
			default:
				rep.writeText(stdout)
			}
			if rep.changed() {
				return ExitError{1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or markdown (for a pull-request comment)")
	outputFlag(cmd, &output)
	cmd.Flags().StringSliceVar(&dirs, "scenarios", []string{"spec/conformance", "examples"}, "folders (or files) of scenarios to run under both versions")
	return cmd
}

type scenarioDiff struct {
	path     string
	oldTrace []scenario.Line
	newTrace []scenario.Line
	oldErr   string
	newErr   string
}

type diffReport struct {
	old, new   string
	structural []rules.Change
	run        int // scenarios run under both versions
	unaffected int // scenarios that load none of the machines
	differ     []scenarioDiff
}

func (r *diffReport) changed() bool { return len(r.differ) > 0 }

// document is the report as -o json|yaml prints it.
func (r *diffReport) document() any {
	type change struct {
		Machine string   `json:"machine"`
		Kind    string   `json:"kind"` // added, removed, changed
		What    string   `json:"what"`
		Detail  []string `json:"detail,omitempty"`
	}
	type differ struct {
		Scenario string          `json:"scenario"`
		Old      []scenario.Line `json:"old"`
		New      []scenario.Line `json:"new"`
		OldError string          `json:"oldError,omitempty"`
		NewError string          `json:"newError,omitempty"`
	}
	kinds := map[string]string{"+": "added", "-": "removed", "~": "changed"}
	doc := struct {
		Old        string   `json:"old"`
		New        string   `json:"new"`
		Structural []change `json:"structural"`
		Scenarios  int      `json:"scenariosRun"`
		Unaffected int      `json:"scenariosUnaffected"`
		Behaviour  []differ `json:"behaviour"`
		Changed    bool     `json:"behaviourChanged"`
	}{Old: r.old, New: r.new, Structural: []change{}, Scenarios: r.run, Unaffected: r.unaffected, Behaviour: []differ{}, Changed: r.changed()}
	for _, c := range r.structural {
		k := kinds[c.Kind]
		if k == "" {
			k = c.Kind
		}
		doc.Structural = append(doc.Structural, change{c.Machine, k, c.What, c.Detail})
	}
	for _, d := range r.differ {
		doc.Behaviour = append(doc.Behaviour, differ{d.path, d.oldTrace, d.newTrace, d.oldErr, d.newErr})
	}
	return doc
}

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
