package controller

import (
	"testing"

	"k8s.io/client-go/rest"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	// The simulator links kube-apiserver's code, whose init sets
	// client-go's process-global work-queue metrics provider to its own
	// registry: the controller's queue must report to its registry anyway,
	// as it does in the statecraft binary, which links both.
	_ "github.com/statecraft/statecraft/adapters/sim"
)

// TestQueueMetricsReachTheRegistry: the work queue's adds and depth are in
// the controller's /metrics families, by the queue's name.
func TestQueueMetricsReachTheRegistry(t *testing.T) {
	client, err := kube.New(&rest.Config{Host: "http://127.0.0.1:1"}, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(client, nil, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.queue.Add(adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: "default", Name: "x"})
	families, err := c.Metrics().Gatherer().Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"workqueue_adds_total": false, "workqueue_depth": false}
	for _, f := range families {
		if _, ok := want[f.GetName()]; !ok {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "name" && l.GetValue() == "statecraft" {
					want[f.GetName()] = true
				}
			}
		}
	}
	for name, found := range want {
		if !found {
			t.Errorf("%s{name=\"statecraft\"} not gathered", name)
		}
	}
}
