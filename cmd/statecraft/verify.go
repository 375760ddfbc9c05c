package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/batch"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/scenario"
	"github.com/statecraft/statecraft/verify"
)

func verifyCmd(stdout, stderr io.Writer) *cobra.Command {
	var objects, dirs []string
	var write, output string
	var quiet bool
	var opts verify.Options
	cmd := &cobra.Command{
		Use:   "verify FILE|DIR...",
		Short: "Explore each machine, within bounds, with the machines it drives, against an abstract environment; report unreached and trapping states, livelocks, unbounded retries and declared properties",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			defer batch.TuneGC()()
			refs, err := ruleRefs(args)
			if err != nil {
				return err
			}
			ms, _, diags := loadMachines(refs)
			if diags.HasErrors() {
				printDiags(stderr, diags)
				return ExitError{1}
			}
			if !quiet {
				opts.Progress = stderr
			}
			bad := false
			text := stdout
			reports := []verifyReport{}
			if output != "" {
				text = io.Discard
			}
			for i, group := range verify.Groups(ms) {
				if i > 0 {
					fmt.Fprintln(text)
				}
				m := group[0]
				objs, from, err := sampleObjects(group, objects, dirs)
				if err != nil {
					return err
				}
				if !quiet {
					fmt.Fprintf(stderr, "verify %s: exploring from %s\n", groupName(group), from)
				}
				rep, err := verify.ExploreGroup(group, objs, opts)
				if err != nil {
					return fmt.Errorf("machine %s: %v", m.Name, err)
				}
				if writeReport(text, rep, from, m.Source.DeclRange.Filename, write) {
					bad = true
				}
				reports = append(reports, newVerifyReport(rep, from))
			}
			if output != "" {
				if err := writeStructured(stdout, output, reports); err != nil {
					return err
				}
			}
			if bad {
				return ExitError{1}
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&objects, "object", nil, "YAML files of the objects to start from: one custom resource the machine drives, and the world it reads (default: the objects of the first scenario below --scenarios that loads the machines explored together and stages no faults)")
	cmd.Flags().StringSliceVar(&dirs, "scenarios", []string{"spec/conformance", "examples"}, "where to look for starting objects when --object is not given")
	cmd.Flags().StringVar(&write, "write-scenario", "", "write each counterexample as a scenario file into this folder")
	cmd.Flags().BoolVar(&quiet, "quiet", false, "no progress on stderr")
	cmd.Flags().IntVar(&opts.MaxDepth, "depth", 16, "bound: environment events along a path")
	cmd.Flags().IntVar(&opts.MaxStates, "max-states", 5000, "bound: abstract states explored")
	cmd.Flags().IntVar(&opts.CounterCap, "counter-cap", 4, "integer status fields count as equal from this value up (a bound above it looks unbounded)")
	cmd.Flags().IntVar(&opts.FaultDepth, "fault-depth", 8, "bound: failed requests are explored along the first N events of a path")
	cmd.Flags().IntVar(&opts.MaxCascade, "max-cascade", 64, "bound: reconciles one event causes (the objects it wakes, and what their writes wake)")
	cmd.Flags().BoolVar(&opts.ReadFaults, "read-faults", false, "also fail reads (forbidden, transient), not only the actions' requests")
	outputFlag(cmd, &output)
	return cmd
}

// verifyReport is a verify.Report as -o json|yaml prints it.
type verifyReport struct {
	Machine   string   `json:"machine"`
	Object    string   `json:"object"`
	From      string   `json:"from"`
	States    int      `json:"states"`
	Edges     int      `json:"transitions"`
	Depth     int      `json:"depth"`
	Truncated bool     `json:"truncated"`
	Reached   []string `json:"reached"`
	// Others are the machines explored with this one and the states
	// their objects entered.
	Others   []verify.Reach  `json:"others,omitempty"`
	Findings []verifyFinding `json:"findings"`
	// Unused names the accept blocks that matched no finding.
	Unused []string `json:"unusedAccepts,omitempty"`
}

type verifyFinding struct {
	Kind         string       `json:"kind"`
	Summary      string       `json:"summary"`
	Path         []verifyStep `json:"path"`
	Cycle        []verifyStep `json:"cycle,omitempty"`
	Reproducible bool         `json:"reproducible"`
	Machine      string       `json:"machine"`
	// Accepted names the accept block that declares the finding meant,
	// Because its reason.
	Accepted string `json:"accepted,omitempty"`
	Because  string `json:"because,omitempty"`
}

type verifyStep struct {
	At    string   `json:"at"`
	Event string   `json:"event"`
	Lines []string `json:"lines,omitempty"`
}

func newVerifyReport(rep *verify.Report, from string) verifyReport {
	steps := func(ss []*verify.Step) []verifyStep {
		var out []verifyStep
		for _, s := range ss {
			out = append(out, verifyStep{At: scenario.Stamp(s.At), Event: s.Event, Lines: s.Lines})
		}
		return out
	}
	r := verifyReport{Machine: rep.Machine, Object: rep.Object, From: from, States: rep.States, Edges: rep.Edges,
		Depth: rep.Depth, Truncated: rep.Truncated, Reached: rep.Reached, Others: rep.Others, Findings: []verifyFinding{}, Unused: rep.Unused}
	for _, f := range rep.Findings {
		r.Findings = append(r.Findings, verifyFinding{Kind: f.Kind, Summary: f.Summary, Path: steps(f.Path), Cycle: steps(f.Cycle), Reproducible: f.Reproducible,
			Machine: f.Machine, Accepted: f.Accepted, Because: f.Because})
	}
	return r
}

// ruleRefs expands folders into the rule files (*.hcl) below them, sorted;
// files and shipped policy names are kept as given.
func ruleRefs(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		if err != nil || !st.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		err = filepath.WalkDir(a, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(p, ".hcl") && !strings.HasSuffix(p, scenario.Ext) {
				found = append(found, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(found) == 0 {
			return nil, fmt.Errorf("%s: no rule file (*.hcl) below it", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

func groupName(group []*fsm.Machine) string {
	var names []string
	for _, m := range group {
		names = append(names, m.Name)
	}
	return strings.Join(names, " + ")
}

// sampleObjects returns the starting objects of a group of machines explored
// together (the first one's object first) and where they came from: the
// files given, or the first scenario that loads every machine of the group,
// starts with an object the first drives, and stages no denials, faults or
// admission (verify does not model them).
func sampleObjects(group []*fsm.Machine, files, dirs []string) ([]map[string]any, string, error) {
	m := group[0]
	if len(files) > 0 {
		var out []map[string]any
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, "", err
			}
			for _, doc := range strings.Split("\n"+string(b), "\n---") {
				var o map[string]any
				if err := yaml.Unmarshal([]byte(doc), &o); err != nil {
					return nil, "", fmt.Errorf("%s: %v", f, err)
				}
				if o != nil {
					out = append(out, o)
				}
			}
		}
		return out, strings.Join(files, ", "), nil
	}
	var existing []string
	for _, d := range dirs {
		if _, err := os.Stat(d); err == nil {
			existing = append(existing, d)
		}
	}
	paths, err := scenario.Find(existing...)
	if err != nil {
		return nil, "", err
	}
	for _, p := range paths {
		s, diags := scenario.Load(p)
		if diags.HasErrors() || s.Stages() {
			continue
		}
		loaded := map[string]bool{}
		for _, r := range s.Rules {
			if f, _ := rules.LoadRef(scenario.ResolveRule(s, r)); f != nil {
				for _, sm := range f.Machines {
					loaded[sm.Name] = true
				}
			}
		}
		all := true
		for _, g := range group {
			all = all && loaded[g.Name]
		}
		if !all {
			continue
		}
		for _, o := range s.Objects {
			av, _ := o["apiVersion"].(string)
			k, _ := o["kind"].(string)
			for _, r := range m.Resources {
				if r.APIVersion == av && r.Kind == k {
					return s.Objects, "the objects of " + p, nil
				}
			}
		}
	}
	return nil, "", fmt.Errorf("machine %s: no scenario below %s loads %s, starts with an object it drives and stages no faults; name the objects with --object", m.Name, strings.Join(dirs, ", "), groupName(group))
}

func writeReport(w io.Writer, rep *verify.Report, from, ruleRef, dir string) (bad bool) {
	fmt.Fprintf(w, "machine %s, starting from %s (%s)\n", rep.Machine, rep.Object, from)
	for _, o := range rep.Others {
		fmt.Fprintf(w, "explored with machine %s, which drives the objects %s makes\n", o.Machine, rep.Machine)
	}
	bound := "exhaustive: every abstract state was expanded"
	if rep.Truncated {
		bound = "BOUNDED: some states were not expanded (depth or state bound reached); findings hold, absence of findings beyond the bound is not proven"
	}
	fmt.Fprintf(w, "explored %d abstract states, %d transitions, paths up to %d environment events; %s\n", rep.States, rep.Edges, rep.Depth, bound)
	fmt.Fprintf(w, "states reached: %s\n", strings.Join(rep.Reached, ", "))
	for _, o := range rep.Others {
		fmt.Fprintf(w, "states reached by %s: %s\n", o.Machine, strings.Join(o.Reached, ", "))
	}
	open, accepted := 0, 0
	for _, f := range rep.Findings {
		if f.Accepted != "" {
			accepted++
		} else {
			open++
		}
	}
	if open == 0 {
		fmt.Fprintf(w, "no findings but the %d the rule files accept\n", accepted)
	}
	for i, f := range rep.Findings {
		if f.Accepted != "" {
			continue
		}
		if f.Kind != "unreached" || !rep.Truncated {
			bad = true
		}
		fmt.Fprintf(w, "\n%s: %s\n", strings.ToUpper(f.Kind), f.Summary)
		if len(f.Path) == 0 {
			continue
		}
		fmt.Fprintln(w, "  counterexample:")
		writeSteps(w, f.Path)
		if len(f.Cycle) > 0 {
			fmt.Fprintln(w, "  then, repeating for ever:")
			writeSteps(w, f.Cycle)
		}
		if dir != "" {
			name := fmt.Sprintf("%s-%s-%d", rep.Machine, strings.ReplaceAll(f.Kind, " ", "-"), i+1)
			p, err := verify.WriteScenario(dir, name, ruleRef, rep, f)
			if err != nil {
				fmt.Fprintf(w, "  not written as a scenario: %v\n", err)
			} else {
				fmt.Fprintf(w, "  written: %s\n", p)
			}
		}
	}
	if accepted > 0 {
		fmt.Fprintln(w)
	}
	for _, f := range rep.Findings {
		if f.Accepted != "" {
			fmt.Fprintf(w, "ACCEPTED %s (accept %q: %s): %s\n", f.Kind, f.Accepted, f.Because, f.Summary)
		}
	}
	for _, a := range rep.Unused {
		fmt.Fprintf(w, "warning: accept %q of machine %s matched no finding of this exploration\n", a, rep.Machine)
	}
	return bad
}

func writeSteps(w io.Writer, steps []*verify.Step) {
	for _, s := range steps {
		fmt.Fprintf(w, "    %s  [%s]\n", scenario.Stamp(s.At), s.Event)
		for _, l := range s.Lines {
			fmt.Fprintf(w, "    %s\n", l)
		}
	}
}
