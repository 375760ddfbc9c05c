package controller

import (
	"context"
	"fmt"
	"io"
	"sync"

	"github.com/statecraft/statecraft/adapters"
)

// shadow turns every write into a server-side dry run and describes it:
// verb, subresource, object, patch type and the JSON body that would be
// sent. Status writes are described and not sent at all: a dry run of them
// would be pointless, and the object must keep its recorded state. Every
// line of shadow output, the controller's transitions and problems
// included, goes through say, so that concurrent workers write whole lines
// to a writer that need not be safe for concurrent use.
type shadow struct {
	adapters.API
	mu  sync.Mutex
	log io.Writer
}

func (s *shadow) Do(ctx context.Context, req adapters.Request) adapters.Result {
	if req.Verb == adapters.Get || req.Verb == adapters.List {
		return s.API.Do(ctx, req)
	}
	what := string(req.Verb)
	if req.Subresource != "" {
		what += " " + req.Subresource
	}
	target := req.Ref.String()
	if req.PatchType != "" {
		target += " (" + string(req.PatchType) + ")"
	}
	body, err := req.Payload()
	if err != nil {
		body = []byte("<unencodable: " + err.Error() + ">")
	}
	if req.Subresource == "status" {
		s.say("  would %s %s: %s\n", what, target, body)
		return adapters.Result{Outcome: adapters.OK}
	}
	wasDry := req.DryRun
	req.DryRun = true
	res := s.API.Do(ctx, req)
	if !wasDry {
		s.say("  would %s %s: %s (dry run: %s)\n", what, target, body, res.Outcome)
	}
	return res
}

func (s *shadow) say(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.log, format, args...)
}
