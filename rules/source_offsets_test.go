package rules

import (
	"strings"
	"testing"
)

// TestExprOffsetsPastNonASCII maps CEL offsets that follow a character of
// several bytes back into the file, in a quoted string and in a heredoc:
// every byte of the decoded text has its own offset.
func TestExprOffsetsPastNonASCII(t *testing.T) {
	src := `machine "m" {
  resource "example.com/v1" "W" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  let "q" {
    value = "'→ é' + target"
  }
  let "h" {
    value = <<-CEL
      '→ é' +
      target
    CEL
  }
}
`
	f, diags := Parse([]byte(src), "m.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	for _, l := range f.Machines[0].Lets {
		e := l.Value
		off := strings.Index(e.Source, "target")
		p := e.Pos(off)
		if got := src[p.Byte : p.Byte+len("target")]; got != "target" {
			t.Errorf("let %s: offset %d of %q maps to byte %d, %q", l.Name, off, e.Source, p.Byte, got)
		}
		if line := strings.Split(src, "\n")[p.Line-1]; !strings.HasPrefix(string([]rune(line)[p.Column-1:]), "target") {
			t.Errorf("let %s: line %d column %d is not at target: %q", l.Name, p.Line, p.Column, line)
		}
	}
}
