package controller

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	dto "github.com/prometheus/client_model/go"
	"k8s.io/client-go/util/workqueue"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// The metrics of client-go's own machinery, as every Kubernetes controller
// exports them: the work queue's (workqueue_*, by queue name "statecraft")
// through a metrics provider the queue is made with (not client-go's
// process-global one, which the API server's code linked in by the
// simulator sets for its own registry first), and the REST client's
// (rest_client_requests_total by code, method and host;
// rest_client_request_duration_seconds by verb and host) through
// controller-runtime's adapter of k8s.io/client-go/tools/metrics, which is
// process-global in client-go. The collectors are process-wide; every
// Controller's registry gathers them.

var (
	queueMetrics = struct {
		depth, unfinished, longest *prometheus.GaugeVec
		adds, retries              *prometheus.CounterVec
		latency, work              *prometheus.HistogramVec
	}{
		depth: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "depth",
			Help: "Current depth of the work queue."}, []string{"name"}),
		adds: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "adds_total",
			Help: "Adds handled by the work queue."}, []string{"name"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "queue_duration_seconds",
			Help: "How long an item stays in the work queue before it is requested.", Buckets: prometheus.ExponentialBuckets(10e-9, 10, 12)}, []string{"name"}),
		work: prometheus.NewHistogramVec(prometheus.HistogramOpts{Subsystem: "workqueue", Name: "work_duration_seconds",
			Help: "How long processing an item from the work queue takes.", Buckets: prometheus.ExponentialBuckets(10e-9, 10, 12)}, []string{"name"}),
		unfinished: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "unfinished_work_seconds",
			Help: "Seconds of work in progress that no work_duration_seconds has observed yet; large values mean stuck workers."}, []string{"name"}),
		longest: prometheus.NewGaugeVec(prometheus.GaugeOpts{Subsystem: "workqueue", Name: "longest_running_processor_seconds",
			Help: "Seconds the longest-running worker of the queue has been running."}, []string{"name"}),
		retries: prometheus.NewCounterVec(prometheus.CounterOpts{Subsystem: "workqueue", Name: "retries_total",
			Help: "Retries handled by the work queue."}, []string{"name"}),
	}
	processCollectors = []prometheus.Collector{
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	}
	restClientOnce sync.Once
)

// queueMetricsProvider is client-go's workqueue.MetricsProvider over
// queueMetrics.
type queueMetricsProvider struct{}

func (queueMetricsProvider) NewDepthMetric(name string) workqueue.GaugeMetric {
	return queueMetrics.depth.WithLabelValues(name)
}
func (queueMetricsProvider) NewAddsMetric(name string) workqueue.CounterMetric {
	return queueMetrics.adds.WithLabelValues(name)
}
func (queueMetricsProvider) NewLatencyMetric(name string) workqueue.HistogramMetric {
	return queueMetrics.latency.WithLabelValues(name)
}
func (queueMetricsProvider) NewWorkDurationMetric(name string) workqueue.HistogramMetric {
	return queueMetrics.work.WithLabelValues(name)
}
func (queueMetricsProvider) NewUnfinishedWorkSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return queueMetrics.unfinished.WithLabelValues(name)
}
func (queueMetricsProvider) NewLongestRunningProcessorSecondsMetric(name string) workqueue.SettableGaugeMetric {
	return queueMetrics.longest.WithLabelValues(name)
}
func (queueMetricsProvider) NewRetriesMetric(name string) workqueue.CounterMetric {
	return queueMetrics.retries.WithLabelValues(name)
}

// registerClientCollectors adds the Go runtime, process, work-queue and
// REST-client collectors to reg.
func registerClientCollectors(reg *prometheus.Registry) {
	restClientOnce.Do(func() {
		// rest_client_requests_total is registered by controller-runtime
		// itself; the latency histogram on request.
		ctrlmetrics.RegisterRESTClientMetrics(ctrlmetrics.MetricRequestLatency)
	})
	reg.MustRegister(processCollectors...)
	reg.MustRegister(queueMetrics.depth, queueMetrics.adds, queueMetrics.latency, queueMetrics.work,
		queueMetrics.unfinished, queueMetrics.longest, queueMetrics.retries)
}

// restGatherer gathers the rest_client_* families of controller-runtime's
// registry, where its client-go adapter keeps them.
type restGatherer struct{}

func (restGatherer) Gather() ([]*dto.MetricFamily, error) {
	all, err := ctrlmetrics.Registry.Gather()
	var out []*dto.MetricFamily
	for _, f := range all {
		if strings.HasPrefix(f.GetName(), "rest_client_") {
			out = append(out, f)
		}
	}
	return out, err
}
