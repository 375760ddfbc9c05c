package main

import (
	"context"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
)

// ichorCluster is a simulated cluster serving the Ichor kinds, holding one
// IchorInstallation without spec.autoPatch: its settings are the flags'.
func ichorCluster(t *testing.T) (*sim.Cluster, adapters.Ref) {
	t.Helper()
	c := sim.New(sim.NewClock(time.Date(2026, 11, 4, 3, 0, 0, 0, time.UTC)))
	for _, kind := range []string{"IchorInstallation", "TalosCluster", "TalosOperation"} {
		c.RegisterKind("ichor.maesh.dev/v1alpha1", kind, adapters.Namespaced, sim.KindOptions{HasStatus: true})
	}
	if err := c.Apply(map[string]any{
		"apiVersion": "ichor.maesh.dev/v1alpha1", "kind": "IchorInstallation",
		"metadata": map[string]any{"name": "ichor", "namespace": "default"},
		"spec":     map[string]any{"version": "1.4.0"},
	}); err != nil {
		t.Fatal(err)
	}
	return c, adapters.Ref{APIVersion: "ichor.maesh.dev/v1alpha1", Kind: "IchorInstallation", Namespace: "default", Name: "ichor"}
}

// A param given on the command line (`statecraft run --param`, what the
// chart's autoPatch values render) reaches the machine: the autopatch
// policy, with no spec.autoPatch on the installation, reports the flags'
// values as its effective settings and turns on.
func TestParamFlagReachesTheMachine(t *testing.T) {
	c, ref := ichorCluster(t)
	ms, err := servedMachines(context.Background(), "test", []string{"autopatch"}, []string{
		"autopatch.auto_patch=true",
		"autopatch.auto_patch_components=talos,kubernetes",
		"autopatch.auto_patch_window=02:00-05:00",
	}, c, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 || ms[0].Name != "autopatch" {
		t.Fatalf("machines %v", ms)
	}
	if _, err := engine.Reconcile(context.Background(), ms[0], c, ref, c.Clock().Now(), nil); err != nil {
		t.Fatal(err)
	}
	obj, _ := c.Object(ref)
	st, _ := obj["status"].(map[string]any)
	want := map[string]any{"autoPatch": true, "autoPatchComponents": []any{"talos", "kubernetes"}, "autoPatchWindow": "02:00-05:00"}
	if !reflect.DeepEqual(st["effective"], want) {
		t.Errorf("status.effective %v, want %v", st["effective"], want)
	}
	if st["state"] != "Active" {
		t.Errorf("state %v, want Active (auto_patch=true from the flag)", st["state"])
	}

	// Without the flags: the policy's defaults, off.
	c, ref = ichorCluster(t)
	ms, err = servedMachines(context.Background(), "test", []string{"autopatch"}, nil, c, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := engine.Reconcile(context.Background(), ms[0], c, ref, c.Clock().Now(), nil); err != nil {
		t.Fatal(err)
	}
	obj, _ = c.Object(ref)
	st, _ = obj["status"].(map[string]any)
	if eff, _ := st["effective"].(map[string]any); eff["autoPatch"] != false || eff["autoPatchWindow"] != "" || st["state"] != "Off" {
		t.Errorf("without --param: state %v, effective %v; want Off with the defaults", st["state"], st["effective"])
	}
}

// A --param that names nothing, or a value the param refuses, stops the
// start with a message naming the flag.
func TestParamFlagErrors(t *testing.T) {
	for _, c := range []struct{ flag, want string }{
		{"auto_patch=true", "want MACHINE.NAME=VALUE"},
		{"autopatch.auto_patch", "want MACHINE.NAME=VALUE"},
		{"nosuch.auto_patch=true", `no machine "nosuch" is loaded`},
		{"autopatch.auto_pach=true", `machine autopatch has no param "auto_pach"`},
		{"autopatch.auto_patch=yes", "want true or false"},
		{"autopatch.tick=often", "not a duration"},
		{"autopatch.create_tries=three", "not a whole number"},
		{"autopatch.auto_patch_window=25:00-05:00", "not valid (value == '' || upgrade.validWindow(value))"},
		{"autopatch.auto_patch_components=talos,flannel", "not valid"},
	} {
		cl, _ := ichorCluster(t)
		_, err := servedMachines(context.Background(), "test", []string{"autopatch"}, []string{c.flag}, cl, slog.New(slog.NewTextHandler(io.Discard, nil)), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--param") {
			t.Errorf("--param %s: %v, want an error containing %q", c.flag, err, c.want)
		}
	}
}
