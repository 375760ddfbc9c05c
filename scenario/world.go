package scenario

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
)

// Staging is how a scenario changes the rules of the world at a time:
// RBAC denials, admission hooks, API faults.
type Staging struct {
	Denials    []sim.Denial
	ClearDeny  bool
	Faults     []sim.Fault
	ClearFault bool
	Rejects    []Reject
	Drops      []Drop
	ClearAdmit bool
}

// Reject is an admission hook refusing matching writes.
type Reject struct {
	Verb, Kind, Message string
	Mode                sim.AdmissionMode
}

// Drop is an admission hook that removes a field from matching writes
// before they are stored: the request succeeds, its result is not retained.
type Drop struct {
	Verb, Kind, Path string
}

var stagingBlocks = []hcl.BlockHeaderSchema{
	{Type: "deny"}, {Type: "fault"}, {Type: "reject"}, {Type: "drop"},
}

var stagingAttrs = []hcl.AttributeSchema{
	{Name: "allow_all"}, {Name: "clear_faults"}, {Name: "clear_admission"},
}

var denySchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "identity"}, {Name: "verb"}, {Name: "kind"}, {Name: "api_version"}, {Name: "status"},
}}

var faultSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "identity"}, {Name: "verb"}, {Name: "kind"}, {Name: "api_version"}, {Name: "at_calls"},
	{Name: "rate"}, {Name: "outcome"}, {Name: "message"},
}}

var rejectSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "verb"}, {Name: "kind"}, {Name: "message"}, {Name: "dry_run"},
}}

var dropSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "verb"}, {Name: "kind"}, {Name: "path", Required: true},
}}

func decodeStaging(body *hcl.BodyContent) (*Staging, hcl.Diagnostics) {
	st := &Staging{}
	var diags hcl.Diagnostics
	str := func(c *hcl.BodyContent, name string) string {
		a, ok := c.Attributes[name]
		if !ok {
			return ""
		}
		s, d := stringValue(a.Expr)
		diags = append(diags, d...)
		return s
	}
	flag := func(name string) bool {
		a, ok := body.Attributes[name]
		if !ok {
			return false
		}
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		return !d.HasErrors() && v.Type() == cty.Bool && v.True()
	}
	st.ClearDeny, st.ClearFault, st.ClearAdmit = flag("allow_all"), flag("clear_faults"), flag("clear_admission")
	for _, b := range body.Blocks {
		switch b.Type {
		case "deny":
			c, d := b.Body.Content(denySchema)
			diags = append(diags, d...)
			den := sim.Denial{Identity: str(c, "identity"), Verb: adapters.Verb(orStar(str(c, "verb"))),
				APIVersion: orStar(str(c, "api_version")), Kind: orStar(str(c, "kind")), Status: sim.DenyStatus(str(c, "status"))}
			if den.Status != "" && den.Status != sim.Forbidden && den.Status != sim.Unauthorized {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid status",
					Detail: "A deny status is Forbidden or Unauthorized.", Subject: b.DefRange.Ptr()})
			}
			st.Denials = append(st.Denials, den)
		case "fault":
			c, d := b.Body.Content(faultSchema)
			diags = append(diags, d...)
			f := sim.Fault{Identity: str(c, "identity"), Verb: adapters.Verb(str(c, "verb")), APIVersion: str(c, "api_version"),
				Kind: str(c, "kind"), Outcome: adapters.Outcome(str(c, "outcome")), Message: str(c, "message")}
			if a, ok := c.Attributes["at_calls"]; ok {
				v, d := a.Expr.Value(nil)
				diags = append(diags, d...)
				if !d.HasErrors() && (v.Type().IsListType() || v.Type().IsTupleType()) {
					for it := v.ElementIterator(); it.Next(); {
						_, e := it.Element()
						if e.Type() == cty.Number {
							n, _ := e.AsBigFloat().Int64()
							f.AtCalls = append(f.AtCalls, int(n))
						}
					}
				}
			}
			if a, ok := c.Attributes["rate"]; ok {
				v, d := a.Expr.Value(nil)
				diags = append(diags, d...)
				if !d.HasErrors() && v.Type() == cty.Number {
					f.Rate, _ = v.AsBigFloat().Float64()
				}
				if f.Rate < 0 || f.Rate > 1 {
					diags = append(diags, exprDiag(a.Expr, "Invalid rate", "A fault rate is between 0 and 1."))
				}
			}
			if f.Outcome != "" && !knownOutcome(f.Outcome) && f.Outcome != sim.ConcurrentWrite {
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid outcome",
					Detail: "A fault's outcome is one of transient, conflict, forbidden, invalid, not_found, unsupported, or concurrent_write (another actor writes the object just before the call).", Subject: b.DefRange.Ptr()})
			}
			st.Faults = append(st.Faults, f)
		case "reject":
			c, d := b.Body.Content(rejectSchema)
			diags = append(diags, d...)
			r := Reject{Verb: str(c, "verb"), Kind: str(c, "kind"), Message: str(c, "message"), Mode: sim.AdmitAll}
			switch str(c, "dry_run") {
			case "", "all":
			case "only":
				r.Mode = sim.AdmitDryRunOnly
			case "never":
				r.Mode = sim.AdmitLiveOnly
			default:
				diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Invalid dry_run",
					Detail: "dry_run is \"all\" (default), \"only\" (reject dry runs only) or \"never\" (reject live requests only).", Subject: b.DefRange.Ptr()})
			}
			if r.Message == "" {
				r.Message = "denied by admission policy"
			}
			st.Rejects = append(st.Rejects, r)
		case "drop":
			c, d := b.Body.Content(dropSchema)
			diags = append(diags, d...)
			st.Drops = append(st.Drops, Drop{Verb: str(c, "verb"), Kind: str(c, "kind"), Path: str(c, "path")})
		}
	}
	return st, diags
}

func orStar(s string) string {
	if s == "" {
		return "*"
	}
	return s
}

func knownOutcome(o adapters.Outcome) bool {
	for _, x := range adapters.Outcomes {
		if x == o && o != adapters.OK {
			return true
		}
	}
	return false
}

// stage applies a Staging to the cluster.
func stage(c Cluster, st *Staging) {
	sc, ok := c.(Stager)
	if !ok {
		return
	}
	if st.ClearDeny {
		sc.ClearDenials()
	}
	if st.ClearFault {
		sc.ClearFaults()
	}
	if st.ClearAdmit {
		sc.ClearAdmissions()
	}
	for _, d := range st.Denials {
		sc.Deny(d.Identity, d.Verb, d.APIVersion, d.Kind, d.Status)
	}
	for _, f := range st.Faults {
		sc.InjectFault(f)
	}
	for _, r := range st.Rejects {
		r := r
		sc.AddAdmission(sim.Admission{Name: "scenario reject", Mode: r.Mode,
			Match:  func(req adapters.Request) bool { return matchWrite(req, r.Verb, r.Kind) },
			Reject: func(adapters.Request, map[string]any) string { return r.Message }})
	}
	for _, dr := range st.Drops {
		dr := dr
		sc.AddAdmission(sim.Admission{Name: "scenario drop", Mode: sim.AdmitAll,
			Match:  func(req adapters.Request) bool { return matchWrite(req, dr.Verb, dr.Kind) },
			Mutate: func(_ adapters.Request, obj map[string]any) { dropPath(obj, dr.Path) }})
	}
}

func matchWrite(req adapters.Request, verb, kind string) bool {
	return (verb == "" || verb == string(req.Verb)) && (kind == "" || kind == req.Ref.Kind) && req.Subresource == ""
}

func dropPath(obj map[string]any, path string) {
	segs := strings.Split(path, ".")
	cur := obj
	for _, s := range segs[:len(segs)-1] {
		next, ok := cur[s].(map[string]any)
		if !ok {
			return
		}
		cur = next
	}
	delete(cur, segs[len(segs)-1])
}

// WriteCount asserts the number of API writes (or, with Reads, reads)
// matching verb, kind and identity ("*" or "" match any; identity
// "statecraft" is the engine's own account) made since the start of the
// scenario.
type WriteCount struct {
	Reads                bool
	Verb, Kind, Identity string
	Outcome              string // "" counts every request, whatever it ended in
	DryRun               *bool
	Count                int
	Range                hcl.Range
}

var writesSchema = &hcl.BodySchema{Attributes: []hcl.AttributeSchema{
	{Name: "verb"}, {Name: "kind"}, {Name: "identity"}, {Name: "outcome"}, {Name: "dry_run"}, {Name: "count", Required: true},
}}

func decodeWrites(b *hcl.Block) (WriteCount, hcl.Diagnostics) {
	c, diags := b.Body.Content(writesSchema)
	w := WriteCount{Range: b.DefRange, Reads: b.Type == "reads"}
	for name, dst := range map[string]*string{"verb": &w.Verb, "kind": &w.Kind, "identity": &w.Identity, "outcome": &w.Outcome} {
		if a, ok := c.Attributes[name]; ok {
			s, d := stringValue(a.Expr)
			diags = append(diags, d...)
			*dst = s
		}
	}
	if a, ok := c.Attributes["dry_run"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() && v.Type() == cty.Bool {
			b := v.True()
			w.DryRun = &b
		}
	}
	if a, ok := c.Attributes["count"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() && v.Type() == cty.Number {
			n, _ := v.AsBigFloat().Int64()
			w.Count = int(n)
		}
	}
	return w, diags
}

// EngineIdentity is how scenarios name the engine's own account.
const EngineIdentity = "statecraft"

// matches reports whether a request counts for w.
func matches(r sim.Record, w *WriteCount) bool {
	wild := func(want, got string) bool { return want == "" || want == "*" || want == got }
	id := r.Identity
	if id == "" {
		id = EngineIdentity
	}
	verbOK := wild(w.Verb, string(r.Verb)) && (r.Subresource != "status" || w.Verb == "" || w.Verb == "*")
	if w.Verb == "status" {
		verbOK = r.Subresource == "status"
	}
	return r.IsWrite() != w.Reads && verbOK && wild(w.Kind, r.Ref.Kind) && wild(w.Identity, id) &&
		(w.Outcome == "" || w.Outcome == string(r.Outcome)) && (w.DryRun == nil || *w.DryRun == r.DryRun)
}

func (w WriteCount) String() string {
	s := []string{}
	for _, p := range [][2]string{{"verb", w.Verb}, {"kind", w.Kind}, {"identity", w.Identity}, {"outcome", w.Outcome}} {
		if p[1] != "" {
			s = append(s, p[0]+"="+p[1])
		}
	}
	if w.DryRun != nil {
		s = append(s, fmt.Sprintf("dry_run=%v", *w.DryRun))
	}
	if w.Reads {
		return "reads(" + strings.Join(s, " ") + ")"
	}
	return "writes(" + strings.Join(s, " ") + ")"
}

// describe renders a staging as trace lines.
func (st *Staging) describe() []string {
	var out []string
	if st.ClearDeny {
		out = append(out, "allow all (denials cleared)")
	}
	if st.ClearFault {
		out = append(out, "faults cleared")
	}
	if st.ClearAdmit {
		out = append(out, "admission hooks cleared")
	}
	for _, d := range st.Denials {
		id := d.Identity
		if id == "" {
			id = EngineIdentity
		}
		status := d.Status
		if status == "" {
			status = sim.Forbidden
		}
		out = append(out, fmt.Sprintf("deny %s %s %s (%s)", id, d.Verb, d.Kind, status))
	}
	for _, f := range st.Faults {
		outcome := f.Outcome
		if outcome == "" {
			outcome = adapters.Transient
		}
		what := fmt.Sprintf("fault %s %s %s", orStar(string(f.Verb)), orStar(f.Kind), outcome)
		if len(f.AtCalls) > 0 {
			what += fmt.Sprintf(" at calls %v", f.AtCalls)
		}
		if f.Rate > 0 {
			what += fmt.Sprintf(" at rate %g", f.Rate)
		}
		out = append(out, what)
	}
	for _, rj := range st.Rejects {
		out = append(out, fmt.Sprintf("admission rejects %s %s: %s", orStar(rj.Verb), orStar(rj.Kind), rj.Message))
	}
	for _, d := range st.Drops {
		out = append(out, fmt.Sprintf("admission drops %s from %s %s", d.Path, orStar(d.Verb), orStar(d.Kind)))
	}
	return out
}
