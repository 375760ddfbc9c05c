package objpatch

import (
	"cmp"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/statecraft/statecraft/jsonvalue"
)

// Claim is a part of a target that a patch statically owns: either a JSON
// Pointer (the value there and everything below it), or one item of an
// array identified by a key field and a literal value.
type Claim struct {
	// Path is the RFC 6901 pointer of the claimed value; for an item claim,
	// of the array that holds the item. "" is the whole object.
	Path string
	// Item marks a claim of the array items whose Field equals Value.
	Item  bool
	Field string
	Value string
}

// String renders the claim stably: "/metadata/labels/managed-by" or
// "/spec/template/spec/containers[name=app]". The field and value are
// quoted when they contain characters that would make the form ambiguous;
// the whole object renders as "(root)".
func (c Claim) String() string {
	p := c.Path
	if !c.Item {
		if p == "" {
			return "(root)"
		}
		return p
	}
	return p + "[" + quoteIfNeeded(c.Field) + "=" + quoteIfNeeded(c.Value) + "]"
}

func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsAny(s, "[]=\"\\") || strconv.Quote(s) != `"`+s+`"` {
		return strconv.Quote(s)
	}
	return s
}

// Overlaps reports whether two claims may own the same value. Paths
// conflict when one is a prefix of the other (parent and child, or equal).
// Two item claims on the same array conflict when they name the same key
// value, or different key fields (which may select the same item); items
// with different values of the same key field coexist.
func (c Claim) Overlaps(d Claim) bool {
	ct, dt := tokens(c.Path), tokens(d.Path)
	if !hasPrefix(ct, dt) && !hasPrefix(dt, ct) {
		return false
	}
	if c.Item && d.Item && len(ct) == len(dt) {
		return c.Field != d.Field || c.Value == d.Value
	}
	return true
}

// tokens splits an (escaped) pointer into escaped tokens; escaped tokens are
// equal exactly when their unescaped forms are.
func tokens(p string) []string {
	if p == "" {
		return nil
	}
	return strings.Split(p[1:], "/")
}

func hasPrefix(s, prefix []string) bool {
	if len(prefix) > len(s) {
		return false
	}
	for i := range prefix {
		if s[i] != prefix[i] {
			return false
		}
	}
	return true
}

// Claims returns the static claims of a patch, without reading any target.
//
// Merge-patch claims recurse to leaf paths: scalars, null, arrays (which are
// atomic) and empty objects claim their exact path, in sorted key order.
// Each selector operation then claims, in declaration order: for a selector
// of the form item.f == "literal" or "literal" == item.f (also item["f"]),
// the selected item of the array before "@"; for any other selector, that
// whole array. Duplicates are dropped. Operations whose path does not parse
// claim nothing: such a patch fails Validate and is never applied.
func Claims(patch any, ops []Op) []Claim {
	return (*Selectors)(nil).Claims(patch, ops)
}

// Claims is the package's Claims, remembering selectors' key literals in s.
func (s *Selectors) Claims(patch any, ops []Op) []Claim {
	var out []Claim
	seen := map[Claim]bool{}
	add := func(c Claim) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	if patch != nil {
		var walk func(ptr string, v any)
		walk = func(ptr string, v any) {
			m, ok := v.(map[string]any)
			if !ok || len(m) == 0 {
				add(Claim{Path: ptr})
				return
			}
			for _, k := range jsonvalue.SortedKeys(m) {
				walk(ptr+"/"+jsonvalue.EscapeToken(k), m[k])
			}
		}
		walk("", patch)
	}
	for _, op := range ops {
		pp, msg := parsePath(op.Path)
		if msg != "" {
			continue
		}
		arr := pointer(pp.prefix)
		if f, lit, ok := s.keyLiteral(op.Selector); ok {
			add(Claim{Path: arr, Item: true, Field: f, Value: lit})
		} else {
			add(Claim{Path: arr})
		}
	}
	return out
}

// Conflicts returns the first pair of overlapping claims, a's first, in
// the order of a then b, and whether there is one.
func Conflicts(a, b []Claim) (Claim, Claim, bool) {
	for _, x := range a {
		for _, y := range b {
			if x.Overlaps(y) {
				return x, y, true
			}
		}
	}
	return Claim{}, Claim{}, false
}

// Claimant is one patch resource taking part in arbitration.
type Claimant struct {
	// Key identifies the claimant in the result, e.g. "namespace/name" or
	// "name"; keys must be unique.
	Key string
	// Target identifies the patched object, including its namespace for an
	// ObjectPatch. Claimants with different targets never conflict. The
	// caller groups claimants so that ObjectPatch claims are compared within
	// their namespace and ClusterObjectPatch claims cluster-wide.
	Target string
	// Rank places the claimant in the arbitration order, which is the
	// caller's to choose: claimants are taken by Rank, compared element by
	// element (see CompareRank), then by Key.
	Rank   []any
	Claims []Claim
}

// Verdict is the outcome of arbitration for one claimant.
type Verdict struct {
	Accepted bool
	// For a rejected claimant: the Key of the accepted claimant that blocks
	// it, its own conflicting claim, and the winner's claim it overlaps.
	Winner      string
	Claim       Claim
	WinnerClaim Claim
}

// Message describes a rejected verdict for status, e.g. "claim
// /spec/replicas conflicts with /spec held by ns/other"; "" when accepted.
func (v Verdict) Message() string {
	if v.Accepted {
		return ""
	}
	if v.Claim == v.WinnerClaim {
		return fmt.Sprintf("claim %s is held by %s", v.Claim, v.Winner)
	}
	return fmt.Sprintf("claim %s conflicts with %s held by %s", v.Claim, v.WinnerClaim, v.Winner)
}

// Arbitrate decides which claimants own their claims. Claimants are taken
// in the order of their Rank (lowest first), then of their Key. A claimant
// whose claims overlap those of an already accepted claimant on the same
// target loses to the first such winner, and reserves none of its other
// claims; otherwise it is accepted. The result maps every Key to its
// verdict.
func Arbitrate(claimants []Claimant) map[string]Verdict {
	order := make([]int, len(claimants))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool {
		a, b := claimants[order[x]], claimants[order[y]]
		if c := CompareRank(a.Rank, b.Rank); c != 0 {
			return c < 0
		}
		return a.Key < b.Key
	})
	out := make(map[string]Verdict, len(claimants))
	var accepted []int
	for _, i := range order {
		c := claimants[i]
		v := Verdict{Accepted: true}
		for _, w := range accepted {
			winner := claimants[w]
			if winner.Target != c.Target {
				continue
			}
			if x, y, ok := Conflicts(c.Claims, winner.Claims); ok {
				v = Verdict{Winner: winner.Key, Claim: x, WinnerClaim: y}
				break
			}
		}
		if v.Accepted {
			accepted = append(accepted, i)
		}
		out[c.Key] = v
	}
	return out
}

// CompareRank compares two ranks element by element: two times by time,
// two numbers (int64 or float64) by value, anything else by its text; a
// rank that is a prefix of the other comes first. It returns -1, 0 or 1.
func CompareRank(a, b []any) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareRankValue(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

func compareRankValue(a, b any) int {
	if ta, ok := a.(time.Time); ok {
		if tb, ok := b.(time.Time); ok {
			return ta.Compare(tb)
		}
	}
	if na, ok := rankNumber(a); ok {
		if nb, ok := rankNumber(b); ok {
			return cmp.Compare(na, nb)
		}
	}
	return strings.Compare(rankText(a), rankText(b))
}

func rankNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case float64:
		return n, true
	}
	return 0, false
}

func rankText(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	}
	return fmt.Sprint(v)
}
