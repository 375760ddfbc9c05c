package sim

import (
	"context"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonparse"
	"github.com/statecraft/statecraft/jsonvalue"
)

var start = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newCluster(t *testing.T, opts ...Option) *Cluster {
	t.Helper()
	return New(NewClock(start), opts...)
}

// body returns v as a request body: a canonical JSON value.
func body(v any) any {
	b, err := jsonvalue.Normalize(v)
	if err != nil {
		panic(err)
	}
	return b
}

// raw returns the JSON or YAML text s as a request body, or s itself when
// it is neither (a body the simulator must refuse).
func raw(s string) any {
	data, err := yaml.YAMLToJSON([]byte(s))
	if err != nil {
		return s
	}
	v, err := jsonparse.Parse(data, jsonparse.Options{})
	if err != nil {
		return s
	}
	return body(v)
}

func do(c *Cluster, req adapters.Request) adapters.Result {
	return c.Do(context.Background(), req)
}

func cmRef(ns, name string) adapters.Ref {
	return adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name}
}

func deployRef(name string) adapters.Ref {
	return adapters.Ref{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: name}
}

func configMap(ns, name string, labels map[string]any, data map[string]any) map[string]any {
	md := map[string]any{"name": name, "namespace": ns}
	if labels != nil {
		md["labels"] = labels
	}
	return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}
}

// deployment is a valid Deployment of one container "app".
func deployment(name string, replicas int) map[string]any {
	return map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec": map[string]any{"containers": []any{
					map[string]any{"name": "app", "image": "nginx:1.27"},
				}},
			},
		},
	}
}

func mustOK(t *testing.T, res adapters.Result) adapters.Result {
	t.Helper()
	if res.Outcome != adapters.OK {
		t.Fatalf("outcome %s (%s), want ok", res.Outcome, res.Message)
	}
	return res
}

func create(t *testing.T, c *Cluster, obj map[string]any) map[string]any {
	t.Helper()
	return mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: RefOf(obj), Body: body(obj)})).Object
}

func get(t *testing.T, c *Cluster, ref adapters.Ref) (map[string]any, bool) {
	t.Helper()
	res := do(c, adapters.Request{Verb: adapters.Get, Ref: ref})
	return res.Object, res.Outcome == adapters.OK
}

func field(obj map[string]any, p string) any {
	v, _ := getPath(obj, p)
	return v
}
