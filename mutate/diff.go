package mutate

import (
	"fmt"
	"strings"
)

// unifiedDiff is a unified diff of two versions of a file (-/+ lines with
// ctx lines of context, hunks headed @@ -l,n +l,n @@). Only the lines
// between the common start and end are compared, so a mutant's diff costs
// what its change spans, not the file's length.
func unifiedDiff(name string, a, b []byte, ctx int) string {
	al, bl := splitLines(string(a)), splitLines(string(b))
	p := 0
	for p < len(al) && p < len(bl) && al[p] == bl[p] {
		p++
	}
	s := 0
	for s < len(al)-p && s < len(bl)-p && al[len(al)-1-s] == bl[len(bl)-1-s] {
		s++
	}
	// The window, with the context on either side.
	lo := max(0, p-ctx)
	ahi, bhi := min(len(al), len(al)-s+ctx), min(len(bl), len(bl)-s+ctx)
	ops := lineOps(al[lo:ahi], bl[lo:bhi])
	var out strings.Builder
	fmt.Fprintf(&out, "--- a/%s\n+++ b/%s\n", name, name)
	// Hunks: runs of changes with ctx equal lines around, merged when the
	// equal lines between them are at most 2*ctx.
	type row struct {
		op   byte // ' ', '-', '+'
		text string
	}
	var rows []row
	for _, o := range ops {
		rows = append(rows, row{o.op, o.text})
	}
	keep := make([]bool, len(rows))
	for i, r := range rows {
		if r.op != ' ' {
			for k := max(0, i-ctx); k <= min(len(rows)-1, i+ctx); k++ {
				keep[k] = true
			}
		}
	}
	aLine, bLine := lo+1, lo+1
	for i := 0; i < len(rows); {
		if !keep[i] {
			if rows[i].op != '+' {
				aLine++
			}
			if rows[i].op != '-' {
				bLine++
			}
			i++
			continue
		}
		j := i
		na, nb := 0, 0
		for j < len(rows) && keep[j] {
			if rows[j].op != '+' {
				na++
			}
			if rows[j].op != '-' {
				nb++
			}
			j++
		}
		fmt.Fprintf(&out, "@@ -%s +%s @@\n", hunkRange(aLine, na), hunkRange(bLine, nb))
		for _, r := range rows[i:j] {
			out.WriteByte(r.op)
			out.WriteString(r.text)
			out.WriteByte('\n')
		}
		aLine += na
		bLine += nb
		i = j
	}
	return out.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

type lineOp struct {
	op   byte
	text string
}

// lineOps aligns two short runs of lines by their longest common
// subsequence: removals before additions within each change.
func lineOps(a, b []string) []lineOp {
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
	var ops []lineOp
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i]})
			i++
			j++
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, lineOp{'-', a[i]})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j]})
			j++
		}
	}
	return ops
}
