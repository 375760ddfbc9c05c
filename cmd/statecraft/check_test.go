package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

func run(args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	code := Main(args, &out, &errb)
	return code, out.String(), errb.String()
}

const shippedObjectpatch = "../../rules/policies/objectpatch.hcl"

// TestCheckUndefinedName: check on a copy of the shipped objectpatch rule
// file with an undefined name in its first guard exits 1 and points at that
// name, FILE:LINE:COLUMN.
func TestCheckUndefinedName(t *testing.T) {
	src, err := os.ReadFile(shippedObjectpatch)
	if err != nil {
		t.Fatal(err)
	}
	const name = "no_such_name"
	lines := strings.Split(string(src), "\n")
	line, col := 0, 0
	for i, l := range lines {
		trimmed := strings.TrimSpace(l)
		if !strings.HasPrefix(trimmed, "when") {
			continue
		}
		q := strings.Index(l, `"`)
		if q < 0 || !strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(trimmed, "when")), "=") {
			continue
		}
		lines[i] = l[:q+1] + name + " && " + l[q+1:]
		line, col = i+1, utf8.RuneCountInString(l[:q+1])+1
		break
	}
	if line == 0 {
		t.Fatal("the shipped objectpatch policy has no quoted when guard")
	}
	path := filepath.Join(t.TempDir(), "objectpatch.hcl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run("check", path)
	if code != 1 {
		t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	want := fmt.Sprintf("%s:%d:%d: error: ", path, line, col)
	if !strings.Contains(stderr, want) || !strings.Contains(stderr, name) {
		t.Errorf("output does not point at %s (%s):\n%s", name, want, stderr)
	}

	code, stdout, _ = run("check", "--format", "json", path)
	if code != 1 {
		t.Fatalf("json: exit %d, want 1", code)
	}
	var diags []map[string]any
	if err := json.Unmarshal([]byte(stdout), &diags); err != nil {
		t.Fatalf("json: %v\n%s", err, stdout)
	}
	if len(diags) == 0 || diags[0]["severity"] != "error" || diags[0]["line"] != float64(line) || diags[0]["column"] != float64(col) {
		t.Errorf("json diagnostics: %v, want an error at %d:%d", diags, line, col)
	}
}

const warned = `machine "m" {
  resource "example.com/v1" "W" {
    scope = Namespaced
  }
  param "spare" {
    type    = int
    default = 1
  }
  state "A" {
    initial = true
  }
  state "B" {
    final = true
  }
  transition "go" {
    from = [A]
    when = "self.spec.go"
    to   = B
  }
}
`

// TestCheckWarnings: warnings are printed but do not fail check; JSON
// carries them with severity "warning".
func TestCheckWarnings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "w.hcl")
	if err := os.WriteFile(path, []byte(warned), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := run("check", path)
	if code != 0 {
		t.Fatalf("exit %d, want 0\n%s", code, stderr)
	}
	if want := path + ":5:3: warning: Unused param; "; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, ": ok") {
		t.Errorf("stdout: %q", stdout)
	}
	code, stdout, _ = run("check", "--format", "json", path)
	if code != 0 {
		t.Fatalf("json: exit %d", code)
	}
	var diags []map[string]any
	if err := json.Unmarshal([]byte(stdout), &diags); err != nil {
		t.Fatal(err)
	}
	if len(diags) != 1 || diags[0]["severity"] != "warning" || diags[0]["summary"] != "Unused param" || diags[0]["line"] != float64(5) {
		t.Errorf("json: %v", diags)
	}
}

// TestCheckShipped: the shipped objectpatch policy checks clean, by name.
func TestCheckShipped(t *testing.T) {
	code, stdout, stderr := run("check", "objectpatch")
	if code != 0 || stderr != "" || stdout != "objectpatch: ok\n" {
		t.Errorf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
}

// TestCheckLibraryResultField: a library function's result is typed, so
// check refuses a field of it that does not exist (upgrade.version's
// minorString misspelled) and points at it, while the same file spelled
// right checks clean.
func TestCheckLibraryResultField(t *testing.T) {
	const src = `machine "m" {
  resource "example.com/v1" "W" {
    scope = Namespaced
  }
  state "A" {
    initial = true
  }
  state "B" {
    final = true
  }
  transition "go" {
    from = [A]
    when = "upgrade.version(self.spec.version).FIELD == '1.10'"
    to   = B
  }
}
`
	dir := t.TempDir()
	for field, bad := range map[string]bool{"minorString": false, "minorStrng": true} {
		path := filepath.Join(dir, field+".hcl")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(src, "FIELD", field)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := run("check", path)
		if !bad {
			if code != 0 || stderr != "" {
				t.Errorf("%s: exit %d\nstdout: %s\nstderr: %s", field, code, stdout, stderr)
			}
			continue
		}
		if code != 1 {
			t.Fatalf("%s: exit %d, want 1\nstdout: %s\nstderr: %s", field, code, stdout, stderr)
		}
		if want := path + ":13:"; !strings.Contains(stderr, want) || !strings.Contains(stderr, field) {
			t.Errorf("%s: output does not point at the field (%s):\n%s", field, want, stderr)
		}
	}
}
