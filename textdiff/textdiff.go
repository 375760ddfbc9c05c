package textdiff

import (
	"fmt"
	"strings"
)

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

// Op is one row of a line diff: both sides equal, or one side only.
type Op struct {
	Old, New string
	Eq       bool
}

// lineDiff aligns two traces by their longest common subsequence.
func Align(a, b []string) []Op {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []Op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, Op{Old: a[i], New: b[j], Eq: true})
			i++
			j++
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, Op{New: b[j]})
			j++
		default:
			ops = append(ops, Op{Old: a[i]})
			i++
		}
	}
	// Pair runs of removals and additions side by side.
	var out []Op
	for k := 0; k < len(ops); {
		if ops[k].Eq {
			out = append(out, ops[k])
			k++
			continue
		}
		var dels, adds []string
		for ; k < len(ops) && !ops[k].Eq; k++ {
			if ops[k].Old != "" {
				dels = append(dels, ops[k].Old)
			} else {
				adds = append(adds, ops[k].New)
			}
		}
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
	}
	return out
}

// hunks keeps the differing rows with ctx equal rows around them; a nil
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
