package record

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/textdiff"
)

// Key renders a decision without its time: what two runs must agree on
// for the decision to be the same (the time, a wait's time, a message and
// a write's body are compared beside it).
func (d Decision) Key() string {
	switch d.Type {
	case "transition":
		s := fmt.Sprintf("%s: %s → %s by %q", d.Object, d.From, d.To, d.Transition)
		if d.Reason != "" {
			s += " reason " + d.Reason
		}
		if d.Outcome != "" {
			s += " (" + d.Outcome + ")"
		}
		return s
	case "write":
		w := d.Write
		var b strings.Builder
		b.WriteString("  " + w.Verb)
		if w.Subresource != "" {
			b.WriteString(" " + w.Subresource)
		}
		b.WriteString(" " + w.Ref.String())
		var opts []string
		if w.PatchType != "" {
			opts = append(opts, w.PatchType)
		}
		if w.DryRun {
			opts = append(opts, "dry-run")
		}
		if len(opts) > 0 {
			b.WriteString(" (" + strings.Join(opts, ", ") + ")")
		}
		if w.Identity != "" {
			b.WriteString(" as " + w.Identity)
		}
		b.WriteString(": " + w.Outcome)
		return b.String()
	case "problem":
		return fmt.Sprintf("%s: problem %s", d.Object, d.Reason)
	}
	return d.Object + ": " + d.Type
}

// Text renders a decision as a trace line does, with its time since from.
func (d Decision) Text(from Offset) string {
	s := Stamp(d.At-from) + "  " + d.Key()
	if d.Type == "transition" && d.Wake != nil {
		s += " wait until " + Stamp(*d.Wake-from)
	}
	return s
}

// Stamp renders an offset as +DdHH:MM:SS, with milliseconds when it has
// any (a recording's times are the cluster's).
func Stamp(d time.Duration) string {
	neg := d < 0
	if neg {
		d = -d
	}
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	h := d / time.Hour
	d -= h * time.Hour
	m := d / time.Minute
	d -= m * time.Minute
	s := d / time.Second
	d -= s * time.Second
	out := fmt.Sprintf("+%dd%02d:%02d:%02d", days, h, m, s)
	if ms := d / time.Millisecond; ms > 0 {
		out += fmt.Sprintf(".%03d", ms)
	}
	if neg {
		out = "-" + out[1:]
	}
	return out
}

// ObjectDiff is how two runs' decisions about one object differ: their
// decisions aligned, equal rows included for context.
type ObjectDiff struct {
	Object string `json:"object"`
	Rows   []Row  `json:"rows"`
	// Note explains a divergence where it can: the recorded reconcile
	// where it begins ran concurrently with another that wrote.
	Note string `json:"note,omitempty"`
}

// Row is one aligned pair of decisions: Old or New is nil when only one
// run made it; Note says how two decisions that agree on their Key still
// differ (their times, a wait, a message, a body).
type Row struct {
	Old  *Decision `json:"old,omitempty"`
	New  *Decision `json:"new,omitempty"`
	Same bool      `json:"same"`
	Note string    `json:"note,omitempty"`
}

// comparison says how decisions are compared: within a tolerance of time,
// and (for a recording against a replay) with what a real server and the
// simulator say differently normalized away.
type comparison struct {
	tolerance time.Duration
	loose     bool
}

// compare aligns the decisions of two runs object by object and returns
// the objects whose decisions differ, sorted by object.
func compare(old, new []Decision, c comparison) []ObjectDiff {
	byOld, byNew := groupByObject(old), groupByObject(new)
	var objects []string
	for o := range byOld {
		objects = append(objects, o)
	}
	for o := range byNew {
		if _, ok := byOld[o]; !ok {
			objects = append(objects, o)
		}
	}
	sort.Strings(objects)
	var out []ObjectDiff
	for _, o := range objects {
		rows := alignDecisions(byOld[o], byNew[o], c)
		differ := false
		for _, r := range rows {
			differ = differ || !r.Same
		}
		if differ {
			out = append(out, ObjectDiff{Object: o, Rows: rows})
		}
	}
	return out
}

func groupByObject(ds []Decision) map[string][]Decision {
	out := map[string][]Decision{}
	for _, d := range ds {
		out[d.Object] = append(out[d.Object], d)
	}
	return out
}

// alignDecisions lines two runs' decisions about one object up by their
// keys (longest common subsequence), then compares each pair's details.
func alignDecisions(a, b []Decision, c comparison) []Row {
	ka, kb := make([]string, len(a)), make([]string, len(b))
	for i, d := range a {
		ka[i] = d.Key()
	}
	for i, d := range b {
		kb[i] = d.Key()
	}
	var rows []Row
	i, j := 0, 0
	for _, op := range textdiff.Align(ka, kb) {
		var r Row
		if op.Old != "" {
			r.Old = &a[i]
			i++
		}
		if op.New != "" {
			r.New = &b[j]
			j++
		}
		if op.Eq {
			r.Note = c.details(*r.Old, *r.New)
			r.Same = r.Note == ""
		}
		rows = append(rows, r)
	}
	return rows
}

// details says how two decisions with the same key differ ("" when they
// do not).
func (c comparison) details(a, b Decision) string {
	var notes []string
	if dt := a.At - b.At; dt > c.tolerance || -dt > c.tolerance {
		notes = append(notes, fmt.Sprintf("at %s, not %s", Stamp(b.At), Stamp(a.At)))
	}
	switch {
	case (a.Wake == nil) != (b.Wake == nil):
		notes = append(notes, "one waits, the other does not")
	case a.Wake != nil:
		if dt := *a.Wake - *b.Wake; dt > c.tolerance || -dt > c.tolerance {
			notes = append(notes, fmt.Sprintf("waits until %s, not %s", Stamp(*b.Wake), Stamp(*a.Wake)))
		}
	}
	if c.text(a.Message) != c.text(b.Message) {
		notes = append(notes, fmt.Sprintf("message %q, not %q", clip(b.Message), clip(a.Message)))
	}
	if a.Write != nil && b.Write != nil {
		if !c.sameValue(a.Write.Body, b.Write.Body) {
			notes = append(notes, "body "+bodyDiff(a.Write.Body, b.Write.Body))
		}
	}
	return strings.Join(notes, "; ")
}

func clip(s string) string {
	if len(s) > 100 {
		return s[:97] + "..."
	}
	return s
}

// bodyDiff names what differs between two bodies: the merge patch from
// one to the other, briefly.
func bodyDiff(a, b any) string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		if d, err := jsonvalue.CanonicalJSON(jsonvalue.MergeDiff(am, bm)); err == nil {
			return clip("differs: " + string(d))
		}
	}
	bj, _ := jsonvalue.CanonicalJSON(b)
	return clip("is " + string(bj))
}

var (
	timestampRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	uidRE       = regexp.MustCompile(`\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b|\buid-\d{6}\b`)
	userRE      = regexp.MustCompile(`User "[^"]*"`)
)

// text normalizes a message for comparison: in a loose comparison (a real
// server against the simulator), times, uids and the user a Forbidden
// message names are not compared.
func (c comparison) text(s string) string {
	if !c.loose {
		return s
	}
	s = timestampRE.ReplaceAllString(s, "<time>")
	s = uidRE.ReplaceAllString(s, "<uid>")
	return userRE.ReplaceAllString(s, `User "<user>"`)
}

// sameValue compares two bodies: exactly, or in a loose comparison with
// times within the tolerance, uids and resourceVersions aside, and
// messages normalized.
func (c comparison) sameValue(a, b any) bool {
	if !c.loose {
		return jsonvalue.Equal(a, b)
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range x {
			if k == "resourceVersion" || k == "uid" {
				continue
			}
			w, has := y[k]
			if !has || !c.sameValue(v, w) {
				return false
			}
		}
		for k := range y {
			if _, has := x[k]; !has && k != "resourceVersion" && k != "uid" {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !c.sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	case string:
		y, ok := b.(string)
		if !ok {
			return false
		}
		if x == y {
			return true
		}
		if tx, err := time.Parse(time.RFC3339Nano, x); err == nil {
			if ty, err := time.Parse(time.RFC3339Nano, y); err == nil {
				d := tx.Sub(ty)
				// Times the engine wrote with second precision may round
				// across a second within the tolerance.
				return d <= c.tolerance+time.Second && -d <= c.tolerance+time.Second
			}
		}
		return c.text(x) == c.text(y)
	}
	return jsonvalue.Equal(a, b)
}
