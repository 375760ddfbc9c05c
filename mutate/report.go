package mutate

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Diff is the mutant as a unified diff of its rule file, with two lines of
// context.
func (m *Mutant) Diff() string { return unifiedDiff(m.File, m.file.src, m.Source(), 2) }

func (m *Mutant) focusText() string {
	if m.focus.transition != "" {
		return "transition " + strconv.Quote(m.focus.transition)
	}
	return "state " + strconv.Quote(m.focus.state)
}

func (m *Mutant) focusVerb() string {
	if m.focus.transition != "" {
		return "ever tries it"
	}
	return "ever enters it or steps from it"
}

// Where is FILE:LINE:COLUMN of the change.
func (m *Mutant) Where() string {
	return fmt.Sprintf("%s:%d:%d", m.File, m.Pos.Line, m.Pos.Column)
}

// Score is one machine's figures.
type Score struct {
	Machine                                                            string
	Mutants, Killed, TraceOnly, Survived, Equivalent, Rejected, NotRun int
}

// Percent is killed among the mutants that could be killed: all but the
// equivalent, rejected and not run ones (100 when there are none).
func (s Score) Percent() float64 {
	n := s.Killed + s.TraceOnly + s.Survived
	if n == 0 {
		return 100
	}
	return 100 * float64(s.Killed) / float64(n)
}

// Scores are the figures per machine, in the order the mutants came, and
// the total.
func (r *Report) Scores() ([]Score, Score) {
	var out []Score
	idx := map[string]int{}
	total := Score{Machine: "total"}
	for _, res := range r.Results {
		i, ok := idx[res.Mutant.Machine]
		if !ok {
			i = len(out)
			idx[res.Mutant.Machine] = i
			out = append(out, Score{Machine: res.Mutant.Machine})
		}
		for _, s := range []*Score{&out[i], &total} {
			s.Mutants++
			switch res.Status {
			case Killed:
				s.Killed++
			case TraceOnly:
				s.TraceOnly++
			case Survived:
				s.Survived++
			case Equivalent:
				s.Equivalent++
			case Rejected:
				s.Rejected++
			case NotRun:
				s.NotRun++
			}
		}
	}
	return out, total
}

// Failed reports whether a mutant that is not declared equivalent survived
// (or changed only golden text), or the equivalent-mutants file is stale.
func (r *Report) Failed() bool {
	_, t := r.Scores()
	return r.New() > 0 || t.NotRun > 0 || len(r.Stale) > 0 || len(r.Fixed) > 0
}

// New counts the survivors and trace-only mutants the known survivors file
// does not record.
func (r *Report) New() int {
	n := 0
	for _, res := range r.Results {
		if (res.Status == Survived || res.Status == TraceOnly) && !res.Known {
			n++
		}
	}
	return n
}

// WriteText prints the survivors, each with its diff, the mutants only
// golden text catches, the stale entries of the equivalent-mutants file,
// and the score per machine.
func (r *Report) WriteText(w io.Writer) {
	_, total := r.Scores()
	fmt.Fprintf(w, "%d mutants of %d rule files, %d scenarios\n", total.Mutants, r.Files, r.Scenarios)
	for _, st := range []Status{Survived, TraceOnly} {
		for _, res := range r.Results {
			if res.Status != st || res.Known {
				continue
			}
			m := res.Mutant
			fmt.Fprintf(w, "\n%s %s: %s\n", strings.ToUpper(string(st)), m.Where(), m.ID)
			fmt.Fprint(w, indent(m.Diff()))
			switch {
			case res.Runs == 0:
				fmt.Fprintf(w, "  no scenario exercises it (%s): none of the %d that load %s %s\n", m.focusText(), res.Loading, m.Machine, m.focusVerb())
			case st == Survived:
				fmt.Fprintf(w, "  no expectation fails and every trace is unchanged (%d of the %d scenarios that load %s run)\n", res.Runs, res.Loading, m.Machine)
			default:
				fmt.Fprintf(w, "  no expectation fails; only golden traces differ (%d of the %d scenarios that load %s run):\n", res.Runs, res.Loading, m.Machine)
				for _, t := range res.Traces {
					fmt.Fprintf(w, "    %s\n", t)
				}
			}
		}
	}
	known := 0
	for _, res := range r.Results {
		if res.Known {
			known++
		}
	}
	if known > 0 {
		fmt.Fprintf(w, "\n%d known survivors (recorded, not yet killed):\n", known)
		for _, res := range r.Results {
			if res.Known {
				fmt.Fprintf(w, "known %s %s: %s\n", strings.ToLower(string(res.Status)), res.Mutant.Where(), res.Mutant.ID)
			}
		}
	}
	if len(r.Stale) > 0 {
		fmt.Fprintln(w)
		for _, s := range r.Stale {
			fmt.Fprintf(w, "STALE equivalent mutant %s\n", s)
		}
	}
	if len(r.Fixed) > 0 {
		fmt.Fprintln(w)
		for _, s := range r.Fixed {
			fmt.Fprintf(w, "KILLED known survivor %s (remove it from the known survivors file)\n", s)
		}
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "machine\tmutants\tkilled\ttrace-only\tsurvived\tequivalent\trejected\tnot run\tscore\t")
	scores, total := r.Scores()
	for _, s := range append(scores, total) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.1f%%\t\n", s.Machine, s.Mutants, s.Killed, s.TraceOnly, s.Survived, s.Equivalent, s.Rejected, s.NotRun, s.Percent())
	}
	tw.Flush()
}

func indent(s string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	if !strings.HasSuffix(b.String(), "\n") && b.Len() > 0 {
		b.WriteString("\n")
	}
	return b.String()
}

// jsonMutant is a mutant as --format json prints it.
type jsonMutant struct {
	ID      string   `json:"id"`
	File    string   `json:"file"`
	Line    int      `json:"line"`
	Column  int      `json:"column"`
	Machine string   `json:"machine"`
	Element string   `json:"element"`
	Attr    string   `json:"attribute,omitempty"`
	Kind    string   `json:"kind"`
	Before  string   `json:"before"`
	After   string   `json:"after"`
	Status  Status   `json:"status,omitempty"`
	By      string   `json:"killedBy,omitempty"`
	Why     string   `json:"why,omitempty"`
	Traces  []string `json:"traces,omitempty"`
	Reason  string   `json:"equivalentBecause,omitempty"`
	Runs    int      `json:"runs,omitempty"`
	Loading int      `json:"loading,omitempty"`
	Known   bool     `json:"knownSurvivor,omitempty"`
	Diff    string   `json:"diff"`
}

func toJSON(m *Mutant) jsonMutant {
	return jsonMutant{ID: m.ID, File: m.File, Line: m.Pos.Line, Column: m.Pos.Column, Machine: m.Machine,
		Element: m.Element, Attr: m.Attr, Kind: m.Kind, Before: m.Before, After: m.After, Diff: m.Diff()}
}

type jsonScore struct {
	Score
	Percent float64 `json:"score"`
}

// WriteJSON prints the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	var out struct {
		Files     int          `json:"files"`
		Scenarios int          `json:"scenarios"`
		Mutants   []jsonMutant `json:"mutants"`
		Machines  []jsonScore  `json:"machines"`
		Total     jsonScore    `json:"total"`
		Stale     []string     `json:"staleEquivalents"`
		Fixed     []string     `json:"killedKnownSurvivors"`
		New       int          `json:"newSurvivors"`
		Failed    bool         `json:"failed"`
	}
	out.Files, out.Scenarios, out.Stale, out.Failed = r.Files, r.Scenarios, append([]string{}, r.Stale...), r.Failed()
	out.Fixed, out.New = append([]string{}, r.Fixed...), r.New()
	out.Mutants = []jsonMutant{}
	for _, res := range r.Results {
		j := toJSON(res.Mutant)
		j.Status, j.By, j.Why, j.Traces, j.Reason, j.Runs, j.Loading, j.Known = res.Status, res.By, res.Why, res.Traces, res.Reason, res.Runs, res.Loading, res.Known
		out.Mutants = append(out.Mutants, j)
	}
	scores, total := r.Scores()
	for _, s := range scores {
		out.Machines = append(out.Machines, jsonScore{s, s.Percent()})
	}
	out.Total = jsonScore{total, total.Percent()}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteList prints the mutants without running them: FILE:LINE:COLUMN: ID.
func WriteList(w io.Writer, ms []*Mutant) {
	for _, m := range ms {
		fmt.Fprintf(w, "%s: %s\n", m.Where(), m.ID)
	}
	counts := map[string]int{}
	var order []string
	for _, m := range ms {
		if counts[m.Machine] == 0 {
			order = append(order, m.Machine)
		}
		counts[m.Machine]++
	}
	var parts []string
	for _, n := range order {
		parts = append(parts, fmt.Sprintf("%s %d", n, counts[n]))
	}
	fmt.Fprintf(w, "%d mutants (%s)\n", len(ms), strings.Join(parts, ", "))
}

// WriteListJSON prints the mutants without running them, as JSON.
func WriteListJSON(w io.Writer, ms []*Mutant) error {
	out := []jsonMutant{}
	for _, m := range ms {
		out = append(out, toJSON(m))
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// ReadEquivalent reads an equivalent-mutants file: Markdown where each
// declared mutant is a list item "- `ID`: reason", the reason going on over
// the indented lines below. It returns the reasons by ID.
func ReadEquivalent(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	lines := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	last := ""
	for sc.Scan() {
		line++
		t := sc.Text()
		if rest, ok := strings.CutPrefix(t, "- `"); ok {
			id, reason, found := strings.Cut(rest, "`")
			if !found {
				return nil, fmt.Errorf("%s:%d: an entry is \"- `ID`: reason\"; this one has no closing backquote", path, line)
			}
			if _, dup := out[id]; dup {
				return nil, fmt.Errorf("%s:%d: %s is declared twice (first at line %d)", path, line, id, lines[id])
			}
			out[id], lines[id], last = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(reason), ":")), line, id
			continue
		}
		if last != "" && strings.HasPrefix(t, "  ") && strings.TrimSpace(t) != "" {
			out[last] = strings.TrimSpace(out[last] + " " + strings.TrimSpace(t))
			continue
		}
		last = ""
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	for id, reason := range out {
		if reason == "" {
			return nil, fmt.Errorf("%s:%d: %s has no reason: say why it cannot change behaviour", path, lines[id], id)
		}
	}
	return out, nil
}

// ReadKnown reads a known survivors file: one mutant ID a line, as --list
// and the report print them; blank lines and lines starting with # are
// comments.
func ReadKnown(path string) (map[string]bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for i, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if out[l] {
			return nil, fmt.Errorf("%s:%d: %s is recorded twice", path, i+1, l)
		}
		out[l] = true
	}
	return out, nil
}

// WriteKnown prints the survivors and trace-only mutants of a run as a
// known survivors file (sorted, with a header saying what it is).
func (r *Report) WriteKnown(w io.Writer) {
	var ids []string
	for _, res := range r.Results {
		if res.Status == Survived || res.Status == TraceOnly {
			ids = append(ids, res.Mutant.ID)
		}
	}
	sort.Strings(ids)
	fmt.Fprintln(w, "# Mutants of the shipped policies the conformance suite does not kill yet, by ID")
	fmt.Fprintln(w, "# (statecraft test --mutate --known; spec/mutation.md, \"Known survivors\").")
	fmt.Fprintln(w, "# A new survivor fails the run; kill these with expect blocks and remove them.")
	for _, id := range ids {
		fmt.Fprintln(w, id)
	}
}
