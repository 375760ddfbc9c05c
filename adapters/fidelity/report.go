package fidelity

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Tally counts the checks of one class.
type Tally struct {
	Checked, Agree, Allowed, Disagree int
	// FirstChecked and FirstAgree count the checks that are not
	// downstream of an earlier difference (Check.Downstream); FirstAgree
	// includes the allowed ones.
	FirstChecked, FirstAgree int
}

// FirstOrder is the agreement, in percent, of the checks that are not
// downstream of an earlier difference.
func (t *Tally) FirstOrder() float64 {
	if t == nil || t.FirstChecked == 0 {
		return 100
	}
	return 100 * float64(t.FirstAgree) / float64(t.FirstChecked)
}

// Agreement is the share of checks that agree or are allowlisted, in
// percent (100 when nothing was checked).
func (t *Tally) Agreement() float64 {
	if t == nil || t.Checked == 0 {
		return 100
	}
	return 100 * float64(t.Agree+t.Allowed) / float64(t.Checked)
}

func (t *Tally) add(c Check, allowed bool) {
	t.Checked++
	if !c.Downstream {
		t.FirstChecked++
		if c.Agree || allowed {
			t.FirstAgree++
		}
	}
	switch {
	case c.Agree:
		t.Agree++
	case allowed:
		t.Allowed++
	default:
		t.Disagree++
	}
}

// Group is every occurrence of one disagreement signature.
type Group struct {
	Signature string
	Class     Class
	Count     int
	// Downstream counts the occurrences downstream of an earlier
	// difference (Check.Downstream).
	Downstream int
	Sequences  []int // the indexes of the sequences it occurs in, sorted
	Allowed    *AllowEntry
	// where it first occurs (not downstream, when it ever occurs so)
	seq       Sequence
	stepID    int
	firstDown bool
	// Example are the notes of that occurrence (the messages, for an
	// outcome; the values that differ, for the others).
	Example []string
	// Repro is its shrunk reproduction, when it was shrunk.
	Repro []string
}

// Report is what Measure found.
type Report struct {
	Seed              uint64
	Sequences, Length int
	Requests, Probes  int
	Tally             map[Class]*Tally
	KindTally         map[string]map[Class]*Tally
	Groups            []*Group
	Allow             *Allowlist
}

// Measure runs sequences 0..n-1 of seed, of length steps each, on both
// sides and tallies every check.
func Measure(ctx context.Context, h *Harness, seed uint64, n, length int) (*Report, error) {
	rep := &Report{Seed: seed, Sequences: n, Length: length, Tally: map[Class]*Tally{}, KindTally: map[string]map[Class]*Tally{}, Allow: h.Allow}
	for _, c := range Classes {
		rep.Tally[c] = &Tally{}
	}
	if h.Allow != nil {
		for _, e := range h.Allow.Entries {
			e.Used = 0
		}
	}
	groups := map[string]*Group{}
	for i := 0; i < n; i++ {
		seq := Generate(seed, i, length)
		run, err := h.Run(ctx, seq.Steps)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", seq.Name(), err)
		}
		rep.Requests += len(run.Obs)
		for _, o := range run.Obs {
			rep.Probes += len(o.Probes)
		}
		kindOf := map[int]string{}
		for _, st := range seq.Steps {
			kindOf[st.ID] = st.Kind
		}
		for _, c := range run.Checks {
			var allowed *AllowEntry
			if !c.Agree {
				allowed = h.Allow.Match(c.Signature)
				if allowed != nil {
					allowed.Used++
				}
			}
			rep.Tally[c.Class].add(c, allowed != nil)
			kt := rep.KindTally[kindOf[c.Step]]
			if kt == nil {
				kt = map[Class]*Tally{}
				rep.KindTally[kindOf[c.Step]] = kt
			}
			if kt[c.Class] == nil {
				kt[c.Class] = &Tally{}
			}
			kt[c.Class].add(c, allowed != nil)
			if c.Agree {
				continue
			}
			g := groups[c.Signature]
			if g == nil {
				g = &Group{Signature: c.Signature, Class: c.Class, Allowed: allowed, seq: seq, stepID: c.Step, firstDown: c.Downstream, Example: c.Notes}
				groups[c.Signature] = g
			}
			if g.firstDown && !c.Downstream {
				// reproduce the first occurrence that is not downstream
				g.seq, g.stepID, g.firstDown, g.Example = seq, c.Step, false, c.Notes
			}
			g.Count++
			if c.Downstream {
				g.Downstream++
			}
			if len(g.Sequences) == 0 || g.Sequences[len(g.Sequences)-1] != i {
				g.Sequences = append(g.Sequences, i)
			}
		}
	}
	order := map[Class]int{}
	for i, c := range Classes {
		order[c] = i
	}
	for _, g := range groups {
		rep.Groups = append(rep.Groups, g)
	}
	sort.Slice(rep.Groups, func(i, j int) bool {
		a, b := rep.Groups[i], rep.Groups[j]
		if order[a.Class] != order[b.Class] {
			return order[a.Class] < order[b.Class]
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Signature < b.Signature
	})
	return rep, nil
}

// ShrinkGroups shrinks, in each class, the first occurrence of up to
// perClass of its most frequent groups (every group when perClass < 0)
// that are neither allowlisted nor seen only downstream of another, and
// that pass keep when it is set; and renders their reproductions.
func (rep *Report) ShrinkGroups(ctx context.Context, h *Harness, perClass int, keep func(*Group) bool) error {
	done := map[Class]int{}
	for _, g := range rep.Groups {
		if g.Allowed != nil || g.Downstream == g.Count || g.Repro != nil {
			continue
		}
		if perClass >= 0 && done[g.Class] >= perClass {
			continue
		}
		if keep != nil && !keep(g) {
			continue
		}
		lines, err := Reproduce(ctx, h, g.seq, g.stepID, g.Signature)
		if err != nil {
			return err
		}
		g.Repro = lines
		done[g.Class]++
	}
	return nil
}

// WriteTable prints the agreement per class.
func (rep *Report) WriteTable(w io.Writer) {
	fmt.Fprintf(w, "fidelity: seed %d, %d sequences of %d requests: %d requests to each side, %d reads after deletes\n",
		rep.Seed, rep.Sequences, rep.Length, rep.Requests, rep.Probes)
	fmt.Fprintf(w, "%-16s %8s %8s %8s %8s %10s %12s\n", "class", "checked", "agree", "allowed", "disagree", "agreement", "first-order")
	for _, c := range Classes {
		t := rep.Tally[c]
		fmt.Fprintf(w, "%-16s %8d %8d %8d %8d %9.1f%% %11.1f%%\n", c, t.Checked, t.Agree, t.Allowed, t.Disagree, t.Agreement(), t.FirstOrder())
	}
	fmt.Fprintln(w, "agreement: (agree + allowed) / checked; first-order: the same without the checks downstream of an earlier")
	fmt.Fprintln(w, "difference in outcome or deletion on the same object")
}

// WriteKinds prints the agreement per kind and class.
func (rep *Report) WriteKinds(w io.Writer) {
	fmt.Fprintf(w, "%-24s", "kind")
	short := map[Class]string{ClassOutcome: "outcome", ClassShape: "shape", ClassContent: "content", ClassDefaulting: "default",
		ClassGeneration: "gen", ClassRV: "rv", ClassList: "list", ClassDeletion: "delete", ClassManaged: "managed"}
	for _, c := range Classes {
		fmt.Fprintf(w, " %8s", short[c])
	}
	fmt.Fprintln(w)
	for _, k := range Kinds {
		kt := rep.KindTally[k.Kind]
		fmt.Fprintf(w, "%-24s", k.Kind)
		for _, c := range Classes {
			if t := kt[c]; t != nil && t.Checked > 0 {
				fmt.Fprintf(w, " %7.1f%%", t.Agreement())
			} else {
				fmt.Fprintf(w, " %8s", "-")
			}
		}
		fmt.Fprintln(w)
	}
}

// WriteGroups prints every disagreement signature with its count, the
// allowlist entry that explains it, and its reproduction when shrunk.
func (rep *Report) WriteGroups(w io.Writer) {
	var first, down []*Group
	for _, g := range rep.Groups {
		if g.Downstream < g.Count {
			first = append(first, g)
		} else {
			down = append(down, g)
		}
	}
	section := func(title string, groups []*Group, examples bool) {
		fmt.Fprintf(w, "%s: %d (count, of which downstream, in how many sequences, signature)\n", title, len(groups))
		for _, g := range groups {
			mark := ""
			if g.Allowed != nil {
				mark = fmt.Sprintf("  [allowlisted, line %d]", g.Allowed.Line)
			}
			fmt.Fprintf(w, "%6d %5d %4d  %s  [sequence %d step %d]%s\n", g.Count, g.Downstream, len(g.Sequences), g.Signature, g.seq.Index, g.stepID, mark)
			for _, l := range g.Repro {
				fmt.Fprintf(w, "                   %s\n", l)
			}
			if g.Repro == nil && examples {
				for i, l := range g.Example {
					if i == 3 {
						fmt.Fprintf(w, "                   … %d more\n", len(g.Example)-3)
						break
					}
					if len(l) > 220 {
						l = l[:220] + "…"
					}
					fmt.Fprintf(w, "                   %s\n", l)
				}
			}
		}
	}
	section("disagreements", first, true)
	fmt.Fprintln(w)
	section("disagreements seen only downstream of an earlier one", down, false)
	if rep.Allow != nil {
		for _, e := range rep.Allow.Entries {
			if e.Used == 0 {
				fmt.Fprintf(w, "allowlist line %d matched nothing: %s\n", e.Line, e.Pattern)
			}
		}
	}
}

// Reproduce shrinks the prefix of seq that ends at stepID to the fewest
// steps that still show the disagreement signature, and renders them with
// both sides' answers.
func Reproduce(ctx context.Context, h *Harness, seq Sequence, stepID int, signature string) ([]string, error) {
	var prefix []Step
	for _, st := range seq.Steps {
		prefix = append(prefix, st)
		if st.ID == stepID {
			break
		}
	}
	steps, err := Shrink(ctx, h, prefix, signature)
	if err != nil {
		return nil, err
	}
	run, err := h.Run(ctx, steps)
	if err != nil {
		return nil, err
	}
	lines := []string{fmt.Sprintf("reproduction (%s, %d of %d requests):", seq.Name(), len(steps), len(prefix))}
	if !run.has(signature) {
		lines = append(lines, "  (not reproduced: the disagreement depends on more than the sequence)")
	}
	shown := false
	for i, o := range run.Obs {
		lines = append(lines, fmt.Sprintf("%2d. %s", i+1, o.Step.Describe()))
		lines = append(lines, fmt.Sprintf("      server: %s", run.result(Server, o.Step, o.Res[Server])))
		lines = append(lines, fmt.Sprintf("      sim:    %s", run.result(Sim, o.Step, o.Res[Sim])))
		if shown {
			continue
		}
		for _, c := range run.Checks {
			if c.Step == o.Step.ID && !c.Agree && c.Signature == signature {
				if c.Class == ClassOutcome {
					shown = true // the answers above are the notes
					break
				}
				for _, n := range c.Notes {
					lines = append(lines, "      "+strings.ReplaceAll(n, run.Token, "$T"))
				}
				shown = true
				break
			}
		}
	}
	return lines, nil
}

// Trace renders a run step by step: each request, both answers, and every
// disagreement with its notes.
func (r *Run) Trace() []string {
	var lines []string
	for i, o := range r.Obs {
		lines = append(lines, fmt.Sprintf("%2d. [step %d] %s", i+1, o.Step.ID, o.Step.Describe()))
		lines = append(lines, fmt.Sprintf("      server: %s", r.result(Server, o.Step, o.Res[Server])))
		lines = append(lines, fmt.Sprintf("      sim:    %s", r.result(Sim, o.Step, o.Res[Sim])))
		for _, c := range r.Checks {
			if c.Step != o.Step.ID || c.Agree {
				continue
			}
			down := ""
			if c.Downstream {
				down = " (downstream)"
			}
			lines = append(lines, "      ≠ "+c.Signature+down)
			for _, n := range c.Notes {
				lines = append(lines, "          "+strings.ReplaceAll(n, r.Token, "$T"))
			}
		}
	}
	return lines
}
