package mutate

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/antlr4-go/antlr/v4"
	"github.com/google/cel-go/parser/gen"
)

// celEdit is one mutation of a CEL expression: the bytes [start, end) of
// its source replaced by repl.
type celEdit struct {
	start, end int
	repl       string
	kind       string
	// before and after are the smallest enclosing piece of CEL the
	// mutation changes, as written and as mutated (for people).
	before, after string
}

// celTree is a CEL expression parsed by cel-go's ANTLR parser: the concrete
// syntax tree, whose every node knows its tokens, so that an edit replaces
// exactly the text of an operator, a literal or an operand.
type celTree struct {
	src  string
	tree gen.IStartContext
	// byteAt[i] is the byte offset in src of rune i; byteAt[len] = len(src).
	byteAt []int
}

type errorCounter struct {
	*antlr.DefaultErrorListener
	n int
}

func (e *errorCounter) SyntaxError(antlr.Recognizer, any, int, int, string, antlr.RecognitionException) {
	e.n++
}

// parseCEL parses src; ok is false when it is not well-formed CEL.
func parseCEL(src string) (*celTree, bool) {
	errs := &errorCounter{DefaultErrorListener: antlr.NewDefaultErrorListener()}
	lexer := gen.NewCELLexer(antlr.NewInputStream(src))
	lexer.RemoveErrorListeners()
	lexer.AddErrorListener(errs)
	p := gen.NewCELParser(antlr.NewCommonTokenStream(lexer, antlr.TokenDefaultChannel))
	p.RemoveErrorListeners()
	p.AddErrorListener(errs)
	t := &celTree{src: src, tree: p.Start_()}
	if errs.n > 0 {
		return nil, false
	}
	for i := range src {
		t.byteAt = append(t.byteAt, i)
	}
	t.byteAt = append(t.byteAt, len(src))
	return t, true
}

// wellFormed reports whether src parses as CEL.
func wellFormed(src string) bool {
	_, ok := parseCEL(src)
	return ok
}

func (t *celTree) tok(k antlr.Token) (int, int) {
	return t.byteAt[k.GetStart()], t.byteAt[k.GetStop()+1]
}

func (t *celTree) span(c antlr.ParserRuleContext) (int, int) {
	return t.byteAt[c.GetStart().GetStart()], t.byteAt[c.GetStop().GetStop()+1]
}

func (t *celTree) text(c antlr.ParserRuleContext) string {
	s, e := t.span(c)
	return t.src[s:e]
}

// celOptions says which mutations an expression gets besides the ones every
// expression gets.
type celOptions struct {
	// entries: drop each entry of map literals (action bodies: a field
	// the request no longer sends).
	entries bool
}

// celMutations lists the mutations of one CEL expression, in source order.
func celMutations(src string, opt celOptions) []celEdit {
	t, ok := parseCEL(src)
	if !ok {
		return nil
	}
	var out []celEdit
	var walk func(n antlr.Tree)
	walk = func(n antlr.Tree) {
		switch c := n.(type) {
		case *gen.RelationContext:
			if op := c.GetOp(); op != nil {
				out = append(out, t.comparison(c, op)...)
			}
		case *gen.ConditionalAndContext:
			out = append(out, t.logical(c, c.GetOps(), toRules(c.AllRelation()), "&&", "||")...)
		case *gen.ConditionalOrContext:
			out = append(out, t.logical(c, c.GetOps(), toRules(c.AllConditionalAnd()), "||", "&&")...)
		case *gen.ExprContext:
			if c.GetOp() != nil {
				out = append(out, t.ternary(c)...)
			}
		case *gen.LogicalNotContext:
			ops := c.GetOps()
			s, e := t.tok(ops[0])
			whole := t.text(c)
			out = append(out, celEdit{start: s, end: e, kind: "negation", before: whole, after: whole[e-s:]})
		case *gen.IntContext:
			out = append(out, t.integer(c, c.GetSign(), c.GetTok(), "")...)
		case *gen.UintContext:
			out = append(out, t.integer(c, nil, c.GetTok(), "u")...)
		case *gen.GlobalCallContext:
			out = append(out, t.durationCall(c)...)
		case *gen.CreateListContext:
			if l := c.GetElems(); l != nil {
				out = append(out, t.drops(c, toRules(l.AllOptExpr()), "element")...)
			}
		case *gen.CreateStructContext:
			if l := c.GetEntries(); l != nil && opt.entries {
				keys, values := l.GetKeys(), l.GetValues()
				var entries []entrySpan
				for i := range keys {
					ks, _ := t.span(keys[i])
					_, ve := t.span(values[i])
					entries = append(entries, entrySpan{ks, ve})
				}
				out = append(out, t.dropSpans(c, entries, "entry")...)
			}
		}
		for _, ch := range n.GetChildren() {
			walk(ch)
		}
	}
	walk(t.tree)
	// Keep only edits that leave well-formed CEL (all of them, by
	// construction; the check makes it a guarantee).
	kept := out[:0]
	for _, e := range out {
		if wellFormed(src[:e.start] + e.repl + src[e.end:]) {
			kept = append(kept, e)
		}
	}
	return kept
}

func toRules[T antlr.ParserRuleContext](xs []T) []antlr.ParserRuleContext {
	out := make([]antlr.ParserRuleContext, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// comparisonSwaps gives, for each comparison operator, its mutants: the
// boundary moved (< and <=, > and >=) and the comparison negated.
var comparisonSwaps = map[string][]string{
	"==": {"!="},
	"!=": {"=="},
	"<":  {"<=", ">="},
	"<=": {"<", ">"},
	">":  {">=", "<="},
	">=": {">", "<"},
}

func (t *celTree) comparison(c *gen.RelationContext, op antlr.Token) []celEdit {
	var out []celEdit
	s, e := t.tok(op)
	cs, ce := t.span(c)
	for _, repl := range comparisonSwaps[op.GetText()] {
		out = append(out, celEdit{start: s, end: e, repl: repl, kind: "comparison",
			before: t.src[cs:ce], after: t.src[cs:s] + repl + t.src[e:ce]})
	}
	return out
}

// logical mutates a chain of && (or ||): each operator flipped, and each
// operand dropped.
func (t *celTree) logical(c antlr.ParserRuleContext, ops []antlr.Token, terms []antlr.ParserRuleContext, op, other string) []celEdit {
	if len(ops) == 0 {
		return nil
	}
	var out []celEdit
	cs, ce := t.span(c)
	for i, o := range ops {
		s, e := t.tok(o)
		// The two operands the operator joins, for people.
		ls, _ := t.span(terms[i])
		_, re := t.span(terms[i+1])
		out = append(out, celEdit{start: s, end: e, repl: other, kind: "logical",
			before: t.src[ls:re], after: t.src[ls:s] + other + t.src[e:re]})
	}
	var spans []entrySpan
	for _, term := range terms {
		s, e := t.span(term)
		spans = append(spans, entrySpan{s, e})
	}
	for _, d := range t.dropSpans(c, spans, "clause") {
		d.before, d.after = t.src[cs:ce], t.src[cs:d.start]+d.repl+t.src[d.end:ce]
		out = append(out, d)
	}
	return out
}

type entrySpan struct{ start, end int }

func (t *celTree) drops(c antlr.ParserRuleContext, items []antlr.ParserRuleContext, kind string) []celEdit {
	var spans []entrySpan
	for _, it := range items {
		s, e := t.span(it)
		spans = append(spans, entrySpan{s, e})
	}
	return t.dropSpans(c, spans, kind)
}

// dropSpans removes each of several items separated by operators or
// commas: an item and the separator after it, or, for the last, the
// separator before it. A single item is not dropped.
func (t *celTree) dropSpans(c antlr.ParserRuleContext, items []entrySpan, kind string) []celEdit {
	if len(items) < 2 {
		return nil
	}
	cs, ce := t.span(c)
	var out []celEdit
	for i, it := range items {
		s, e := it.start, items[len(items)-1].end
		if i < len(items)-1 {
			e = items[i+1].start
		} else {
			s = items[i-1].end
			e = it.end
		}
		out = append(out, celEdit{start: s, end: e, kind: kind,
			before: t.src[cs:ce], after: t.src[cs:s] + t.src[e:ce]})
	}
	return out
}

func (t *celTree) ternary(c *gen.ExprContext) []celEdit {
	cs, ce := t.span(c)
	var out []celEdit
	for _, branch := range []antlr.ParserRuleContext{c.GetE1(), c.GetE2()} {
		b := t.text(branch)
		out = append(out, celEdit{start: cs, end: ce, repl: b, kind: "ternary", before: t.src[cs:ce], after: b})
	}
	return out
}

// integer moves an integer literal one up and one down.
func (t *celTree) integer(c antlr.ParserRuleContext, sign, tok antlr.Token, suffix string) []celEdit {
	text := strings.TrimSuffix(strings.TrimSuffix(tok.GetText(), "u"), "U")
	base := 10
	if strings.HasPrefix(text, "0x") || strings.HasPrefix(text, "0X") {
		base = 16
		text = text[2:]
	}
	n, err := strconv.ParseInt(text, base, 64)
	if err != nil {
		return nil
	}
	if sign != nil {
		n = -n
	}
	s, e := t.span(c)
	var out []celEdit
	for _, v := range []int64{n - 1, n + 1} {
		if suffix == "u" && v < 0 {
			continue
		}
		repl := strconv.FormatInt(v, 10) + suffix
		out = append(out, celEdit{start: s, end: e, repl: repl, kind: "constant", before: t.src[s:e], after: repl})
	}
	return out
}

// durationCall moves the literal of duration('…') one unit (its smallest)
// up and down.
func (t *celTree) durationCall(c *gen.GlobalCallContext) []celEdit {
	if c.GetId().GetText() != "duration" || c.GetArgs() == nil || len(c.GetArgs().AllExpr()) != 1 {
		return nil
	}
	arg := c.GetArgs().AllExpr()[0]
	s, e := t.span(arg)
	lit := t.src[s:e]
	if len(lit) < 2 || (lit[0] != '\'' && lit[0] != '"') || lit[len(lit)-1] != lit[0] {
		return nil
	}
	q := lit[:1]
	var out []celEdit
	for _, d := range durationNeighbours(lit[1 : len(lit)-1]) {
		repl := q + d + q
		cs, ce := t.span(c)
		out = append(out, celEdit{start: s, end: e, repl: repl, kind: "duration",
			before: t.src[cs:ce], after: t.src[cs:s] + repl + t.src[e:ce]})
	}
	return out
}

// durationUnits are the units of a duration literal, largest first: Go's,
// and a day, which statecraft's durations also accept.
var durationUnits = []struct {
	name string
	d    time.Duration
}{{"d", 24 * time.Hour}, {"h", time.Hour}, {"m", time.Minute}, {"s", time.Second}, {"ms", time.Millisecond}, {"us", time.Microsecond}, {"µs", time.Microsecond}, {"ns", time.Nanosecond}}

// durationNeighbours returns the literal moved one of its smallest unit
// down (when that stays at or above zero) and up, written in the units the
// literal uses: "48h" gives 47h and 49h, "1h30m" 1h29m and 1h31m, "0s" only
// 1s.
func durationNeighbours(lit string) []string {
	d, unit, largest, ok := parseDuration(lit)
	if !ok {
		return nil
	}
	var out []string
	if d-unit >= 0 {
		out = append(out, formatDuration(d-unit, unit, largest))
	}
	return append(out, formatDuration(d+unit, unit, largest))
}

// parseDuration reads a non-negative duration of Go's units and days, and
// returns it with its smallest and largest units.
func parseDuration(s string) (total, smallest, largest time.Duration, ok bool) {
	if s == "" {
		return 0, 0, 0, false
	}
	if s == "0" {
		return 0, time.Second, time.Second, true
	}
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 {
			return 0, 0, 0, false
		}
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil {
			return 0, 0, 0, false
		}
		s = s[i:]
		var u time.Duration
		for _, du := range durationUnits {
			if strings.HasPrefix(s, du.name) && (du.name != "m" || !strings.HasPrefix(s, "ms")) {
				u = du.d
				s = s[len(du.name):]
				break
			}
		}
		if u == 0 {
			return 0, 0, 0, false
		}
		total += time.Duration(n) * u
		smallest = u
		largest = max(largest, u)
	}
	return total, smallest, largest, true
}

// formatDuration writes d in the units from largest down to unit, as the
// literal it comes from: 47h, 1h29m, 89s, 4m.
func formatDuration(d, unit, largest time.Duration) string {
	if d == 0 {
		for _, du := range durationUnits {
			if du.d == unit {
				return "0" + du.name
			}
		}
	}
	var b strings.Builder
	for _, du := range durationUnits {
		if du.name == "µs" || du.d < unit || du.d > largest {
			continue
		}
		if n := d / du.d; n > 0 {
			fmt.Fprintf(&b, "%d%s", n, du.name)
			d -= n * du.d
		}
	}
	return b.String()
}
