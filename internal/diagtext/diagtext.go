// Package diagtext renders diagnostics and text differences for people:
// one line per diagnostic (FILE:LINE:COLUMN: severity: summary; detail) and
// a compact line diff. It is shared by the CLI, the scenario suite and tests.
package diagtext

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Line renders one diagnostic on one line.
func Line(d *hcl.Diagnostic) string {
	sev := "error"
	if d.Severity == hcl.DiagWarning {
		sev = "warning"
	}
	pos := ""
	if d.Subject != nil {
		pos = fmt.Sprintf("%s:%d:%d: ", d.Subject.Filename, d.Subject.Start.Line, d.Subject.Start.Column)
	}
	s := fmt.Sprintf("%s%s: %s", pos, sev, d.Summary)
	if d.Detail != "" {
		s += "; " + d.Detail
	}
	return s
}

// LineDiff shows the lines of want and got that differ, prefixed - and +,
// with the line number; at most 40 lines.
func LineDiff(want, got string) string {
	w := strings.Split(want, "\n")
	g := strings.Split(got, "\n")
	var b strings.Builder
	shown := 0
	for i := 0; i < len(w) || i < len(g); i++ {
		var a, c string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			c = g[i]
		}
		if a == c {
			continue
		}
		if shown == 40 {
			b.WriteString("  ...\n")
			break
		}
		fmt.Fprintf(&b, "  %4d - %s\n  %4d + %s\n", i+1, a, i+1, c)
		shown++
	}
	return b.String()
}
