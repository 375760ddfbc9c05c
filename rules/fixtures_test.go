package rules_test

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

var marker = regexp.MustCompile(`#\s*(ERROR|WARNING):\s*(.+?)\s*$`)

// TestFixtures loads and compiles every file under testdata/. Each line
// marked "# ERROR: <summary>" (or WARNING) must get a diagnostic with that
// summary on that line, and every diagnostic must be marked.
func TestFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/*/*.hcl")
	if len(files) < 8 {
		t.Fatalf("found only %d fixtures", len(files))
	}
	for _, path := range files {
		t.Run(path, func(t *testing.T) {
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for i, line := range strings.Split(string(src), "\n") {
				if m := marker.FindStringSubmatch(line); m != nil {
					want[key(i+1, m[1], m[2])] = true
				}
			}
			f, diags := rules.Parse(src, path)
			if f != nil && !diags.HasErrors() {
				ms, d := fsm.Compile(f)
				diags = append(diags, d...)
				if !d.HasErrors() {
					for _, m := range ms {
						diags = append(diags, fsm.Analyze(m)...)
					}
				}
			}
			got := map[string]bool{}
			for _, d := range diags {
				if d.Subject == nil {
					t.Errorf("diagnostic without position: %s", d.Summary)
					continue
				}
				if d.Subject.Filename != path {
					t.Errorf("diagnostic in %q, want %q", d.Subject.Filename, path)
				}
				if d.Detail == "" {
					t.Errorf("diagnostic %q has no detail sentence", d.Summary)
				}
				sev := "ERROR"
				if d.Severity == hcl.DiagWarning {
					sev = "WARNING"
				}
				got[key(d.Subject.Start.Line, sev, d.Summary)] = true
			}
			for _, k := range sorted(want) {
				if !got[k] {
					t.Errorf("missing diagnostic %s", k)
				}
			}
			for _, k := range sorted(got) {
				if !want[k] {
					t.Errorf("unexpected diagnostic %s", k)
				}
			}
			if strings.Contains(path, "/valid/") && diags.HasErrors() {
				t.Errorf("valid fixture has errors")
			}
		})
	}
}

func key(line int, sev, summary string) string {
	return sev + " line " + itoa(line) + ": " + summary
}

func itoa(n int) string {
	s := ""
	for {
		s = string(rune('0'+n%10)) + s
		n /= 10
		if n == 0 {
			return s
		}
	}
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestCELErrorColumn checks that a CEL error points at the offending name,
// not at the start of the attribute, in quoted strings and heredocs.
func TestCELErrorColumn(t *testing.T) {
	cases := []struct {
		file      string
		line, col int
	}{
		{"testdata/invalid/undefined_name.hcl", 11, 32},
		{"testdata/heredoc_position.hcl", 11, 9},
	}
	for _, c := range cases {
		f, diags := rules.LoadFile(c.file)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", c.file, diags)
		}
		_, diags = fsm.Compile(f)
		if len(diags) != 1 {
			t.Fatalf("%s: want 1 diagnostic, got %v", c.file, diags)
		}
		s := diags[0].Subject
		if s.Start.Line != c.line || s.Start.Column != c.col {
			t.Errorf("%s: error at %d:%d, want %d:%d", c.file, s.Start.Line, s.Start.Column, c.line, c.col)
		}
	}
}

// TestEscapedCEL checks offsets through escape sequences in quoted strings.
func TestEscapedCEL(t *testing.T) {
	src := `machine "m" {
  resource "example.com/v1" "W" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "t" {
    from = [A]
    when = "self.spec.name == \"x\" && nope"
    to   = A
  }
}
`
	f, diags := rules.Parse([]byte(src), "e.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, diags = fsm.Compile(f)
	if len(diags) != 1 {
		t.Fatalf("want 1 diagnostic, got %v", diags)
	}
	if got := diags[0].Subject.Start; got.Line != 10 || got.Column != 40 {
		t.Errorf("at %d:%d, want 10:40", got.Line, got.Column)
	}
}
