package sim

import (
	"fmt"

	"github.com/statecraft/statecraft/adapters"
)

// DenyStatus is how the simulated server refuses a request.
type DenyStatus string

// The ways a Deny rule refuses a request. Both map to adapters.Forbidden;
// the message says which one the server answered.
const (
	Forbidden    DenyStatus = "Forbidden"    // HTTP 403
	Unauthorized DenyStatus = "Unauthorized" // HTTP 401
)

// Denial is one RBAC rule installed with Deny.
type Denial struct {
	Identity   string // "" is the engine's own account; "*" matches anyone
	Verb       adapters.Verb
	APIVersion string
	Kind       string // "Kind" matches every subresource; "Kind/status" only that one
	Status     DenyStatus
}

// Deny refuses every later request matching identity, verb, apiVersion and
// kind ("*" matches anything; identity "" is the engine's own account). It is
// checked before anything else, so an unknown kind can be denied too.
func (c *Cluster) Deny(identity string, verb adapters.Verb, apiVersion, kind string, status DenyStatus) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if status == "" {
		status = Forbidden
	}
	c.denials = append(c.denials, Denial{identity, verb, apiVersion, kind, status})
}

// ClearDenials removes every Deny rule.
func (c *Cluster) ClearDenials() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.denials = nil
}

func (d Denial) matches(req adapters.Request) bool {
	if d.Identity != "*" && d.Identity != req.Identity {
		return false
	}
	if d.Verb != "*" && d.Verb != req.Verb {
		return false
	}
	if d.APIVersion != "*" && d.APIVersion != req.Ref.APIVersion {
		return false
	}
	return d.Kind == "*" || d.Kind == req.Ref.Kind || d.Kind == req.Ref.Kind+"/"+req.Subresource && req.Subresource != ""
}

func (c *Cluster) authorize(req adapters.Request) (adapters.Result, bool) {
	for _, d := range c.denials {
		if !d.matches(req) {
			continue
		}
		if d.Status == Unauthorized {
			return fail(adapters.Forbidden, "Unauthorized: the server has asked for the client to provide credentials (user %q)", c.user(req)), true
		}
		return fail(adapters.Forbidden, "%s", c.forbiddenMessage(req)), true
	}
	return adapters.Result{}, false
}

func (c *Cluster) user(req adapters.Request) string {
	if req.Identity == "" {
		return c.engineIdentity
	}
	return req.Identity
}

// forbiddenMessage renders the API server's Forbidden message.
func (c *Cluster) forbiddenMessage(req adapters.Request) string {
	k := &kindInfo{apiVersion: req.Ref.APIVersion, kind: req.Ref.Kind}
	if known, found := c.kinds[kindKey{req.Ref.APIVersion, req.Ref.Kind}]; found {
		k = known
	}
	res := k.plural()
	if req.Subresource != "" {
		res += "/" + req.Subresource
	}
	subject := k.resource()
	if req.Ref.Name != "" {
		subject += fmt.Sprintf(" %q", req.Ref.Name)
	}
	where := "at the cluster scope"
	if req.Ref.Namespace != "" {
		where = fmt.Sprintf("in the namespace %q", req.Ref.Namespace)
	}
	return fmt.Sprintf("%s is forbidden: User %q cannot %s resource %q in API group %q %s",
		subject, c.user(req), req.Verb, res, k.group(), where)
}
