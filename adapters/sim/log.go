package sim

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/statecraft/statecraft/adapters"
)

// Record is one request in the request log.
type Record struct {
	Time         time.Time // virtual time the request was served
	Verb         adapters.Verb
	Ref          adapters.Ref
	Subresource  string
	PatchType    adapters.PatchType
	DryRun       bool
	Identity     string // "" for the engine's own account
	FieldManager string
	Outcome      adapters.Outcome
	Message      string // the message of a non-OK outcome
}

// IsWrite reports whether the request asked to change something (Create,
// Update, Patch, Delete), dry-run or not.
func (r Record) IsWrite() bool {
	switch r.Verb {
	case adapters.Create, adapters.Update, adapters.Patch, adapters.Delete:
		return true
	}
	return false
}

// String renders the record as one trace line, for example
// "2000-01-01T00:05:00Z patch ConfigMap/default/cm [status] (merge, dry-run) as alice: ok".
func (r Record) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s %s", timestamp(r.Time), r.Verb, r.Ref)
	if r.Subresource != "" {
		fmt.Fprintf(&b, " [%s]", r.Subresource)
	}
	var opts []string
	if r.PatchType != "" {
		opts = append(opts, string(r.PatchType))
	}
	if r.DryRun {
		opts = append(opts, "dry-run")
	}
	if len(opts) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(opts, ", "))
	}
	if r.Identity != "" {
		fmt.Fprintf(&b, " as %s", r.Identity)
	}
	fmt.Fprintf(&b, ": %s", r.Outcome)
	if r.Outcome != adapters.OK && r.Message != "" {
		fmt.Fprintf(&b, ": %s", r.Message)
	}
	return b.String()
}

// Records returns a copy of the request log, oldest first.
func (c *Cluster) Records() []Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Record(nil), c.records...)
}

// ResetRecords empties the request log.
func (c *Cluster) ResetRecords() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.records = nil
}

// Writes returns the write requests of the log (IsWrite), oldest first.
func (c *Cluster) Writes() []Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []Record
	for _, r := range c.records {
		if r.IsWrite() {
			out = append(out, r)
		}
	}
	return out
}

// CountWrites counts the logged write requests with the given verb and
// identity; "*" matches any verb or identity ("" is the engine's own
// account). Dry-run and failed requests count: they are API calls.
func (c *Cluster) CountWrites(verb adapters.Verb, identity string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, r := range c.records {
		if r.IsWrite() && (verb == "*" || r.Verb == verb) && (identity == "*" || r.Identity == identity) {
			n++
		}
	}
	return n
}

// WriteCount is one line of WriteCounts.
type WriteCount struct {
	Identity string
	Verb     adapters.Verb
	Count    int
}

// WriteCounts tallies the logged write requests by identity and verb,
// sorted by identity then verb.
func (c *Cluster) WriteCounts() []WriteCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	type k struct {
		id   string
		verb adapters.Verb
	}
	counts := map[k]int{}
	for _, r := range c.records {
		if r.IsWrite() {
			counts[k{r.Identity, r.Verb}]++
		}
	}
	out := make([]WriteCount, 0, len(counts))
	for key, n := range counts {
		out = append(out, WriteCount{key.id, key.verb, n})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Identity != out[j].Identity {
			return out[i].Identity < out[j].Identity
		}
		return out[i].Verb < out[j].Verb
	})
	return out
}

// TakeRecords returns the request log, oldest first, and empties it: a
// long simulation hands its requests on as it goes instead of keeping them
// all. The slice returned is the caller's until its next call, which
// reuses it.
func (c *Cluster) TakeRecords() []Record {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.records
	// The slice handed out by the previous call is reused: a caller is done
	// with a batch when it takes the next.
	c.records, c.spare = c.spare[:0], out
	return out
}
