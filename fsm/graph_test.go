package fsm_test

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/textdiff"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func compileRef(t *testing.T, ref string) []*fsm.Machine {
	t.Helper()
	f, diags := rules.LoadRef(ref)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	return ms
}

// TestGraphGolden compares the Mermaid and DOT graphs of the shipped
// objectpatch policy with testdata/*.golden (go test ./fsm -run Graph
// -update rewrites them).
func TestGraphGolden(t *testing.T) {
	ms := compileRef(t, "objectpatch")
	for _, c := range []struct {
		golden string
		write  func(io.Writer, *fsm.Machine) error
	}{
		{"objectpatch.mermaid.golden", fsm.WriteMermaid},
		{"objectpatch.dot.golden", fsm.WriteDOT},
	} {
		var b bytes.Buffer
		for _, m := range ms {
			if err := c.write(&b, m); err != nil {
				t.Fatal(err)
			}
		}
		// Deterministic: a second rendering gives the same bytes.
		var again bytes.Buffer
		for _, m := range ms {
			c.write(&again, m)
		}
		if !bytes.Equal(b.Bytes(), again.Bytes()) {
			t.Errorf("%s: two renderings differ", c.golden)
		}
		path := filepath.Join("testdata", c.golden)
		if *update {
			if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (run go test ./fsm -run Graph -update)", err)
		}
		if !bytes.Equal(want, b.Bytes()) {
			t.Errorf("%s differs (go test ./fsm -run Graph -update rewrites it):\n%s", c.golden, textdiff.LineDiff(string(want), b.String()))
		}
	}
}

// TestGraphEscaping checks that names with quotes and other special
// characters give well-formed DOT and Mermaid.
func TestGraphEscaping(t *testing.T) {
	src := `machine "m" {
  resource "example.com/v1" "W" {
    scope = Namespaced
  }
  state "Waiting" {
    initial = true
  }
  state "end" {
    final = true
  }
  transition "say \"hi\"; #1" {
    from   = ["*"]
    when   = "self.spec.x"
    to     = end
  }
}
`
	f, diags := rules.Parse([]byte(src), "m.hcl")
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	ms, diags := fsm.Compile(f)
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	var mer, dot bytes.Buffer
	fsm.WriteMermaid(&mer, ms[0])
	fsm.WriteDOT(&dot, ms[0])
	wantMer := "stateDiagram-v2\n" +
		"    %% machine m\n" +
		"    state \"Waiting (initial)\" as Waiting\n" +
		"    state \"end (final)\" as s1\n" +
		"    state \"any state\" as any_state\n" +
		"    [*] --> Waiting\n" +
		"    any_state --> s1: say #quot;hi#quot;#59; #35;1\n" +
		"    s1 --> [*]\n"
	if mer.String() != wantMer {
		t.Errorf("mermaid:\n%s\nwant:\n%s", mer.String(), wantMer)
	}
	wantDot := "digraph \"m\" {\n" +
		"  rankdir=LR;\n" +
		"  node [shape=box, style=rounded];\n" +
		"  \"__start\" [shape=point, label=\"\"];\n" +
		"  \"Waiting\" [label=\"Waiting\\ninitial\"];\n" +
		"  \"end\" [label=\"end\\nfinal\", peripheries=2];\n" +
		"  \"*\" [label=\"any state\", shape=plaintext];\n" +
		"  \"__start\" -> \"Waiting\";\n" +
		"  \"*\" -> \"end\" [label=\"say \\\"hi\\\"; #1\"];\n" +
		"}\n"
	if dot.String() != wantDot {
		t.Errorf("dot:\n%s\nwant:\n%s", dot.String(), wantDot)
	}
}
