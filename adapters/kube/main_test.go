package kube

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/jsonvalue"
)

// One control plane serves every test of the package; each test works in its
// own namespace.
var (
	testPlane  *controlplane.ControlPlane
	testClient *Client
	startErr   error // why the control plane did not start, when it did not
)

func TestMain(m *testing.M) {
	code := func() int {
		if controlplane.Unavailable() != "" {
			// Tests that need the cluster skip or fail one by one.
			return m.Run()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		testPlane, startErr = controlplane.Start(ctx, controlplane.Options{
			CRDDirs: []string{filepath.Join("testdata", "crds")},
		})
		if startErr == nil {
			testClient, startErr = New(testPlane.Config, Options{FieldManager: "statecraft-test"})
		}
		defer func() {
			if err := testPlane.Stop(); err != nil {
				fmt.Fprintln(os.Stderr, "stop control plane:", err)
			}
		}()
		return m.Run()
	}()
	os.Exit(code)
}

// cluster returns the shared client, skipping the test when the control-plane
// binaries are missing (failing it when $STATECRAFT_REQUIRE_CONTROLPLANE is
// "1") and failing it when the control plane did not start.
func cluster(t *testing.T) *Client {
	t.Helper()
	controlplane.SkipOrFail(t)
	if startErr != nil {
		t.Fatalf("control plane: %v", startErr)
	}
	if testClient == nil {
		t.Fatal("control plane: not started")
	}
	return testClient
}

var nsCounter int

// namespace creates a fresh namespace for one test.
func namespace(t *testing.T, c *Client) string {
	t.Helper()
	nsCounter++
	name := fmt.Sprintf("t%d-%d", nsCounter, time.Now().UnixNano()%100000)
	expect(t, c, adapters.Request{
		Verb: adapters.Create,
		Ref:  adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: name},
		Body: raw(`{}`),
	}, adapters.OK)
	return name
}

// expect runs req and fails the test unless its outcome is want.
func expect(t *testing.T, c *Client, req adapters.Request, want adapters.Outcome) adapters.Result {
	t.Helper()
	res := c.Do(context.Background(), req)
	if res.Outcome != want {
		t.Fatalf("%s %s: outcome %q (%s), want %q", req.Verb, req.Ref, res.Outcome, res.Message, want)
	}
	if want != adapters.OK && res.Message == "" {
		t.Errorf("%s %s: outcome %q with no message", req.Verb, req.Ref, res.Outcome)
	}
	return res
}

func cmRef(ns, name string) adapters.Ref {
	return adapters.Ref{APIVersion: "v1", Kind: "ConfigMap", Namespace: ns, Name: name}
}

func widgetRef(ns, name string) adapters.Ref {
	return adapters.Ref{APIVersion: "test.statecraft.dev/v1", Kind: "Widget", Namespace: ns, Name: name}
}

// field reads a nested string or number field of an object as a string.
func field(obj map[string]any, path ...string) string {
	var cur any = obj
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return ""
		}
		cur = m[p]
	}
	if cur == nil {
		return ""
	}
	return fmt.Sprint(cur)
}

// raw returns the JSON text s as a request body (a canonical JSON value),
// or s itself when it is not JSON (a body the API must refuse).
func raw(s string) any {
	v, err := jsonvalue.Decode([]byte(s))
	if err != nil {
		return s
	}
	return v
}
