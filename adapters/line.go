package adapters

import "strings"

// RequestLine renders a request and its outcome as traces, decision
// records and recordings show it: verb, subresource, object, patch type,
// dry run, identity, outcome and, when message is not empty and the
// outcome is not OK, the server's message:
//
//	patch status ObjectPatch/ns/p (merge): ok
//	create ConfigMap/ns/c (dry-run) as alice: forbidden (configmaps is forbidden)
func RequestLine(req Request, outcome Outcome, message string) string {
	var b strings.Builder
	b.WriteString(string(req.Verb))
	if req.Subresource != "" {
		b.WriteString(" " + req.Subresource)
	}
	b.WriteString(" " + req.Ref.String())
	var opts []string
	if req.PatchType != "" {
		opts = append(opts, string(req.PatchType))
	}
	if req.DryRun {
		opts = append(opts, "dry-run")
	}
	if len(opts) > 0 {
		b.WriteString(" (" + strings.Join(opts, ", ") + ")")
	}
	if req.Identity != "" {
		b.WriteString(" as " + req.Identity)
	}
	b.WriteString(": " + string(outcome))
	if outcome != OK && message != "" {
		b.WriteString(" (" + message + ")")
	}
	return b.String()
}
