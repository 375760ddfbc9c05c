package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/statecraft/statecraft/mutate"
)

// mutateFlags are the flags of statecraft test --mutate.
type mutateFlags struct {
	on, list, skipEquivalent bool
	machines                 []string
	format, equivalent       string
	jobs                     int
	budget                   time.Duration
}

// EquivalentFile is the file, at the top of a suite's folder, that
// declares the mutants that cannot change behaviour.
const EquivalentFile = "equivalent-mutants.md"

// runMutate is statecraft test --mutate (and --list): mutants of the rule
// files the suite loads, the suite run against each.
func runMutate(dirs []string, f mutateFlags, stdout, stderr io.Writer) error {
	if f.format != "text" && f.format != "json" {
		return fmt.Errorf("--format is text or json, not %q", f.format)
	}
	ctx := context.Background()
	start := time.Now()
	var machines []string
	for _, m := range f.machines {
		for _, p := range strings.Split(m, ",") {
			if p = strings.TrimSpace(p); p != "" {
				machines = append(machines, p)
			}
		}
	}
	su, err := mutate.LoadSuite(ctx, dirs, machines)
	if err != nil {
		return err
	}
	ms, err := su.Mutants(machines)
	if err != nil {
		return err
	}
	if f.list {
		if f.format == "json" {
			return mutate.WriteListJSON(stdout, ms)
		}
		mutate.WriteList(stdout, ms)
		return nil
	}
	equiv := map[string]string{}
	files := []string{}
	if f.equivalent != "" {
		files = append(files, f.equivalent)
	} else {
		for _, d := range dirs {
			p := filepath.Join(d, EquivalentFile)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				files = append(files, p)
			}
		}
	}
	for _, p := range files {
		e, err := mutate.ReadEquivalent(p)
		if err != nil {
			return err
		}
		for id, why := range e {
			equiv[id] = why
		}
	}
	fmt.Fprintf(stderr, "mutate: %d mutants; running the %d scenarios that load them unmutated\n", len(ms), su.Scenarios())
	if err := su.Baseline(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mutate: the suite passes (%s); running it against the mutants\n", time.Since(start).Round(time.Second))
	rep, err := su.Run(ctx, ms, mutate.Options{Jobs: f.jobs, Machines: machines, Budget: f.budget, Progress: stderr,
		Equivalent: equiv, SkipEquivalent: f.skipEquivalent})
	if err != nil {
		return err
	}
	_, total := rep.Scores()
	fmt.Fprintf(stderr, "mutate: done in %s: %d killed, %d trace-only, %d survived, %d equivalent, %d rejected\n",
		time.Since(start).Round(time.Second), total.Killed, total.TraceOnly, total.Survived, total.Equivalent, total.Rejected)
	if f.format == "json" {
		if err := rep.WriteJSON(stdout); err != nil {
			return err
		}
	} else {
		rep.WriteText(stdout)
	}
	if rep.Failed() {
		return ExitError{1}
	}
	return nil
}
