package controller

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/statecraft/statecraft/adapters"
)

// Metrics are the controller's Prometheus metrics, in their own registry,
// with the Go runtime's, the process's, the work queue's and the REST
// client's (clientmetrics.go). Serve Gatherer.
type Metrics struct {
	Registry    *prometheus.Registry
	reconciles  *prometheus.CounterVec
	transitions *prometheus.CounterVec
	requests    *prometheus.CounterVec
	lateness    prometheus.Histogram

	mu  sync.Mutex
	due map[adapters.Ref]time.Time
}

func newMetrics(queueLen func() int) *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		reconciles: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statecraft_reconciles_total", Help: "Reconciles by machine and result (ok, error).",
		}, []string{"machine", "result"}),
		transitions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statecraft_transitions_total", Help: "Transitions taken, by machine, from-state, to-state and reason.",
		}, []string{"machine", "from", "to", "reason"}),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statecraft_api_requests_total", Help: "API requests by verb and outcome (reads served from informers included).",
		}, []string{"verb", "outcome"}),
		lateness: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "statecraft_wakeup_lateness_seconds",
			Help:    "How long after its requested wake-up time an object was reconciled.",
			Buckets: prometheus.ExponentialBuckets(0.005, 4, 10),
		}),
		due: map[adapters.Ref]time.Time{},
	}
	m.Registry.MustRegister(m.reconciles, m.transitions, m.requests, m.lateness,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "statecraft_queue_depth", Help: "Objects waiting to be reconciled now.",
		}, func() float64 { return float64(queueLen()) }))
	registerClientCollectors(m.Registry)
	return m
}

// Gatherer gathers everything /metrics serves: the registry and the REST
// client's metrics, which client-go keeps process-wide.
func (m *Metrics) Gatherer() prometheus.Gatherer {
	return prometheus.Gatherers{m.Registry, restGatherer{}}
}

func (m *Metrics) wakeAt(ref adapters.Ref, t time.Time) {
	m.mu.Lock()
	m.due[ref] = t
	m.mu.Unlock()
}

func (m *Metrics) woke(ref adapters.Ref, now time.Time) {
	m.mu.Lock()
	t, ok := m.due[ref]
	delete(m.due, ref)
	m.mu.Unlock()
	if ok && !now.Before(t) {
		m.lateness.Observe(now.Sub(t).Seconds())
	}
}

// counted wraps an API to count requests by verb and outcome.
type counted struct {
	adapters.API
	m *Metrics
}

func (c counted) Do(ctx context.Context, req adapters.Request) adapters.Result {
	res := c.API.Do(ctx, req)
	verb := string(req.Verb)
	if req.Subresource != "" {
		verb += "/" + req.Subresource
	}
	if req.DryRun {
		verb += " (dry-run)"
	}
	c.m.requests.WithLabelValues(verb, string(res.Outcome)).Inc()
	return res
}
