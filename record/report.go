package record

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// The renderings of a replay report: text for a terminal, Markdown for a
// review, and the document -o json|yaml prints.

func (r *Report) newWhat() string {
	var parts []string
	if len(r.NewRules) > 0 {
		parts = append(parts, "--rules "+strings.Join(r.NewRules, ","))
	}
	for _, p := range r.NewParams {
		parts = append(parts, "--param "+p)
	}
	return strings.Join(parts, " ")
}

func (r *Report) header() string {
	s := fmt.Sprintf("recording %s: %s to %s, %d decisions about %d objects", r.Dir,
		r.Start.UTC().Format(time.RFC3339), r.End.UTC().Format(time.RFC3339), len(r.Recorded), r.Objects)
	if r.Dropped > 0 {
		s += fmt.Sprintf(" (from its checkpoint after %d rotated segments)", r.Dropped)
	}
	return s
}

// WriteText renders the report for a terminal.
func (r *Report) WriteText(w io.Writer) {
	fmt.Fprintf(w, "statecraft replay %s\n%s\n", r.Dir, r.header())
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
	fmt.Fprintln(w)
	if r.Faithful() {
		fmt.Fprintf(w, "fidelity: replayed with the rules it was recorded under, reconciling when the controller did, the simulator reproduces the %d recorded decisions\n",
			len(r.Recorded))
	} else {
		fmt.Fprintf(w, "fidelity: FIDELITY BUG: replayed with the rules it was recorded under, reconciling when the controller did, the simulator does not reproduce what the engine decided on the cluster: %d of %d objects diverge. The simulator (or the controller) is wrong, not the rules.\n",
			len(r.Divergences), r.Objects)
		writeDiffsText(w, r.Divergences, "RECORDED", "REPLAYED")
	}
	if len(r.NewRules) == 0 && len(r.NewParams) == 0 {
		return
	}
	fmt.Fprintln(w)
	if !r.BehaviourChanged() {
		fmt.Fprintf(w, "behaviour: with %s, every object decides as with the recorded rules\n", r.newWhat())
		return
	}
	fmt.Fprintf(w, "behaviour: with %s, %s differently (both runs reconciling where the simulator schedules them)\n", r.newWhat(), objectsDecide(len(r.Changed)))
	writeDiffsText(w, r.Changed, "RECORDED RULES", "NEW")
}

func writeDiffsText(w io.Writer, diffs []ObjectDiff, oldName, newName string) {
	for _, d := range diffs {
		fmt.Fprintf(w, "\n  %s\n", d.Object)
		if d.Note != "" {
			fmt.Fprintf(w, "    (%s)\n", d.Note)
		}
		rows := hunks(d.Rows, 2)
		width := len(oldName)
		for _, row := range rows {
			if row != nil && row.Old != nil {
				width = max(width, len([]rune(row.Old.Text(0))))
			}
		}
		fmt.Fprintf(w, "    %-*s │ %s\n", width, oldName, newName)
		for _, row := range rows {
			switch {
			case row == nil:
				fmt.Fprintf(w, "    %-*s │ %s\n", width, "…", "…")
			case row.Same:
				fmt.Fprintf(w, "    %-*s │ %s\n", width, row.Old.Text(0), "(same)")
			default:
				fmt.Fprintf(w, "  ≠ %-*s │ %s\n", width, sideText(row.Old), sideText(row.New))
				if row.Note != "" {
					fmt.Fprintf(w, "    %-*s   %s\n", width, "", row.Note)
				}
			}
		}
	}
}

func sideText(d *Decision) string {
	if d == nil {
		return "—"
	}
	return d.Text(0)
}

// hunks keeps the differing rows with ctx equal rows around them; nil
// marks skipped rows.
func hunks(rows []Row, ctx int) []*Row {
	keep := make([]bool, len(rows))
	for i, r := range rows {
		if !r.Same {
			for k := max(0, i-ctx); k <= min(len(rows)-1, i+ctx); k++ {
				keep[k] = true
			}
		}
	}
	var out []*Row
	skipped := false
	for i := range rows {
		if keep[i] {
			out = append(out, &rows[i])
			skipped = false
		} else if !skipped {
			out = append(out, nil)
			skipped = true
		}
	}
	return out
}

// WriteMarkdown renders the report for a review (a pull-request comment).
func (r *Report) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "### statecraft replay `%s`\n\n%s.\n\n", r.Dir, strings.TrimPrefix(r.header(), "recording "+r.Dir+": "))
	for _, warn := range r.Warnings {
		fmt.Fprintf(w, "> warning: %s\n\n", warn)
	}
	if r.Faithful() {
		fmt.Fprintf(w, "**Fidelity:** replayed with the rules it was recorded under, reconciling when the controller did, the simulator reproduces the %d recorded decisions.\n",
			len(r.Recorded))
	} else {
		fmt.Fprintf(w, "**Fidelity bug:** replayed with the rules it was recorded under, reconciling when the controller did, the simulator does not reproduce what the engine decided on the cluster: %d of %d objects diverge. The simulator (or the controller) is wrong, not the rules.\n",
			len(r.Divergences), r.Objects)
		writeDiffsMarkdown(w, r.Divergences, "recorded", "replayed")
	}
	if len(r.NewRules) == 0 && len(r.NewParams) == 0 {
		return
	}
	if !r.BehaviourChanged() {
		fmt.Fprintf(w, "\n**Behaviour:** with `%s`, every object decides as with the recorded rules.\n", r.newWhat())
		return
	}
	fmt.Fprintf(w, "\n**Behaviour:** with `%s`, %s differently (both runs reconciling where the simulator schedules them).\n", r.newWhat(), objectsDecide(len(r.Changed)))
	writeDiffsMarkdown(w, r.Changed, "recorded rules", "new")
}

func writeDiffsMarkdown(w io.Writer, diffs []ObjectDiff, oldName, newName string) {
	for _, d := range diffs {
		fmt.Fprintf(w, "\n<details><summary><code>%s</code></summary>\n\n", d.Object)
		if d.Note != "" {
			fmt.Fprintf(w, "%s\n\n", mdText(d.Note))
		}
		fmt.Fprintf(w, "| %s | %s |\n|---|---|\n", oldName, newName)
		for _, row := range hunks(d.Rows, 2) {
			switch {
			case row == nil:
				fmt.Fprintln(w, "| … | … |")
			case row.Same:
				fmt.Fprintf(w, "| %s | *(same)* |\n", mdCell(row.Old.Text(0)))
			default:
				n := mdCell(sideText(row.New))
				if row.Note != "" {
					n += " — " + mdText(row.Note)
				}
				fmt.Fprintf(w, "| **%s** | **%s** |\n", mdCell(sideText(row.Old)), n)
			}
		}
		fmt.Fprintln(w, "\n</details>")
	}
}

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func mdText(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

// Document is the report as -o json|yaml prints it.
func (r *Report) Document() any {
	doc := struct {
		*Report
		Faithful         bool `json:"faithful"`
		BehaviourChanged bool `json:"behaviourChanged"`
	}{r, r.Faithful(), r.BehaviourChanged()}
	if doc.Recorded == nil {
		doc.Recorded = []Decision{}
	}
	if doc.Replayed == nil {
		doc.Replayed = []Decision{}
	}
	if doc.Divergences == nil {
		doc.Divergences = []ObjectDiff{}
	}
	return doc
}

func objectsDecide(n int) string {
	if n == 1 {
		return "1 object decides"
	}
	return fmt.Sprintf("%d objects decide", n)
}
