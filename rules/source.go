package rules

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// sourceFile keeps the bytes of a rule file so that offsets inside CEL
// expressions can be turned back into lines and columns.
type sourceFile struct {
	name       string
	src        []byte
	lineStarts []int
}

func newSourceFile(name string, src []byte) *sourceFile {
	f := &sourceFile{name: name, src: src, lineStarts: []int{0}}
	for i, b := range src {
		if b == '\n' {
			f.lineStarts = append(f.lineStarts, i+1)
		}
	}
	return f
}

// pos converts a byte offset into an hcl.Pos (1-based line and column,
// columns counted in characters).
func (f *sourceFile) pos(off int) hcl.Pos {
	if off > len(f.src) {
		off = len(f.src)
	}
	line := 0
	lo, hi := 0, len(f.lineStarts)-1
	for lo <= hi {
		mid := (lo + hi) / 2
		if f.lineStarts[mid] <= off {
			line = mid
			lo = mid + 1
		} else {
			hi = mid - 1
		}
	}
	col := utf8.RuneCount(f.src[f.lineStarts[line]:off]) + 1
	return hcl.Pos{Line: line + 1, Column: col, Byte: off}
}

// celExpr turns an attribute whose value is a CEL expression into an Expr.
// The value must be a string literal or a heredoc with no interpolation; the
// text between the delimiters is decoded here, keeping for every decoded byte
// its offset in the file, so CEL errors point at their own column.
func (f *sourceFile) celExpr(attr *hcl.Attribute) (*Expr, hcl.Diagnostics) {
	rng := attr.Expr.Range()
	bad := func(detail string) (*Expr, hcl.Diagnostics) {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Invalid expression",
			Detail:   "The value of " + strconv.Quote(attr.Name) + " is a CEL expression written as a string, for example \"target.exists\". " + detail,
			Subject:  rng.Ptr(),
		}}
	}
	tmpl, ok := attr.Expr.(*hclsyntax.TemplateExpr)
	if !ok {
		if w, isWrap := attr.Expr.(*hclsyntax.TemplateWrapExpr); isWrap {
			_ = w
			return bad("Template interpolation (${ ... }) is not allowed here; write $${ for a literal ${.")
		}
		return bad("Put the expression in double quotes; use single quotes for string literals inside it.")
	}
	for _, p := range tmpl.Parts {
		if _, lit := p.(*hclsyntax.LiteralValueExpr); !lit {
			return bad("Template interpolation (${ ... }) and directives (%{ ... }) are not allowed here; write $${ or %%{ for literal text.")
		}
	}
	if rng.Start.Byte < 0 || rng.End.Byte > len(f.src) || rng.Start.Byte >= rng.End.Byte {
		return bad("")
	}
	raw := f.src[rng.Start.Byte:rng.End.Byte]
	var text []byte
	var offs []int
	switch {
	case raw[0] == '"':
		text, offs = decodeQuoted(raw, rng.Start.Byte)
	case len(raw) > 2 && raw[0] == '<' && raw[1] == '<':
		text, offs = decodeHeredoc(tmpl, raw, rng.Start.Byte)
	default:
		return bad("")
	}
	src := string(text)
	if strings.TrimSpace(src) == "" {
		return nil, hcl.Diagnostics{{
			Severity: hcl.DiagError,
			Summary:  "Empty expression",
			Detail:   "The value of " + strconv.Quote(attr.Name) + " must be a CEL expression; it is empty.",
			Subject:  rng.Ptr(),
		}}
	}
	return &Expr{Source: src, Range: rng, offsets: offs, file: f}, nil
}

// decodeQuoted decodes an HCL quoted string literal (raw includes the
// quotes), returning the text and the file offset of each of its bytes.
func decodeQuoted(raw []byte, base int) ([]byte, []int) {
	var out []byte
	var offs []int
	emit := func(b []byte, at int) {
		for range b {
			offs = append(offs, at)
		}
		out = append(out, b...)
	}
	end := len(raw) - 1 // closing quote
	for i := 1; i < end; {
		c := raw[i]
		switch {
		case c == '\\' && i+1 < end:
			n := raw[i+1]
			switch n {
			case 'n':
				emit([]byte{'\n'}, base+i)
				i += 2
			case 't':
				emit([]byte{'\t'}, base+i)
				i += 2
			case 'r':
				emit([]byte{'\r'}, base+i)
				i += 2
			case '"', '\\':
				emit([]byte{n}, base+i)
				i += 2
			case 'u', 'U':
				size := 4
				if n == 'U' {
					size = 8
				}
				if i+2+size <= end {
					if v, err := strconv.ParseUint(string(raw[i+2:i+2+size]), 16, 32); err == nil {
						emit([]byte(string(rune(v))), base+i)
						i += 2 + size
						continue
					}
				}
				emit([]byte{c}, base+i)
				i++
			default:
				emit([]byte{c}, base+i)
				i++
			}
		case (c == '$' || c == '%') && i+2 < end && raw[i+1] == c && raw[i+2] == '{':
			emit([]byte{c, '{'}, base+i)
			i += 3
		default:
			offs = append(offs, base+i)
			out = append(out, c)
			i++
		}
	}
	return out, offs
}

// decodeHeredoc maps a heredoc's decoded text line by line onto the raw
// lines after the opening marker; "<<-" strips a common indent, so each
// decoded line is found at the end of its raw line.
func decodeHeredoc(tmpl *hclsyntax.TemplateExpr, raw []byte, base int) ([]byte, []int) {
	var text []byte
	for _, p := range tmpl.Parts {
		v, _ := p.Value(nil)
		if v.IsKnown() && !v.IsNull() {
			text = append(text, v.AsString()...)
		}
	}
	nl := strings.IndexByte(string(raw), '\n')
	if nl < 0 {
		return text, make([]int, len(text))
	}
	rawLines := strings.SplitAfter(string(raw[nl+1:]), "\n")
	lines := strings.SplitAfter(string(text), "\n")
	offs := make([]int, 0, len(text))
	at := base + nl + 1
	for i, l := range lines {
		start := at
		if i < len(rawLines) {
			rl := rawLines[i]
			start = at + len(rl) - len(l)
			if start < at {
				start = at
			}
			at += len(rl)
		}
		for j := 0; j < len(l); j++ { // every byte, not every rune
			offs = append(offs, start+j)
		}
	}
	return text, offs
}
