package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const unformatted = `machine "m" {
  resource "example.com/v1" "W" {
  scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "t" {
    from = [A]
    when = "self.spec.x"
    to = A
    after = "duration('1m')"
  }
}
`

const formatted = `machine "m" {
  resource "example.com/v1" "W" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  transition "t" {
    from  = [A]
    when  = "self.spec.x"
    to    = A
    after = "duration('1m')"
  }
}
`

func TestFmt(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.hcl")
	good := filepath.Join(dir, "good.hcl")
	os.WriteFile(bad, []byte(unformatted), 0o600)
	os.WriteFile(good, []byte(formatted), 0o644)

	// -check (one dash, as terraform spells it) writes nothing, names the
	// file that would change and exits 1.
	for _, flag := range []string{"-check", "--check"} {
		code, stdout, stderr := run("fmt", flag, bad, good)
		if code != 1 || stdout != bad+"\n" || stderr != "" {
			t.Errorf("fmt %s: exit %d, stdout %q, stderr %q", flag, code, stdout, stderr)
		}
		if b, _ := os.ReadFile(bad); string(b) != unformatted {
			t.Errorf("fmt %s changed the file", flag)
		}
	}
	// A folder stands for its *.hcl files.
	if code, stdout, _ := run("fmt", "-check", dir); code != 1 || stdout != bad+"\n" {
		t.Errorf("fmt -check DIR: exit %d, stdout %q", code, stdout)
	}

	// Without -check the file is rewritten in place, keeping its mode.
	code, stdout, stderr := run("fmt", bad, good)
	if code != 0 || stdout != bad+"\n" || stderr != "" {
		t.Errorf("fmt: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(bad); string(b) != formatted {
		t.Errorf("fmt wrote:\n%s\nwant:\n%s", b, formatted)
	}
	if st, _ := os.Stat(bad); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if code, stdout, _ := run("fmt", "-check", bad, good); code != 0 || stdout != "" {
		t.Errorf("after fmt, fmt -check: exit %d, stdout %q", code, stdout)
	}
}

func TestFmtErrors(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken.hcl")
	src := "machine \"m\" {\n  state \"A\" {\n"
	os.WriteFile(broken, []byte(src), 0o644)
	code, _, stderr := run("fmt", broken)
	if code != 1 || !strings.Contains(stderr, broken+":") || !strings.Contains(stderr, "error:") {
		t.Errorf("syntax error: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(broken); string(b) != src {
		t.Error("fmt rewrote a file with syntax errors")
	}
	if code, _, _ := run("fmt", "-bogus", broken); code != 2 {
		t.Errorf("unknown flag: exit %d, want 2", code)
	}
	if code, _, _ := run("fmt"); code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	if code, _, _ := run("fmt", filepath.Join(dir, "missing.hcl")); code == 0 {
		t.Error("missing file: exit 0")
	}
}

// TestFmtShipped: the shipped policies are formatted.
func TestFmtShipped(t *testing.T) {
	if code, stdout, stderr := run("fmt", "-check", "../../rules/policies"); code != 0 {
		t.Errorf("shipped policies would change (exit %d):\n%s%s", code, stdout, stderr)
	}
}
