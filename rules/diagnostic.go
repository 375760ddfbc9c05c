package rules

import (
	"fmt"

	"github.com/hashicorp/hcl/v2"
)

// DiagnosticLine renders one diagnostic for people on one line:
// FILE:LINE:COLUMN: severity: summary; detail.
func DiagnosticLine(d *hcl.Diagnostic) string {
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
