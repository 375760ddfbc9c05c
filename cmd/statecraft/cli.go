package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/batch"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/scenario"
)

// ExitError carries a process exit code without printing anything more.
type ExitError struct{ Code int }

func (e ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// Main runs the statecraft command line with args and returns the exit code.
func Main(args []string, stdout, stderr io.Writer) int {
	root := NewRoot(stdout, stderr)
	root.SetArgs(args)
	if err := root.Execute(); err != nil {
		if e, ok := err.(ExitError); ok {
			return e.Code
		}
		fmt.Fprintln(stderr, "statecraft:", err)
		return 2
	}
	return 0
}

// NewRoot builds the command tree.
func NewRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "statecraft",
		Short:         "A declarative rules engine for Kubernetes lifecycles",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionInfo().String(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(checkCmd(stdout, stderr), explainCmd(stdout, stderr), simCmd(stdout, stderr), testCmd(stdout, stderr), fmtCmd(stdout, stderr), graphCmd(stdout, stderr),
		runCmd(stdout, stderr), planCmd(stdout, stderr), devCmd(stdout, stderr),
		recordCmd(stdout, stderr), replayCmd(stdout, stderr), whyCmd(stdout, stderr),
		diffCmd(stdout, stderr), verifyCmd(stdout, stderr), versionCmd(stdout))
	return root
}

// loadMachines loads and compiles rule files (paths or shipped names).
func loadMachines(refs []string) ([]*fsm.Machine, map[string][]byte, hcl.Diagnostics) {
	var files []*rules.File
	var diags hcl.Diagnostics
	srcs := map[string][]byte{}
	for _, r := range refs {
		f, d := rules.LoadRef(r)
		diags = append(diags, d...)
		if f != nil {
			files = append(files, f)
		}
		if b, err := os.ReadFile(r); err == nil {
			srcs[r] = b
		}
	}
	if diags.HasErrors() {
		return nil, srcs, diags
	}
	ms, d := fsm.CompileIn(scenario.NewMemory(), files...)
	return ms, srcs, append(diags, d...)
}

// printDiags writes diagnostics as FILE:LINE:COLUMN: severity: summary;
// detail, sorted by position.
func printDiags(w io.Writer, diags hcl.Diagnostics) {
	sorted := append(hcl.Diagnostics(nil), diags...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i].Subject, sorted[j].Subject
		if a == nil || b == nil {
			return b != nil
		}
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Start.Line != b.Start.Line {
			return a.Start.Line < b.Start.Line
		}
		return a.Start.Column < b.Start.Column
	})
	for _, d := range sorted {
		fmt.Fprintln(w, rules.DiagnosticLine(d))
	}
}

func checkCmd(stdout, stderr io.Writer) *cobra.Command {
	var format, output string
	cmd := &cobra.Command{
		Use:   "check FILE...",
		Short: "Load and compile rule files; print diagnostics; exit 1 on any error",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if output == "" && format == "json" {
				output = "json" // --format json is -o json
			}
			ms, _, diags := loadMachines(args)
			for _, m := range ms {
				diags = append(diags, fsm.Analyze(m)...)
			}
			if output != "" {
				type jd struct {
					Severity string `json:"severity"`
					Summary  string `json:"summary"`
					Detail   string `json:"detail"`
					File     string `json:"file,omitempty"`
					Line     int    `json:"line,omitempty"`
					Column   int    `json:"column,omitempty"`
				}
				out := []jd{}
				for _, d := range diags {
					j := jd{Severity: "error", Summary: d.Summary, Detail: d.Detail}
					if d.Severity == hcl.DiagWarning {
						j.Severity = "warning"
					}
					if d.Subject != nil {
						j.File, j.Line, j.Column = d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column
					}
					out = append(out, j)
				}
				if err := writeStructured(stdout, output, out); err != nil {
					return err
				}
			} else {
				printDiags(stderr, diags)
			}
			if diags.HasErrors() {
				return ExitError{1}
			}
			if output == "" {
				fmt.Fprintf(stdout, "%s: ok\n", strings.Join(args, ", "))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json (the same as -o json)")
	outputFlag(cmd, &output)
	return cmd
}

func explainCmd(stdout, stderr io.Writer) *cobra.Command {
	var state string
	var costs bool
	cmd := &cobra.Command{
		Use:   "explain FILE",
		Short: "Print each machine as a transition table",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ms, _, diags := loadMachines(args)
			if diags.HasErrors() {
				printDiags(stderr, diags)
				return ExitError{1}
			}
			for i, m := range ms {
				if i > 0 {
					fmt.Fprintln(stdout)
				}
				if state != "" && m.State(state) == nil {
					return fmt.Errorf("machine %s has no state %q", m.Name, state)
				}
				fsm.WriteTable(stdout, m, state)
				if costs {
					fmt.Fprintln(stdout)
					fsm.WriteCosts(stdout, m)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&state, "state", "", "show only what can happen from this state, in order")
	cmd.Flags().BoolVar(&costs, "costs", false, "list each expression's static cost estimate")
	return cmd
}

func simCmd(stdout, stderr io.Writer) *cobra.Command {
	var until, object, format, timeline, output string
	var why bool
	cmd := &cobra.Command{
		Use:   "sim SCENARIO",
		Short: "Run a scenario on the simulated cluster and print its trace",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			defer batch.TuneGC()()
			var opts scenario.Options
			if until != "" {
				d, err := time.ParseDuration(until)
				if err != nil {
					return fmt.Errorf("--until: %v", err)
				}
				opts.Until = d
			}
			wc := &whyCollector{}
			if why {
				opts.Steps = wc
			}
			// The plain and the JSON Lines trace are streamed as the run
			// makes them; the rest (--why, --timeline, -o) need it whole.
			flush := func() error { return nil }
			streams := !why && timeline == "" && output == ""
			if streams {
				keep := func(l scenario.Line) bool { return object == "" || l.Object == object }
				if format == "json" {
					bw := bufio.NewWriter(stdout)
					enc := json.NewEncoder(bw)
					opts.Trace = func(l scenario.Line) {
						if keep(l) {
							enc.Encode(l)
						}
					}
					flush = bw.Flush
				} else {
					tw := scenario.NewTraceWriter(stdout)
					flush = tw.Flush
					opts.Trace = func(l scenario.Line) {
						if keep(l) {
							tw.Line(l)
						}
					}
				}
			}
			res, diags := runScenario(args[0], opts)
			if err := flush(); err != nil && !diags.HasErrors() {
				return err
			}
			if diags.HasErrors() {
				printDiags(stderr, diags)
				return ExitError{1}
			}
			lines := res.Trace
			if object != "" {
				var kept []scenario.Line
				for _, l := range lines {
					if l.Object == object {
						kept = append(kept, l)
					}
				}
				lines = kept
			}
			if timeline != "" {
				s, _ := scenario.Load(args[0])
				runFor := s.RunFor
				if opts.Until > 0 && opts.Until < runFor {
					runFor = opts.Until
				}
				var b strings.Builder
				writeTimeline(&b, lines, runFor)
				if err := os.WriteFile(timeline, []byte(b.String()), 0o644); err != nil {
					return err
				}
			}
			if output != "" {
				doc := struct {
					Scenario string          `json:"scenario"`
					Trace    []scenario.Line `json:"trace"`
					Failures []string        `json:"failures"`
				}{Scenario: args[0], Trace: lines, Failures: []string{}}
				if doc.Trace == nil {
					doc.Trace = []scenario.Line{}
				}
				for _, f := range res.Failures {
					doc.Failures = append(doc.Failures, fmt.Sprint(f))
				}
				if err := writeStructured(stdout, output, doc); err != nil {
					return err
				}
			} else if format == "json" && !streams {
				enc := json.NewEncoder(stdout)
				for _, l := range lines {
					enc.Encode(l)
				}
			} else if why {
				s, _ := scenario.Load(args[0])
				writeWhy(stdout, lines, wc.steps, s.Start, object)
			} else if !streams {
				for _, l := range lines {
					fmt.Fprintln(stdout, l)
				}
			}
			for _, f := range res.Failures {
				fmt.Fprintln(stderr, "expectation failed:", f)
			}
			if len(res.Failures) > 0 {
				return ExitError{1}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&until, "until", "", "stop after this much virtual time (e.g. 2h)")
	cmd.Flags().StringVar(&object, "object", "", "show only lines about this object (Kind/namespace/name)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or json (JSON Lines: one trace line per line, for streaming)")
	outputFlag(cmd, &output)
	cmd.Flags().BoolVar(&why, "why", false, "under each transition, the values of its guard's clauses and why the earlier candidates did not fire; explain steps where nothing fired")
	cmd.Flags().BoolVar(&why, "explain", false, "the same as --why")
	cmd.Flags().StringVar(&timeline, "timeline", "", "also draw each object's states over virtual time into this SVG file")
	return cmd
}

func runScenario(path string, opts scenario.Options) (*scenario.Result, hcl.Diagnostics) {
	s, diags := scenario.Load(path)
	if diags.HasErrors() {
		return nil, diags
	}
	ms, d := scenario.Compile(s)
	diags = append(diags, d...)
	if diags.HasErrors() {
		return nil, diags
	}
	res, err := scenario.Run(context.Background(), s, ms, opts)
	if err != nil {
		return nil, append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Scenario failed", Detail: err.Error(), Subject: s.DeclRange.Ptr()})
	}
	return res, diags
}

func testCmd(stdout, stderr io.Writer) *cobra.Command {
	var update, cover bool
	var coverMin float64
	var mf mutateFlags
	var output string
	cmd := &cobra.Command{
		Use:   "test DIR...",
		Short: "Run every scenario below the folders against its golden trace and expectations; with --mutate, against mutants of their rules",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			if output != "" && (cover || coverMin > 0) {
				return fmt.Errorf("--cover prints a report: use it without --output")
			}
			defer batch.TuneGC()()
			if mf.on || mf.list {
				if update || cover || coverMin > 0 {
					return fmt.Errorf("--mutate and --list do not go with --update or --cover")
				}
				switch output {
				case "json":
					mf.format = "json"
				case "yaml":
					return fmt.Errorf("--mutate and --list print text or json (-o json, --format json)")
				}
				return runMutate(args, mf, stdout, stderr)
			}
			if mf.format != "text" {
				return fmt.Errorf("--format needs --mutate or --list")
			}
			type result struct {
				Scenario string   `json:"scenario"`
				Passed   bool     `json:"passed"`
				Problems []string `json:"problems,omitempty"`
			}
			var results []result
			text := stdout
			if output != "" {
				text = io.Discard
			}
			paths, err := scenario.Find(args...)
			if err != nil {
				return err
			}
			passed, failed := 0, 0
			cov := newCoverage()
			var opts scenario.Options
			if cover || coverMin > 0 {
				opts.Steps = &coverTracer{c: cov}
			}
			for _, p := range paths {
				o := scenario.CheckWith(context.Background(), p, update, opts)
				results = append(results, result{Scenario: p, Passed: o.Passed, Problems: o.Problems})
				if o.Passed {
					passed++
					fmt.Fprintf(text, "ok    %s\n", p)
					continue
				}
				failed++
				fmt.Fprintf(text, "FAIL  %s\n", p)
				for _, pr := range o.Problems {
					fmt.Fprintf(text, "      %s\n", strings.ReplaceAll(strings.TrimRight(pr, "\n"), "\n", "\n      "))
				}
			}
			fmt.Fprintf(text, "%d passed, %d failed\n", passed, failed)
			if output != "" {
				if results == nil {
					results = []result{}
				}
				doc := struct {
					Scenarios []result `json:"scenarios"`
					Passed    int      `json:"passed"`
					Failed    int      `json:"failed"`
				}{results, passed, failed}
				if err := writeStructured(stdout, output, doc); err != nil {
					return err
				}
			}
			if opts.Steps != nil {
				low := cov.write(stdout)
				if coverMin > 0 && low < coverMin {
					fmt.Fprintf(stdout, "coverage %.1f%% is below --cover-min %.1f%%\n", low, coverMin)
					return ExitError{1}
				}
			}
			if failed > 0 {
				return ExitError{1}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&update, "update", false, "rewrite golden traces from this run")
	cmd.Flags().BoolVar(&cover, "cover", false, "print state, transition, outcome-route and guard-clause coverage per machine")
	cmd.Flags().Float64Var(&coverMin, "cover-min", 0, "with --cover: exit 1 when any coverage measure of any machine is below this percentage")
	cmd.Flags().BoolVar(&mf.on, "mutate", false, "run the suite against mutants of the rule files it loads; print the survivors as diffs and a score per machine; exit 1 when a mutant not declared equivalent survives")
	cmd.Flags().BoolVar(&mf.list, "list", false, "list the mutants --mutate would run, without running them")
	cmd.Flags().StringSliceVar(&mf.machines, "machine", nil, "with --mutate or --list: only mutants of these machines (repeatable, or comma-separated)")
	cmd.Flags().StringVar(&mf.format, "format", "text", "with --mutate or --list: text or json")
	cmd.Flags().IntVar(&mf.jobs, "jobs", 0, "with --mutate: mutants run at once (default: the number of CPUs)")
	cmd.Flags().DurationVar(&mf.budget, "budget", 0, "with --mutate: wall-time budget; mutants not started when it is spent are reported not run (and the run fails)")
	cmd.Flags().StringVar(&mf.equivalent, "equivalent", "", "with --mutate: the equivalent-mutants file (default: "+EquivalentFile+" at the top of each folder, when there is one)")
	cmd.Flags().BoolVar(&mf.skipEquivalent, "skip-equivalent", false, "with --mutate: do not run the mutants declared equivalent")
	cmd.Flags().StringVar(&mf.known, "known", "", "with --mutate: the known survivors file, mutant IDs that do not fail the run (default: "+KnownFile+" at the top of each folder, when there is one); a new survivor fails it, a known one killed is reported to be removed")
	cmd.Flags().StringVar(&mf.writeKnown, "write-known", "", "with --mutate: write this run's survivors to this file as a known survivors file (the run then does not fail on survivors)")
	cmd.Flags().StringVar(&mf.match, "match", "", "with --mutate or --list: only the mutants whose ID matches this regular expression")
	cmd.Flags().IntVar(&mf.sample, "sample", 0, "with --mutate or --list: only the mutants whose ID hashes to 0 modulo N (a fixed subset, about 1 in N)")
	outputFlag(cmd, &output)
	return cmd
}
