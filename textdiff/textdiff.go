package textdiff

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/lcs"
)

// The diffs are computed by go-udiff's lcs package, gopls's diff
// algorithm: linear space, and fast on the long traces of a simulated week
// (BenchmarkAlign: two 100,000-line traces).

// maxShown bounds the lines LineDiff prints.
const maxShown = 80

// LineDiff is a unified diff of want and got (three lines of context), as
// `diff -u` prints one: a line inserted shows as one line added, not as
// every later line changed. At most 80 lines are shown.
func LineDiff(want, got string) string {
	if want == got {
		return ""
	}
	d := udiff.Unified("want", "got", terminated(want), terminated(got))
	lines := strings.SplitAfter(d, "\n")
	if len(lines) > maxShown {
		lines = append(lines[:maxShown], "  ...\n")
	}
	var b strings.Builder
	for _, l := range lines {
		if l != "" {
			b.WriteString("  " + l)
		}
	}
	return b.String()
}

// terminated ends s with a newline, so that a missing last newline is not
// reported as a change of the last line.
func terminated(s string) string {
	if s == "" || strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}

// Op is one row of a side-by-side diff: both sides equal, or a line
// removed (Old), added (New) or replaced (both).
type Op struct {
	Old, New string
	Eq       bool
}

// Align lines up two texts given as lines by their longest common
// subsequence; the removed and added lines of each change are paired side
// by side.
func Align(a, b []string) []Op {
	var out []Op
	i := 0
	for _, d := range lcs.DiffLines(a, b) {
		for ; i < d.Start; i++ {
			out = append(out, Op{Old: a[i], New: b[d.ReplStart-(d.Start-i)], Eq: true})
		}
		dels, adds := a[d.Start:d.End], b[d.ReplStart:d.ReplEnd]
		for x := 0; x < max(len(dels), len(adds)); x++ {
			var op Op
			if x < len(dels) {
				op.Old = dels[x]
			}
			if x < len(adds) {
				op.New = adds[x]
			}
			out = append(out, op)
		}
		i = d.End
	}
	for j := len(b) - (len(a) - i); i < len(a); i, j = i+1, j+1 {
		out = append(out, Op{Old: a[i], New: b[j], Eq: true})
	}
	return out
}

// Hunks keeps the differing rows with ctx equal rows around them; a nil
// entry marks skipped rows.
func Hunks(ops []Op, ctx int) []*Op {
	keep := make([]bool, len(ops))
	for i, op := range ops {
		if !op.Eq {
			for k := max(0, i-ctx); k <= min(len(ops)-1, i+ctx); k++ {
				keep[k] = true
			}
		}
	}
	var out []*Op
	skipped := false
	for i := range ops {
		if keep[i] {
			out = append(out, &ops[i])
			skipped = false
		} else if !skipped {
			out = append(out, nil)
			skipped = true
		}
	}
	return out
}
