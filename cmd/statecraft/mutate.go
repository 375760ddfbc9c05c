package main

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/statecraft/statecraft/mutate"
)

// mutateFlags are the flags of statecraft test --mutate.
type mutateFlags struct {
	on, list, skipEquivalent bool
	machines                 []string
	format, equivalent       string
	known, writeKnown, match string
	jobs, sample             int
	budget                   time.Duration
}

// KnownFile is the file, at the top of a suite's folder, that records the
// mutants the suite does not kill yet: they do not fail a run, a new one
// does.
const KnownFile = "known-survivors.txt"

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
	all := ms
	if ms, err = selectMutants(ms, f.match, f.sample); err != nil {
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
	dropUnselected(equiv, all, ms)
	known := map[string]bool{}
	knownFiles := []string{}
	if f.known != "" {
		knownFiles = append(knownFiles, f.known)
	} else {
		for _, d := range dirs {
			p := filepath.Join(d, KnownFile)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				knownFiles = append(knownFiles, p)
			}
		}
	}
	for _, p := range knownFiles {
		k, err := mutate.ReadKnown(p)
		if err != nil {
			return err
		}
		for id := range k {
			known[id] = true
		}
	}
	if f.writeKnown != "" {
		known = nil // the run records every survivor afresh
	}
	fmt.Fprintf(stderr, "mutate: %d mutants; running the %d scenarios that load them unmutated\n", len(ms), su.Scenarios())
	if err := su.Baseline(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mutate: the suite passes (%s); running it against the mutants\n", time.Since(start).Round(time.Second))
	rep, err := su.Run(ctx, ms, mutate.Options{Jobs: f.jobs, Machines: machines, Budget: f.budget, Progress: stderr,
		Equivalent: equiv, SkipEquivalent: f.skipEquivalent, Known: known})
	if err != nil {
		return err
	}
	_, total := rep.Scores()
	fmt.Fprintf(stderr, "mutate: done in %s: %d killed, %d trace-only, %d survived (%d of them new), %d equivalent, %d rejected\n",
		time.Since(start).Round(time.Second), total.Killed, total.TraceOnly, total.Survived, rep.New(), total.Equivalent, total.Rejected)
	if f.writeKnown != "" {
		var b strings.Builder
		rep.WriteKnown(&b)
		if err := os.WriteFile(f.writeKnown, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	if f.format == "json" {
		if err := rep.WriteJSON(stdout); err != nil {
			return err
		}
	} else {
		rep.WriteText(stdout)
	}
	if rep.Failed() && f.writeKnown == "" {
		return ExitError{1}
	}
	return nil
}

// dropUnselected removes from equiv the mutants of all that selected
// leaves out: a declared equivalent that exists but that --sample or
// --match does not run is not stale; one that names no mutant at all
// stays, and is reported stale.
func dropUnselected(equiv map[string]string, all, selected []*mutate.Mutant) {
	in := make(map[string]bool, len(selected))
	for _, m := range selected {
		in[m.ID] = true
	}
	for _, m := range all {
		if !in[m.ID] {
			delete(equiv, m.ID)
		}
	}
}

// selectMutants keeps the mutants whose ID matches the regular expression
// match (when given) and, with sample N > 1, those whose ID hashes to 0 modulo N:
// a fixed subset that does not move when lines do.
func selectMutants(ms []*mutate.Mutant, match string, sample int) ([]*mutate.Mutant, error) {
	var re *regexp.Regexp
	if match != "" {
		var err error
		if re, err = regexp.Compile(match); err != nil {
			return nil, fmt.Errorf("--match: %v", err)
		}
	}
	var out []*mutate.Mutant
	for _, m := range ms {
		if re != nil && !re.MatchString(m.ID) {
			continue
		}
		if sample > 1 {
			h := fnv.New32a()
			h.Write([]byte(m.ID))
			if h.Sum32()%uint32(sample) != 0 {
				continue
			}
		}
		out = append(out, m)
	}
	return out, nil
}
