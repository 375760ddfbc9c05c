package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/scenario"
	"github.com/statecraft/statecraft/textdiff"
)

// The two renderings of a diff report: text for a terminal, Markdown for a
// pull-request comment.

func traceStrings(ls []scenario.Line) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.String()
	}
	return out
}

func (r *diffReport) structuralByMachine() ([]string, map[string][]rules.Change) {
	by := map[string][]rules.Change{}
	var order []string
	for _, c := range r.structural {
		if _, ok := by[c.Machine]; !ok {
			order = append(order, c.Machine)
		}
		by[c.Machine] = append(by[c.Machine], c)
	}
	return order, by
}

func (r *diffReport) writeText(w io.Writer) {
	fmt.Fprintf(w, "statecraft diff %s %s\n\n", r.old, r.new)
	if len(r.structural) == 0 {
		fmt.Fprintln(w, "structure: no changes")
	} else {
		fmt.Fprintln(w, "structure:")
		order, by := r.structuralByMachine()
		for _, m := range order {
			fmt.Fprintf(w, "  machine %s\n", m)
			for _, c := range by[m] {
				fmt.Fprintf(w, "    %s %s\n", c.Kind, c.What)
				for _, d := range c.Detail {
					fmt.Fprintf(w, "        %s\n", d)
				}
			}
		}
	}
	fmt.Fprintf(w, "\nbehaviour: %d of %d scenarios differ (%d others load neither version)\n", len(r.differ), r.run, r.unaffected)
	for _, d := range r.differ {
		fmt.Fprintf(w, "\n  %s\n", d.path)
		if d.oldErr != "" || d.newErr != "" {
			fmt.Fprintf(w, "    OLD: %s\n    NEW: %s\n", orOK(d.oldErr), orOK(d.newErr))
			continue
		}
		ops := textdiff.Hunks(textdiff.Align(traceStrings(d.oldTrace), traceStrings(d.newTrace)), 2)
		width := len("OLD")
		for _, op := range ops {
			if op != nil {
				width = max(width, len([]rune(op.Old)))
			}
		}
		fmt.Fprintf(w, "    %-*s │ %s\n", width, "OLD", "NEW")
		for _, op := range ops {
			switch {
			case op == nil:
				fmt.Fprintf(w, "    %-*s │ %s\n", width, "…", "…")
			case op.Eq:
				fmt.Fprintf(w, "    %-*s │ %s\n", width, op.Old, "(same)")
			default:
				mk := "≠"
				fmt.Fprintf(w, "  %s %-*s │ %s\n", mk, width, orDash(op.Old), orDash(op.New))
			}
		}
	}
}

func (r *diffReport) writeMarkdown(w io.Writer) {
	fmt.Fprintf(w, "### statecraft diff `%s` → `%s`\n\n", r.old, r.new)
	if len(r.structural) == 0 {
		fmt.Fprintln(w, "**Structure:** no changes.")
	} else {
		fmt.Fprintln(w, "**Structure:**")
		fmt.Fprintln(w)
		order, by := r.structuralByMachine()
		for _, m := range order {
			fmt.Fprintf(w, "- machine `%s`\n", m)
			for _, c := range by[m] {
				verb := map[string]string{"+": "added", "-": "removed", "~": "changed"}[c.Kind]
				fmt.Fprintf(w, "  - %s %s\n", verb, mdCode(c.What))
				for _, d := range c.Detail {
					fmt.Fprintf(w, "    - %s\n", mdCode(d))
				}
			}
		}
	}
	fmt.Fprintf(w, "\n**Behaviour:** %d of %d scenarios differ (%d others load neither version).\n", len(r.differ), r.run, r.unaffected)
	for _, d := range r.differ {
		fmt.Fprintf(w, "\n<details><summary><code>%s</code></summary>\n\n", d.path)
		if d.oldErr != "" || d.newErr != "" {
			fmt.Fprintf(w, "- OLD: %s\n- NEW: %s\n\n</details>\n", mdCell(orOK(d.oldErr)), mdCell(orOK(d.newErr)))
			continue
		}
		fmt.Fprintln(w, "| OLD | NEW |")
		fmt.Fprintln(w, "|---|---|")
		for _, op := range textdiff.Hunks(textdiff.Align(traceStrings(d.oldTrace), traceStrings(d.newTrace)), 2) {
			switch {
			case op == nil:
				fmt.Fprintln(w, "| … | … |")
			case op.Eq:
				fmt.Fprintf(w, "| %s | *(same)* |\n", mdCell(op.Old))
			default:
				fmt.Fprintf(w, "| **%s** | **%s** |\n", mdCell(orDash(op.Old)), mdCell(orDash(op.New)))
			}
		}
		fmt.Fprintln(w, "\n</details>")
	}
}

func mdCode(s string) string { return "`" + strings.ReplaceAll(s, "`", "'") + "`" }

func mdCell(s string) string {
	s = strings.ReplaceAll(s, "|", "\\|")
	return "`" + strings.ReplaceAll(s, "`", "'") + "`"
}

func orOK(s string) string {
	if s == "" {
		return "runs"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
