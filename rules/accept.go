package rules

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
)

// Accept declares a finding of statecraft verify accepted, with its reason:
// behaviour the rules have on purpose (a retry the seed asks for, a state
// only the world can end). Verify prints an accepted finding with its
// reason and does not fail on it.
type Accept struct {
	Name string
	// Finding is the kind of finding: unreached, stuck, livelock,
	// unbounded_retries or property.
	Finding string
	// States, when set, limit the accept to findings about one of these
	// states: the unreached or stuck state, a state of a cycle. For a
	// finding of another machine explored with this one (unreached only),
	// write MACHINE.STATE.
	States []string
	// Reasons, when set, limit it to findings whose status reason (a
	// stuck state's, one along a cycle) is one of these.
	Reasons []string
	// Property, for a property finding, names the property.
	Property string
	// Because is why the finding is what the rules mean.
	Because string

	DeclRange   hcl.Range
	FindingRng  hcl.Range
	StatesRange hcl.Range
}

// acceptFindings are the kinds of finding an accept block may name.
var acceptFindings = []string{"unreached", "stuck", "livelock", "unbounded_retries", "property"}

var acceptSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "finding", Required: true}, {Name: "states"}, {Name: "reasons"}, {Name: "property"}, {Name: "because", Required: true},
	},
}

// accept decodes an accept block:
//
//	accept "claim losers recheck" {
//	  finding = unbounded_retries
//	  states  = [Error]
//	  reasons = [ReapplyNotAccepted]
//	  because = "the seed has acceptance of the reapply annotation tried again every requeueInterval"
//	}
func accept(b *hcl.Block) (*Accept, hcl.Diagnostics) {
	a := &Accept{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(acceptSchema)
	names := func(at *hcl.Attribute) []string {
		out, d := keywordList(at)
		diags = append(diags, d...)
		return out
	}
	if at, ok := content.Attributes["finding"]; ok {
		var d hcl.Diagnostics
		a.Finding, d = keyword(at)
		diags = append(diags, d...)
		a.FindingRng = at.Expr.Range()
		if !d.HasErrors() && !contains(acceptFindings, a.Finding) {
			diags = append(diags, attrDiag(at, "Unknown finding", "finding is one of "+strings.Join(acceptFindings, ", ")+"."))
		}
	}
	if at, ok := content.Attributes["states"]; ok {
		a.States = names(at)
		a.StatesRange = at.Expr.Range()
	}
	if at, ok := content.Attributes["reasons"]; ok {
		a.Reasons = names(at)
	}
	if at, ok := content.Attributes["property"]; ok {
		var d hcl.Diagnostics
		a.Property, d = literalString(at)
		diags = append(diags, d...)
	}
	if at, ok := content.Attributes["because"]; ok {
		var d hcl.Diagnostics
		a.Because, d = literalString(at)
		diags = append(diags, d...)
		if !d.HasErrors() && strings.TrimSpace(a.Because) == "" {
			diags = append(diags, attrDiag(at, "Empty reason", "because says why the finding is what the rules mean."))
		}
	}
	if a.Property != "" && a.Finding != "property" && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Property on another finding",
			Detail: "property names the property of a finding = property accept.", Subject: b.DefRange.Ptr()})
	}
	return a, diags
}

// Matches reports whether the accept covers a finding of the machine it is
// declared in: its kind (spaces as in verify's reports: "unbounded
// retries"), the states it is about, the reasons along it, and, for a
// property, its name.
func (a *Accept) Matches(kind string, states, reasons []string, property string) bool {
	if strings.ReplaceAll(a.Finding, "_", " ") != kind {
		return false
	}
	if a.Property != "" && a.Property != property {
		return false
	}
	if len(a.States) > 0 && !overlaps(a.States, states) {
		return false
	}
	if len(a.Reasons) > 0 && !overlaps(a.Reasons, reasons) {
		return false
	}
	return true
}

func overlaps(a, b []string) bool {
	for _, x := range a {
		if contains(b, x) {
			return true
		}
	}
	return false
}
