package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/record"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/rules/policies"
)

// recordFlags are the flags of a recording (run --record, record).
type recordFlags struct {
	dir             string
	secretData      bool
	maxSegmentBytes int64
	maxSegments     int
}

func (r *recordFlags) register(cmd *cobra.Command, name, usage string) {
	cmd.Flags().StringVar(&r.dir, name, "", usage)
	cmd.Flags().BoolVar(&r.secretData, "include-secret-data", false, "record Secrets with their data (default: each value of their data is replaced by "+record.Redacted+", base64 of \"redacted\")")
	cmd.Flags().Int64Var(&r.maxSegmentBytes, "max-segment-bytes", 32<<20, "rotate the recording into a new segment (a new checkpoint of every recorded object) once a segment's logs pass this size")
	cmd.Flags().IntVar(&r.maxSegments, "max-segments", 8, "keep this many segments; the oldest go (the recording then starts at the oldest kept checkpoint)")
}

// startRecording starts the recorder of --record (nil without it).
func (f *runFlags) startRecording(ctx context.Context, cfg *rest.Config, client *kube.Client, ms []*fsm.Machine, log *slog.Logger) (*record.Recorder, error) {
	if f.rec.dir == "" {
		return nil, nil
	}
	if f.dryRun {
		return nil, fmt.Errorf("--record with --dry-run: a shadow run writes nothing, so what it decided next cannot be replayed (a replay writes what the engine decides); record the engine itself, and replay the recording with other rules to see what they would do")
	}
	srcs, err := ruleSources(f.rules, ms)
	if err != nil {
		return nil, err
	}
	log.Info("recording", "dir", f.rec.dir)
	return record.Start(ctx, client, ms, record.Options{
		Dir: f.rec.dir, Server: cfg.Host, Context: f.contextName, Rules: srcs, Params: f.params, Namespace: f.namespace,
		SecretData: f.rec.secretData, MaxSegmentBytes: f.rec.maxSegmentBytes, MaxSegments: f.rec.maxSegments, Logger: log,
	})
}

// ruleSources returns the rule files that hold the machines ms, read as
// servedMachines read them: paths, folders of *.hcl, shipped names (every
// shipped policy without any).
func ruleSources(refs []string, ms []*fsm.Machine) ([]record.RuleSource, error) {
	if len(refs) == 0 {
		refs = policies.Names()
	}
	running := map[string]bool{}
	for _, m := range ms {
		running[m.Name] = true
	}
	var paths []string
	for _, r := range refs {
		if st, err := os.Stat(r); err == nil && st.IsDir() {
			found, _ := filepath.Glob(filepath.Join(r, "*.hcl"))
			paths = append(paths, found...)
			continue
		}
		paths = append(paths, r)
	}
	var out []record.RuleSource
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			s, _, ok := policies.Source(p)
			if !ok {
				return nil, err
			}
			src = s
		}
		f, diags := rules.Parse(src, p)
		if diags.HasErrors() {
			return nil, fmt.Errorf("%s: %s", p, diags.Error())
		}
		rs := record.RuleSource{Name: p, Source: src}
		for _, m := range f.Machines {
			if running[m.Name] {
				rs.Machines = append(rs.Machines, m.Name)
			}
		}
		if len(rs.Machines) > 0 {
			out = append(out, rs)
		}
	}
	return out, nil
}

func recordCmd(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{}
	var dur time.Duration
	cmd := &cobra.Command{
		Use:   "record --for DURATION --out DIR",
		Short: "Run the engine against a cluster for a while and record what it saw and decided, as a scenario the simulator replays",
		Long: `Run the engine against a cluster (as statecraft run does) for --for, and
record into --out: the objects the loaded machines read at the start (their
driven kinds and the kinds they observe; Secrets' data redacted unless
--include-secret-data), the changes other actors made (from watches, with
times since the start), and the engine's own decisions (transitions with the
values of their guards' clauses, writes with their bodies, problems). The
folder holds a scenario the simulator runs (recording.scenario.hcl, with its
objects YAML and timed at events) beside the decision log (spec/recording.md);
statecraft replay replays it. Its size is bounded: segments rotate at
--max-segment-bytes and the oldest beyond --max-segments go. Recording into a
folder that holds a recording continues it (statecraft run --record DIR does
the same for as long as it runs).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.rec.dir == "" {
				return fmt.Errorf("--out DIR is required: the folder to record into")
			}
			if dur <= 0 {
				return fmt.Errorf("--for DURATION is required, e.g. --for 1h")
			}
			cfg, err := f.kube.restConfig()
			if err != nil {
				return err
			}
			f.contextName = f.kube.contextName()
			ctx, cancel := signalContext()
			defer cancel()
			ctx, stop := context.WithTimeout(ctx, dur)
			defer stop()
			if err := runController(ctx, cfg, f, stdout, stderr); err != nil {
				return err
			}
			rec, err := record.Load(f.rec.dir)
			if err != nil {
				return err
			}
			others := 0
			for _, c := range rec.World {
				if c.By == "other" {
					others++
				}
			}
			fmt.Fprintf(stdout, "recorded %s: %s to %s, %d decisions, %d changes by other actors; replay it with: statecraft replay %s\n",
				f.rec.dir, rec.Manifest.Start.Format(time.RFC3339), rec.Manifest.End.Format(time.RFC3339), len(rec.Decisions), others, f.rec.dir)
			return nil
		},
	}
	f.kube.register(cmd)
	cmd.Flags().DurationVar(&dur, "for", 0, "how long to record (e.g. 30m)")
	f.register(cmd, false)
	f.rec.register(cmd, "out", "the folder to record into (one that holds a recording is continued)")
	return cmd
}

func replayCmd(stdout, stderr io.Writer) *cobra.Command {
	var ruleRefs, params []string
	var format, output string
	var tolerance time.Duration
	cmd := &cobra.Command{
		Use:   "replay DIR [--rules NEW...] [--param MACHINE.NAME=VALUE...]",
		Short: "Replay a recording on the simulator; report divergences from what was recorded, and, with other rules or params, the decisions that change; exit 1 when anything differs",
		Long: `Replay a recording (statecraft record) on the simulator's virtual clock. With
the rules it was recorded under, the simulator must reproduce the decisions the
engine made on the cluster (times within --tolerance): any divergence is
reported as a fidelity bug of the simulator or the controller, not of the
rules. With --rules (new versions of rule files, matched to the recorded ones
by machine name, as statecraft diff does) or --param (defaults over the
recorded ones), it replays again under them and prints the decision diff: per
object, which transitions, reasons and writes differ, and when. Exit 1 when
the replay diverges or the behaviour changed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "markdown" {
				return fmt.Errorf("--format is text or markdown")
			}
			if err := checkOutput(output); err != nil {
				return err
			}
			opts := record.ReplayOptions{Rules: ruleRefs, Params: params, Tolerance: tolerance}
			if len(ruleRefs) > 0 {
				var versions []*ruleVersion
				var diags hcl.Diagnostics
				for _, r := range ruleRefs {
					v, d := loadVersion(r)
					diags = append(diags, d...)
					versions = append(versions, v)
				}
				if diags.HasErrors() {
					printDiags(stderr, diags)
					return ExitError{1}
				}
				opts.Replace = func(ref string, loaded *rules.File) (*rules.File, hcl.Diagnostics) {
					for _, v := range versions {
						if f, d := v.replacer()(ref, loaded); f != nil || d.HasErrors() {
							return f, d
						}
					}
					return nil, nil
				}
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			rep, err := record.Replay(ctx, args[0], opts)
			if err != nil {
				return err
			}
			switch {
			case output != "":
				if err := writeStructured(stdout, output, rep.Document()); err != nil {
					return err
				}
			case format == "markdown":
				rep.WriteMarkdown(stdout)
			default:
				rep.WriteText(stdout)
			}
			if !rep.Faithful() || rep.BehaviourChanged() {
				return ExitError{1}
			}
			return nil
		},
	}
	cmd.Flags().StringSliceVar(&ruleRefs, "rules", nil, "new versions of rule files (files, folders, shipped names) to replay under, matched to the recorded ones by machine name")
	cmd.Flags().StringArrayVar(&params, "param", nil, "MACHINE.NAME=VALUE: replay with this param default instead of the recorded one (repeatable)")
	cmd.Flags().StringVar(&format, "format", "text", "output format: text or markdown (for a review)")
	cmd.Flags().DurationVar(&tolerance, "tolerance", record.DefaultTolerance, "how far apart a recorded decision and the replay's may be in time and still be the same")
	outputFlag(cmd, &output)
	return cmd
}
