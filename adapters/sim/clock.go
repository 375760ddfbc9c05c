package sim

import (
	"sync"
	"time"
)

// DefaultEpoch is the instant a Clock created with a zero start time reads.
var DefaultEpoch = time.Date(2000, time.January, 1, 0, 0, 0, 0, time.UTC)

// Clock is a virtual clock. It only moves when Set or Advance is called;
// nothing in this package reads the wall clock. It is safe for concurrent use.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock reading start (DefaultEpoch when start is zero).
func NewClock(start time.Time) *Clock {
	if start.IsZero() {
		start = DefaultEpoch
	}
	return &Clock{now: start}
}

// Now returns the current virtual time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t. Moving it backwards is allowed: a test may want to
// replay a period; timestamps already written keep their values.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}

// Advance moves the clock forward by d and returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	return c.now
}

// timestamp renders t as Kubernetes does in metadata: RFC 3339, UTC, seconds.
func timestamp(t time.Time) string {
	return t.UTC().Format(time.RFC3339)
}
