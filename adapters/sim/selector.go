package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// selector is a parsed label selector: all requirements must hold.
type selector []requirement

type requirement struct {
	key    string
	op     string // "=", "!=", "in", "notin", "exists", "!", "gt", "lt"
	values []string
}

// parseSelector parses the label selector syntax of the Kubernetes API:
// comma-separated requirements "a=b", "a==b", "a!=b", "a in (x,y)",
// "a notin (x,y)", "a", "!a", "a>1", "a<1". The empty selector matches all.
func parseSelector(s string) (selector, error) {
	var sel selector
	for _, part := range splitTopLevel(s) {
		part = strings.TrimSpace(part)
		if part == "" {
			if strings.TrimSpace(s) == "" {
				continue
			}
			return nil, fmt.Errorf("empty requirement in %q", s)
		}
		r, err := parseRequirement(part)
		if err != nil {
			return nil, err
		}
		sel = append(sel, r)
	}
	return sel, nil
}

// splitTopLevel splits at commas outside parentheses.
func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i, ch := range s {
		switch ch {
		case '(':
			depth++
		case ')':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}

func parseRequirement(part string) (requirement, error) {
	if strings.HasPrefix(part, "!") {
		key := strings.TrimSpace(part[1:])
		if err := checkKey(key); err != nil {
			return requirement{}, err
		}
		return requirement{key: key, op: "!"}, nil
	}
	for _, op := range []string{"!=", "==", "=", ">", "<"} {
		if i := strings.Index(part, op); i >= 0 {
			key := strings.TrimSpace(part[:i])
			val := strings.TrimSpace(part[i+len(op):])
			if err := checkKey(key); err != nil {
				return requirement{}, err
			}
			switch op {
			case "==":
				op = "="
			case ">", "<":
				if _, err := strconv.ParseInt(val, 10, 64); err != nil {
					return requirement{}, fmt.Errorf("for %q, the value must be an integer", part)
				}
				op = map[string]string{">": "gt", "<": "lt"}[op]
			}
			if strings.ContainsAny(val, " ()=!") {
				return requirement{}, fmt.Errorf("invalid value %q in %q", val, part)
			}
			return requirement{key: key, op: op, values: []string{val}}, nil
		}
	}
	fields := strings.Fields(part)
	if len(fields) == 1 {
		if err := checkKey(fields[0]); err != nil {
			return requirement{}, err
		}
		return requirement{key: fields[0], op: "exists"}, nil
	}
	if len(fields) >= 2 && (fields[1] == "in" || fields[1] == "notin") {
		key, op := fields[0], fields[1]
		if err := checkKey(key); err != nil {
			return requirement{}, err
		}
		rest := strings.TrimSpace(part[strings.Index(part, op)+len(op):])
		if !strings.HasPrefix(rest, "(") || !strings.HasSuffix(rest, ")") {
			return requirement{}, fmt.Errorf("for %q, the values must be a parenthesized list", part)
		}
		var values []string
		for _, v := range strings.Split(rest[1:len(rest)-1], ",") {
			values = append(values, strings.TrimSpace(v))
		}
		return requirement{key: key, op: op, values: values}, nil
	}
	return requirement{}, fmt.Errorf("cannot parse requirement %q", part)
}

func checkKey(key string) error {
	if key == "" {
		return fmt.Errorf("a label key may not be empty")
	}
	if msg := validQualifiedName(key); msg != "" {
		return fmt.Errorf("invalid label key %q: %s", key, msg)
	}
	return nil
}

func (s selector) matches(labels map[string]string) bool {
	for _, r := range s {
		if !r.matches(labels) {
			return false
		}
	}
	return true
}

func (r requirement) matches(labels map[string]string) bool {
	v, has := labels[r.key]
	switch r.op {
	case "=":
		return has && v == r.values[0]
	case "!=":
		return !has || v != r.values[0]
	case "in":
		return has && contains(r.values, v)
	case "notin":
		return !has || !contains(r.values, v)
	case "exists":
		return has
	case "!":
		return !has
	case "gt", "lt":
		if !has {
			return false
		}
		a, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return false
		}
		b, _ := strconv.ParseInt(r.values[0], 10, 64)
		if r.op == "gt" {
			return a > b
		}
		return a < b
	}
	return false
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}
