package deploytest

import (
	"reflect"
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestChartPodValues: the scheduling, pull, annotation and argument values
// land where Kubernetes reads them, and their defaults render nothing (so
// the default render stays examples/deploy).
func TestChartPodValues(t *testing.T) {
	podSpec := func(all objects) map[string]any {
		t.Helper()
		d := all["Deployment/"+namespace+"/statecraft"]
		if d == nil {
			t.Fatalf("no Deployment among %v", all.keys())
		}
		spec, _, _ := unstructured.NestedMap(d.Object, "spec", "template")
		return spec
	}
	def := podSpec(render(t, nil))
	for _, f := range []string{"nodeSelector", "tolerations", "affinity", "imagePullSecrets"} {
		if _, ok := def["spec"].(map[string]any)[f]; ok {
			t.Errorf("the default render has %s", f)
		}
	}
	if _, ok, _ := unstructured.NestedMap(def, "metadata", "annotations"); ok {
		t.Error("the default render has pod annotations")
	}

	tolerations := []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "ops", "effect": "NoSchedule"}}
	affinity := map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
		"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}}}}}}
	got := render(t, map[string]any{
		"nodeSelector":     map[string]any{"kubernetes.io/os": "linux"},
		"tolerations":      tolerations,
		"affinity":         affinity,
		"imagePullSecrets": []any{map[string]any{"name": "regcred"}},
		"podAnnotations":   map[string]any{"prometheus.io/scrape": "true"},
		"extraArgs":        []any{"--log-format=json", "--workers=8"},
	})
	tpl := podSpec(got)
	spec := tpl["spec"].(map[string]any)
	for f, want := range map[string]any{
		"nodeSelector":     map[string]any{"kubernetes.io/os": "linux"},
		"tolerations":      tolerations,
		"affinity":         affinity,
		"imagePullSecrets": []any{map[string]any{"name": "regcred"}},
	} {
		if !reflect.DeepEqual(spec[f], want) {
			t.Errorf("%s = %v, want %v", f, spec[f], want)
		}
	}
	if a, _, _ := unstructured.NestedStringMap(tpl, "metadata", "annotations"); !reflect.DeepEqual(a, map[string]string{"prometheus.io/scrape": "true"}) {
		t.Errorf("pod annotations %v", a)
	}
	args, _, _ := unstructured.NestedStringSlice(container(t, got), "args")
	if want := []string{"run", "--leader-elect", "--metrics-addr=:8080", "--health-addr=:8081", "--log-format=json", "--workers=8"}; !slices.Equal(args, want) {
		t.Errorf("args %v, want %v", args, want)
	}
	for _, bad := range []map[string]any{
		{"extraArgs": "--workers=8"},
		{"nodeSelector": []any{"linux"}},
		{"imagePullSecrets": []any{map[string]any{"secret": "x"}}},
		{"serviceMonitor.intervall": "10s"},
	} {
		if _, err := renderList(loadChart(t), bad); err == nil {
			t.Errorf("%v: rendered without error", bad)
		}
	}
}

// TestChartServiceMonitor: off by default; on, a Service for the metrics
// port and a ServiceMonitor that selects it by its labels and scrapes the
// port by name.
func TestChartServiceMonitor(t *testing.T) {
	if sm := render(t, nil).ofKind("ServiceMonitor", "Service"); len(sm) > 0 {
		t.Errorf("the default render has %v", sm.keys())
	}
	got := render(t, map[string]any{"serviceMonitor.enabled": true, "serviceMonitor.interval": "15s", "serviceMonitor.labels": map[string]any{"release": "prom"}})
	svc := got["Service/"+namespace+"/statecraft-metrics"]
	sm := got["ServiceMonitor/"+namespace+"/statecraft"]
	if svc == nil || sm == nil {
		t.Fatalf("serviceMonitor.enabled renders %v", got.keys())
	}
	if sel, _, _ := unstructured.NestedStringMap(svc.Object, "spec", "selector"); !reflect.DeepEqual(sel, map[string]string{"app.kubernetes.io/name": "statecraft", "app.kubernetes.io/instance": "statecraft"}) {
		t.Errorf("Service selector %v", sel)
	}
	ports, _, _ := unstructured.NestedSlice(svc.Object, "spec", "ports")
	if len(ports) != 1 || ports[0].(map[string]any)["targetPort"] != "metrics" {
		t.Errorf("Service ports %v", ports)
	}
	match, _, _ := unstructured.NestedStringMap(sm.Object, "spec", "selector", "matchLabels")
	for k, v := range match {
		if svc.GetLabels()[k] != v {
			t.Errorf("the ServiceMonitor selects %s=%s, which the Service lacks (%v)", k, v, svc.GetLabels())
		}
	}
	if sm.GetLabels()["release"] != "prom" {
		t.Errorf("ServiceMonitor labels %v", sm.GetLabels())
	}
	eps, _, _ := unstructured.NestedSlice(sm.Object, "spec", "endpoints")
	if !reflect.DeepEqual(eps, []any{map[string]any{"port": "metrics", "path": "/metrics", "interval": "15s"}}) {
		t.Errorf("endpoints %v", eps)
	}
}
