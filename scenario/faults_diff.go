package scenario

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return s
}

func stateLines(s string) map[string]string {
	out := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if i := strings.Index(l, ": "); i > 0 {
			out[l[:i]] = l[i+2:]
		}
	}
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(prefix+"."+k, e, out)
		}
		if len(x) == 0 {
			out[prefix] = "{}"
		}
	case []any:
		for i, e := range x {
			flatten(fmt.Sprintf("%s[%d]", prefix, i), e, out)
		}
		if len(x) == 0 {
			out[prefix] = "[]"
		}
	default:
		b, _ := json.Marshal(x)
		out[prefix] = string(b)
	}
}

// A FieldDiff is one difference StateDiffs finds: the object, the field
// path ("" for the whole object), and both values ("" for absent).
type FieldDiff struct {
	Object, Path, Want, Got string
}

func (d FieldDiff) String() string {
	if d.Path == "" {
		return fmt.Sprintf("%s: want %s, got %s", d.Object, orAbsent(d.Want), orAbsent(d.Got))
	}
	return fmt.Sprintf("%s %s: want %s, got %s", d.Object, d.Path, orAbsent(d.Want), orAbsent(d.Got))
}

// StateDiffs describes how two FinalStates differ, field by field: for
// each object in only one of them, that (Path ""); for each object in
// both, the paths whose values differ, with both values. It returns nil
// when they are the same.
func StateDiffs(want, got string) []FieldDiff {
	w, g := stateLines(want), stateLines(got)
	refs := map[string]bool{}
	for r := range w {
		refs[r] = true
	}
	for r := range g {
		refs[r] = true
	}
	sorted := make([]string, 0, len(refs))
	for r := range refs {
		sorted = append(sorted, r)
	}
	sort.Strings(sorted)
	var out []FieldDiff
	for _, r := range sorted {
		wv, gv := w[r], g[r]
		if wv == gv {
			continue
		}
		var a, c any
		if json.Unmarshal([]byte(wv), &a) != nil || json.Unmarshal([]byte(gv), &c) != nil {
			out = append(out, FieldDiff{Object: r, Want: wv, Got: gv})
			continue
		}
		fa, fc := map[string]string{}, map[string]string{}
		flatten("", a, fa)
		flatten("", c, fc)
		paths := map[string]bool{}
		for p := range fa {
			paths[p] = true
		}
		for p := range fc {
			paths[p] = true
		}
		ps := make([]string, 0, len(paths))
		for p := range paths {
			if fa[p] != fc[p] {
				ps = append(ps, p)
			}
		}
		sort.Strings(ps)
		for _, p := range ps {
			out = append(out, FieldDiff{Object: r, Path: p, Want: fa[p], Got: fc[p]})
		}
	}
	return out
}
