package fidelity

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Allowlist holds the disagreements that are known and explained: each
// entry a signature pattern ("*" matches any text) and why the difference
// cannot change a rule's decision. A disagreement no entry matches counts.
type Allowlist struct {
	Entries []*AllowEntry
}

// AllowEntry is one explained disagreement.
type AllowEntry struct {
	Pattern string
	Reason  string
	Line    int
	Used    int // disagreements it matched in the last report
}

// ParseAllowlist reads the allowlist format: a pattern on a line of its
// own, followed by its reason on indented lines; "#" starts a comment
// line; blank lines are ignored.
func ParseAllowlist(data []byte) (*Allowlist, error) {
	al := &Allowlist{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case line[0] == ' ' || line[0] == '\t':
			if len(al.Entries) == 0 {
				return nil, fmt.Errorf("line %d: a reason before any pattern", n)
			}
			e := al.Entries[len(al.Entries)-1]
			if e.Reason != "" {
				e.Reason += " "
			}
			e.Reason += trimmed
		default:
			al.Entries = append(al.Entries, &AllowEntry{Pattern: trimmed, Line: n})
		}
	}
	for _, e := range al.Entries {
		if e.Reason == "" {
			return nil, fmt.Errorf("line %d: pattern %q has no reason", e.Line, e.Pattern)
		}
	}
	return al, sc.Err()
}

// LoadAllowlist reads an allowlist file.
func LoadAllowlist(path string) (*Allowlist, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	al, err := ParseAllowlist(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return al, nil
}

// Match returns the first entry whose pattern matches the signature.
func (al *Allowlist) Match(signature string) *AllowEntry {
	if al == nil {
		return nil
	}
	for _, e := range al.Entries {
		if glob(e.Pattern, signature) {
			return e
		}
	}
	return nil
}

// glob matches s against a pattern in which "*" stands for any text.
func glob(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// Thresholds are the least agreement, in percent, each class must reach.
type Thresholds map[Class]float64

// LoadThresholds reads lines "class percent" ("#" comments).
func LoadThresholds(path string) (Thresholds, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	th := Thresholds{}
	known := map[Class]bool{}
	for _, c := range Classes {
		known[c] = true
	}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 2 || !known[Class(f[0])] {
			return nil, fmt.Errorf("%s:%d: want \"class percent\" with a known class, got %q", path, i+1, line)
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(f[1], "%"), 64)
		if err != nil || v < 0 || v > 100 {
			return nil, fmt.Errorf("%s:%d: %q is not a percentage", path, i+1, f[1])
		}
		th[Class(f[0])] = v
	}
	for _, c := range Classes {
		if _, ok := th[c]; !ok {
			return nil, fmt.Errorf("%s: no threshold for class %s", path, c)
		}
	}
	return th, nil
}
