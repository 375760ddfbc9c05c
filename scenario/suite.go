package scenario

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/statecraft/statecraft/rules"
	"github.com/statecraft/statecraft/textdiff"
)

// Ext is the file name ending of scenario files; the golden trace of
// NAME.scenario.hcl is NAME.trace beside it.
const Ext = ".scenario.hcl"

// GoldenPath returns the golden trace path of a scenario file.
func GoldenPath(scenarioPath string) string {
	return strings.TrimSuffix(scenarioPath, Ext) + ".trace"
}

// Find returns every scenario file below the given folders (or the files
// themselves), sorted.
func Find(paths ...string) ([]string, error) {
	var out []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, p)
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && strings.HasSuffix(path, Ext) {
				out = append(out, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(out)
	return out, nil
}

// Outcome is the verdict on one scenario of a suite.
type Outcome struct {
	Path     string
	Passed   bool
	Problems []string // diagnostics, failed expectations, golden differences
	Trace    []byte
	Result   *Result
}

// RenderTrace renders trace lines as the golden file holds them.
func RenderTrace(lines []Line) []byte {
	var b bytes.Buffer
	for _, l := range lines {
		b.WriteString(l.String())
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Check runs one scenario and compares its trace with its golden file,
// rewriting the golden file instead when update is true.
func Check(ctx context.Context, path string, update bool) Outcome {
	return CheckWith(ctx, path, update, Options{})
}

// CheckWith is Check with run options (a step tracer for coverage, say).
func CheckWith(ctx context.Context, path string, update bool, opts Options) Outcome {
	o := Outcome{Path: path}
	s, diags := Load(path)
	if !diags.HasErrors() && s.ExpectError != "" {
		// Nothing runs: the rule files must be refused.
		_, d := Compile(s)
		if p := ExpectedError(s, d); p != "" {
			o.Problems = append(o.Problems, p)
		}
		o.Passed = len(o.Problems) == 0
		return o
	}
	if !diags.HasErrors() {
		ms, d := Compile(s)
		diags = append(diags, d...)
		if !diags.HasErrors() {
			// The trace is rendered as it happens, not kept as lines.
			var buf bytes.Buffer
			tw := NewTraceWriter(&buf)
			if opts.Trace == nil {
				opts.Trace = tw.Line
			} else {
				caller := opts.Trace
				opts.Trace = func(l Line) { tw.Line(l); caller(l) }
			}
			res, err := Run(ctx, s, ms, opts)
			if err == nil {
				err = tw.Flush()
			}
			if err != nil {
				o.Problems = append(o.Problems, err.Error())
				return o
			}
			o.Result = res
			o.Trace = buf.Bytes()
			o.Problems = append(o.Problems, res.Failures...)
		}
	}
	for _, d := range diags {
		if d.Severity == 1 { // hcl.DiagError
			o.Problems = append(o.Problems, rules.DiagnosticLine(d))
		}
	}
	if o.Result == nil {
		return o
	}
	golden := GoldenPath(path)
	if update {
		if err := os.WriteFile(golden, o.Trace, 0o644); err != nil {
			o.Problems = append(o.Problems, err.Error())
		}
	} else {
		want, err := os.ReadFile(golden)
		switch {
		case os.IsNotExist(err):
			o.Problems = append(o.Problems, fmt.Sprintf("no golden trace %s (run with -update to write it)", golden))
		case err != nil:
			o.Problems = append(o.Problems, err.Error())
		case !bytes.Equal(want, o.Trace):
			o.Problems = append(o.Problems, fmt.Sprintf("trace differs from %s:\n%s", golden, textdiff.LineDiff(string(want), string(o.Trace))))
		}
	}
	o.Passed = len(o.Problems) == 0
	return o
}
