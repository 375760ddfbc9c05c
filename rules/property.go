package rules

import (
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"
)

var propertySchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{{Name: "eventually"}, {Name: "except_reasons"}, {Name: "never_within"}},
}

// property decodes a property block:
//
//	property "settles" {
//	  eventually     = [Applied, Error]
//	  except_reasons = [TargetNotFound]
//	}
//	property "calm writes" {
//	  never_within = { writes = 2, window = "1m" }
//	}
func property(b *hcl.Block) (*Property, hcl.Diagnostics) {
	p := &Property{Name: b.Labels[0], DeclRange: b.DefRange}
	content, diags := b.Body.Content(propertySchema)
	names := func(at *hcl.Attribute) []string {
		out, d := keywordList(at)
		diags = append(diags, d...)
		return out
	}
	if a, ok := content.Attributes["eventually"]; ok {
		p.Eventually = names(a)
	}
	if a, ok := content.Attributes["except_reasons"]; ok {
		p.ExceptReasons = names(a)
	}
	if a, ok := content.Attributes["never_within"]; ok {
		v, d := a.Expr.Value(nil)
		diags = append(diags, d...)
		if !d.HasErrors() {
			if !v.Type().IsObjectType() || !v.Type().HasAttribute("writes") || !v.Type().HasAttribute("window") {
				diags = append(diags, attrDiag(a, "Invalid never_within", "never_within is { writes = N, window = \"1m\" }."))
			} else {
				w, win := v.GetAttr("writes"), v.GetAttr("window")
				if w.Type() == cty.Number && w.AsBigFloat().IsInt() {
					n, _ := w.AsBigFloat().Int64()
					p.NeverWrites = int(n)
				}
				if win.Type() == cty.String {
					p.NeverWindow = win.AsString()
				}
				if _, err := time.ParseDuration(p.NeverWindow); err != nil || p.NeverWrites < 1 {
					diags = append(diags, attrDiag(a, "Invalid never_within", "writes is a whole number of at least 1 and window a duration such as \"1m\"."))
				}
			}
		}
	}
	if p.Eventually == nil && p.NeverWrites == 0 && !diags.HasErrors() {
		diags = append(diags, &hcl.Diagnostic{Severity: hcl.DiagError, Summary: "Empty property",
			Detail: "A property states eventually = [STATES] or never_within = { writes = N, window = \"1m\" }.", Subject: b.DefRange.Ptr()})
	}
	return p, diags
}

// keywordList reads an attribute that lists bare names ([A, B]): the
// names, in order, with a diagnostic for each element that is not one.
func keywordList(at *hcl.Attribute) ([]string, hcl.Diagnostics) {
	var out []string
	items, diags := hcl.ExprList(at.Expr)
	for _, it := range items {
		n, d := keywordExpr(it, "name")
		diags = append(diags, d...)
		if n != "" {
			out = append(out, n)
		}
	}
	return out, diags
}
