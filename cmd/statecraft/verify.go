package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
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
	var opts verify.Options
	cmd := &cobra.Command{
		Use:   "verify FILE",
		Short: "Explore each machine, within bounds, against an abstract environment; report unreached and trapping states, livelocks, unbounded retries and declared properties",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			defer batch.TuneGC()()
			ms, _, diags := loadMachines(args)
			if diags.HasErrors() {
				printDiags(stderr, diags)
				return ExitError{1}
			}
			bad := false
			text := stdout
			reports := []verifyReport{}
			if output != "" {
				text = io.Discard
			}
			for i, m := range ms {
				if i > 0 {
					fmt.Fprintln(text)
				}
				objs, from, err := sampleObjects(m, objects, dirs)
				if err != nil {
					return err
				}
				rep, err := verify.Explore(m, objs, opts)
				if err != nil {
					return fmt.Errorf("machine %s: %v", m.Name, err)
				}
				if writeReport(text, rep, from, args[0], write) {
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
	cmd.Flags().StringSliceVar(&objects, "object", nil, "YAML files of the objects to start from: one custom resource the machine drives, and the world it reads (default: the objects of the first scenario below --scenarios that loads the machine)")
	cmd.Flags().StringSliceVar(&dirs, "scenarios", []string{"spec/conformance", "examples"}, "where to look for starting objects when --object is not given")
	cmd.Flags().StringVar(&write, "write-scenario", "", "write each counterexample as a scenario file into this folder")
	cmd.Flags().IntVar(&opts.MaxDepth, "depth", 16, "bound: environment events along a path")
	cmd.Flags().IntVar(&opts.MaxStates, "max-states", 5000, "bound: abstract states explored")
	cmd.Flags().IntVar(&opts.CounterCap, "counter-cap", 4, "integer status fields count as equal from this value up (a bound above it looks unbounded)")
	cmd.Flags().IntVar(&opts.FaultDepth, "fault-depth", 8, "bound: failed requests are explored along the first N events of a path")
	cmd.Flags().BoolVar(&opts.ReadFaults, "read-faults", false, "also fail reads (forbidden, transient), not only the actions' requests")
	outputFlag(cmd, &output)
	return cmd
}

// verifyReport is a verify.Report as -o json|yaml prints it.
type verifyReport struct {
	Machine   string          `json:"machine"`
	Object    string          `json:"object"`
	From      string          `json:"from"`
	States    int             `json:"states"`
	Edges     int             `json:"transitions"`
	Depth     int             `json:"depth"`
	Truncated bool            `json:"truncated"`
	Reached   []string        `json:"reached"`
	Findings  []verifyFinding `json:"findings"`
}

type verifyFinding struct {
	Kind         string       `json:"kind"`
	Summary      string       `json:"summary"`
	Path         []verifyStep `json:"path"`
	Cycle        []verifyStep `json:"cycle,omitempty"`
	Reproducible bool         `json:"reproducible"`
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
		Depth: rep.Depth, Truncated: rep.Truncated, Reached: rep.Reached, Findings: []verifyFinding{}}
	for _, f := range rep.Findings {
		r.Findings = append(r.Findings, verifyFinding{Kind: f.Kind, Summary: f.Summary, Path: steps(f.Path), Cycle: steps(f.Cycle), Reproducible: f.Reproducible})
	}
	return r
}

// sampleObjects returns the starting objects and where they came from.
func sampleObjects(m *fsm.Machine, files, dirs []string) ([]map[string]any, string, error) {
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
		if diags.HasErrors() {
			continue
		}
		loads := false
		for _, r := range s.Rules {
			ref := r
			if fp := filepath.Join(s.Dir, r); fileExistsCLI(fp) {
				ref = fp
			}
			if f, _ := rules.LoadRef(ref); f != nil {
				for _, sm := range f.Machines {
					if sm.Name == m.Name {
						loads = true
					}
				}
			}
		}
		if !loads {
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
	return nil, "", fmt.Errorf("machine %s: no scenario below %s starts with an object it drives; name one with --object", m.Name, strings.Join(dirs, ", "))
}

func writeReport(w io.Writer, rep *verify.Report, from, ruleRef, dir string) (bad bool) {
	fmt.Fprintf(w, "machine %s, starting from %s (%s)\n", rep.Machine, rep.Object, from)
	bound := "exhaustive: every abstract state was expanded"
	if rep.Truncated {
		bound = "BOUNDED: some states were not expanded (depth or state bound reached); findings hold, absence of findings beyond the bound is not proven"
	}
	fmt.Fprintf(w, "explored %d abstract states, %d transitions, paths up to %d environment events; %s\n", rep.States, rep.Edges, rep.Depth, bound)
	fmt.Fprintf(w, "states reached: %s\n", strings.Join(rep.Reached, ", "))
	if len(rep.Findings) == 0 {
		fmt.Fprintln(w, "no findings")
		return false
	}
	for i, f := range rep.Findings {
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
