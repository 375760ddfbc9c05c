package jsonparse

import (
	"errors"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// maxDepth is encoding/json's limit on nesting.
const maxDepth = 10000

var (
	ErrSyntax = errors.New("jsonparse: malformed JSON")
	ErrEnd    = errors.New("jsonparse: JSON ends early") // a kind of ErrSyntax: the data stopped inside a value
)

// Options change what Parse builds.
type Options struct {
	// DropManagedFields leaves out the metadata.managedFields of the
	// top-level object and of the objects of its top-level items (a
	// Kubernetes object or list): they are skipped, never built.
	DropManagedFields bool
}

// Parse decodes one JSON value, alone in data but for whitespace, as
// sigs.k8s.io/json's UnmarshalCaseSensitivePreserveInts decodes it into an
// any.
func Parse(data []byte, opts Options) (any, error) {
	p := jsonParser{data: data, dropManagedFields: opts.DropManagedFields}
	return p.parse()
}

// Skip checks the JSON value that starts data and returns the length of
// the value, building nothing. ErrEnd says data stops inside it.
func Skip(data []byte) (int, error) {
	p := jsonParser{data: data}
	err := p.skip()
	return p.i, err
}

// String decodes raw, which must be exactly one JSON string.
func String(raw []byte) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	p := jsonParser{data: raw}
	s, err := p.str()
	return s, err == nil && p.i == len(raw)
}

// Members calls fn with each member of the JSON object that is data (alone
// but for whitespace): its key, decoded, and its value as the slice of data
// that holds it. It returns false when data is not such an object, or when
// fn returns false.
func Members(data []byte, fn func(key string, raw []byte) bool) bool {
	p := jsonParser{data: data}
	p.ws()
	if p.i >= len(data) || data[p.i] != '{' {
		return false
	}
	p.i++
	p.ws()
	if p.i < len(data) && data[p.i] == '}' {
		p.i++
	} else {
		for {
			if p.i >= len(data) || data[p.i] != '"' {
				return false
			}
			k, err := p.key()
			if err != nil {
				return false
			}
			p.ws()
			if p.i >= len(data) || data[p.i] != ':' {
				return false
			}
			p.i++
			p.ws()
			start := p.i
			if err := p.skip(); err != nil {
				return false
			}
			if !fn(k, data[start:p.i]) {
				return false
			}
			p.ws()
			if p.i >= len(data) {
				return false
			}
			if data[p.i] == ',' {
				p.i++
				p.ws()
				continue
			}
			if data[p.i] != '}' {
				return false
			}
			p.i++
			break
		}
	}
	p.ws()
	return p.i == len(data)
}

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (p *jsonParser) parse() (any, error) {
	data := p.data
	p.ws()
	v, err := p.value()
	if err != nil {
		return nil, err
	}
	p.ws()
	if p.i != len(data) {
		return nil, ErrSyntax
	}
	return v, nil
}

type jsonParser struct {
	data  []byte
	i     int
	depth int
	// dropManagedFields leaves out the managedFields of the metadata of
	// the top-level object, and of the objects of its items: metaDepth is
	// the depth of the metadata being read (0: none), items whether the
	// top-level items are.
	dropManagedFields bool
	metaDepth         int
	items             bool
}

func (p *jsonParser) ws() {
	for p.i < len(p.data) && IsSpace(p.data[p.i]) {
		p.i++
	}
}

func (p *jsonParser) value() (any, error) {
	if p.i >= len(p.data) {
		return nil, ErrEnd
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	return nil, ErrSyntax
}

func (p *jsonParser) literal(lit string) error {
	rest := p.data[p.i:]
	if len(rest) < len(lit) {
		if string(rest) == lit[:len(rest)] {
			return ErrEnd
		}
		return ErrSyntax
	}
	if string(rest[:len(lit)]) != lit {
		return ErrSyntax
	}
	p.i += len(lit)
	return nil
}

func (p *jsonParser) object() (any, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, ErrSyntax
	}
	p.i++ // '{'
	m := make(map[string]any)
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		p.depth--
		return m, nil
	}
	for {
		if p.i >= len(p.data) {
			return nil, ErrEnd
		}
		if p.data[p.i] != '"' {
			return nil, ErrSyntax
		}
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		p.ws()
		if p.i >= len(p.data) {
			return nil, ErrEnd
		}
		if p.data[p.i] != ':' {
			return nil, ErrSyntax
		}
		p.i++
		p.ws()
		var v any
		drop := false
		switch {
		case !p.dropManagedFields:
			v, err = p.value()
		case k == "managedFields" && p.metaDepth == p.depth:
			drop = true
			err = p.skip()
		case k == "metadata" && (p.depth == 1 || p.depth == 3 && p.items):
			p.metaDepth = p.depth + 1
			v, err = p.value()
			p.metaDepth = 0
		case k == "items" && p.depth == 1:
			p.items = true
			v, err = p.value()
			p.items = false
		default:
			v, err = p.value()
		}
		if err != nil {
			return nil, err
		}
		if !drop {
			m[k] = v
		}
		p.ws()
		if p.i >= len(p.data) {
			return nil, ErrEnd
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.ws()
		case '}':
			p.i++
			p.depth--
			return m, nil
		default:
			return nil, ErrSyntax
		}
	}
}

func (p *jsonParser) array() (any, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, ErrSyntax
	}
	p.i++ // '['
	a := make([]any, 0)
	p.ws()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		p.depth--
		return a, nil
	}
	for {
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.ws()
		if p.i >= len(p.data) {
			return nil, ErrEnd
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.ws()
		case ']':
			p.i++
			p.depth--
			return a, nil
		default:
			return nil, ErrSyntax
		}
	}
}

// number reads a number as sigs.k8s.io/json's convertNumber does with
// preserveInts: an int64 when it has no '.' and fits, else a float64.
func (p *jsonParser) number() (any, error) {
	start, hasDot, end, err := p.scanNumber()
	if err != nil {
		return nil, err
	}
	s := p.data[start:end]
	if !hasDot {
		if i, ok := smallInt(s); ok {
			return i, nil
		}
		if i, err := strconv.ParseInt(string(s), 10, 64); err == nil {
			return i, nil
		}
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return nil, ErrSyntax // encoding/json fails too (out of range)
	}
	return f, nil
}

// smallInt converts an optionally negative run of at most 18 digits.
func smallInt(s []byte) (int64, bool) {
	neg := false
	if len(s) > 0 && s[0] == '-' {
		neg, s = true, s[1:]
	}
	if len(s) == 0 || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// scanNumber checks the JSON number grammar from p.i and moves past it.
func (p *jsonParser) scanNumber() (start int, hasDot bool, end int, err error) {
	d := p.data
	i := p.i
	start = i
	if d[i] == '-' {
		i++
	}
	digits := func() int {
		j := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		return i - j
	}
	switch {
	case i >= len(d):
		return 0, false, 0, ErrEnd
	case d[i] == '0':
		i++
	case d[i] >= '1' && d[i] <= '9':
		digits()
	default:
		return 0, false, 0, ErrSyntax
	}
	if i < len(d) && d[i] == '.' {
		i++
		hasDot = true
		if digits() == 0 {
			if i >= len(d) {
				return 0, false, 0, ErrEnd
			}
			return 0, false, 0, ErrSyntax
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if digits() == 0 {
			if i >= len(d) {
				return 0, false, 0, ErrEnd
			}
			return 0, false, 0, ErrSyntax
		}
	}
	p.i = i
	return start, hasDot, i, nil
}

// str reads a string from the '"' at p.i.
func (p *jsonParser) str() (string, error) { return p.quoted(false) }

// key reads an object's key, which is most often one of the interned
// strings.
func (p *jsonParser) key() (string, error) { return p.quoted(true) }

// quoted reads a string from the '"' at p.i, the interned copy when
// interned and there is one.
func (p *jsonParser) quoted(interned bool) (string, error) {
	d := p.data
	start := p.i + 1
	ascii := true
	for i := start; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			s := d[start:i]
			p.i = i + 1
			if !ascii && !utf8.Valid(s) {
				return unquote(s)
			}
			if interned {
				return intern(s), nil
			}
			return string(s), nil
		case c == '\\':
			end, err := p.stringEnd(i)
			if err != nil {
				return "", err
			}
			p.i = end + 1
			return unquote(d[start:end])
		case c < 0x20:
			return "", ErrSyntax
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", ErrEnd
}

// stringEnd returns the index of the '"' that closes the string in which
// an escape starts at i, checking the escapes.
func (p *jsonParser) stringEnd(i int) (int, error) {
	d := p.data
	for i < len(d) {
		switch c := d[i]; {
		case c == '"':
			return i, nil
		case c == '\\':
			if i+1 >= len(d) {
				return 0, ErrEnd
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				for j := i + 2; j < i+6; j++ {
					if j >= len(d) {
						return 0, ErrEnd
					}
					if !isHex(d[j]) {
						return 0, ErrSyntax
					}
				}
				i += 6
			default:
				return 0, ErrSyntax
			}
		case c < 0x20:
			return 0, ErrSyntax
		default:
			i++
		}
	}
	return 0, ErrEnd
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// unquote decodes the contents of a checked string as encoding/json does:
// escapes, surrogate pairs (a lone surrogate becomes U+FFFD), and each
// invalid UTF-8 byte replaced by U+FFFD.
func unquote(s []byte) (string, error) {
	b := make([]byte, 0, len(s)+utf8.UTFMax)
	for r := 0; r < len(s); {
		c := s[r]
		switch {
		case c == '\\':
			if r+1 >= len(s) {
				return "", ErrSyntax
			}
			switch e := s[r+1]; e {
			case '"', '\\', '/':
				b = append(b, e)
				r += 2
			case 'b':
				b = append(b, '\b')
				r += 2
			case 'f':
				b = append(b, '\f')
				r += 2
			case 'n':
				b = append(b, '\n')
				r += 2
			case 'r':
				b = append(b, '\r')
				r += 2
			case 't':
				b = append(b, '\t')
				r += 2
			case 'u':
				rr := getu4(s[r:])
				if rr < 0 {
					return "", ErrSyntax
				}
				r += 6
				if utf16.IsSurrogate(rr) {
					if dec := utf16.DecodeRune(rr, getu4(s[r:])); dec != unicode.ReplacementChar {
						r += 6
						b = utf8.AppendRune(b, dec)
						break
					}
					rr = unicode.ReplacementChar
				}
				b = utf8.AppendRune(b, rr)
			default:
				return "", ErrSyntax
			}
		case c < utf8.RuneSelf:
			b = append(b, c)
			r++
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			b = utf8.AppendRune(b, rr)
		}
	}
	return string(b), nil
}

// getu4 decodes \uXXXX from the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// skip checks the value at p.i and moves past it, building nothing.
func (p *jsonParser) skip() error {
	if p.i >= len(p.data) {
		return ErrEnd
	}
	switch c := p.data[p.i]; {
	case c == '{' || c == '[':
		closing := byte('}')
		if c == '[' {
			closing = ']'
		}
		if p.depth++; p.depth > maxDepth {
			return ErrSyntax
		}
		p.i++
		p.ws()
		if p.i < len(p.data) && p.data[p.i] == closing {
			p.i++
			p.depth--
			return nil
		}
		for {
			if c == '{' {
				if p.i >= len(p.data) {
					return ErrEnd
				}
				if p.data[p.i] != '"' {
					return ErrSyntax
				}
				if err := p.skipString(); err != nil {
					return err
				}
				p.ws()
				if p.i >= len(p.data) {
					return ErrEnd
				}
				if p.data[p.i] != ':' {
					return ErrSyntax
				}
				p.i++
				p.ws()
			}
			if err := p.skip(); err != nil {
				return err
			}
			p.ws()
			if p.i >= len(p.data) {
				return ErrEnd
			}
			switch p.data[p.i] {
			case ',':
				p.i++
				p.ws()
			case closing:
				p.i++
				p.depth--
				return nil
			default:
				return ErrSyntax
			}
		}
	case c == '"':
		return p.skipString()
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		_, _, _, err := p.scanNumber()
		return err
	}
	return ErrSyntax
}

func (p *jsonParser) skipString() error {
	d := p.data
	for i := p.i + 1; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			p.i = i + 1
			return nil
		case c == '\\':
			end, err := p.stringEnd(i)
			if err != nil {
				return err
			}
			p.i = end + 1
			return nil
		case c < 0x20:
			return ErrSyntax
		}
	}
	return ErrEnd
}

// interned are strings that recur in every object (keys, mostly): decoding
// returns these instead of allocating a copy each time. They are found by
// length and first byte, then compared.
var interned = func() (t [maxInterned + 1][128][]string) {
	for _, s := range []string{
		"apiVersion", "kind", "metadata", "name", "namespace", "uid", "resourceVersion", "generation",
		"creationTimestamp", "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations",
		"ownerReferences", "finalizers", "managedFields", "generateName", "selfLink",
		"manager", "operation", "time", "fieldsType", "fieldsV1", "subresource",
		"spec", "status", "data", "binaryData", "immutable", "items", "continue", "remainingItemCount",
		"type", "object", "reason", "message", "conditions", "lastTransitionTime", "observedGeneration",
		"controller", "blockOwnerDeletion",
	} {
		t[len(s)][s[0]] = append(t[len(s)][s[0]], s)
	}
	return t
}()

const maxInterned = 26

func intern(b []byte) string {
	if len(b) == 0 || len(b) > maxInterned || b[0] >= 128 {
		return string(b)
	}
	for _, s := range interned[len(b)][b[0]] {
		if string(b) == s {
			return s
		}
	}
	return string(b)
}
