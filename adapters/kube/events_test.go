package kube

import (
	"context"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
)

func TestEventsRecord(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	obj := expect(t, c, adapters.Request{Verb: adapters.Create, Ref: widgetRef(ns, "ev"), Body: raw(`{"spec":{"size":1}}`)}, adapters.OK).Object

	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := NewEvents(c, "statecraft-test", func() time.Time { return clock })
	res := ev.Record(context.Background(), obj, EventWarning, "TargetAccessDenied", "patch deployments/web: forbidden")
	if res.Outcome != adapters.OK {
		t.Fatalf("record: %q %s", res.Outcome, res.Message)
	}
	clock = clock.Add(time.Second)
	if res := ev.Record(context.Background(), obj, EventNormal, "Applied", "patched"); res.Outcome != adapters.OK {
		t.Fatalf("record: %q %s", res.Outcome, res.Message)
	}

	list := expect(t, c, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "Event", Namespace: ns}}, adapters.OK)
	found := map[string]map[string]any{}
	for _, it := range list.Items {
		found[field(it, "reason")] = it
	}
	e, ok := found["TargetAccessDenied"]
	if !ok {
		t.Fatalf("event not listed; have %v", found)
	}
	for path, want := range map[string]string{
		"type": "Warning", "message": "patch deployments/web: forbidden",
		"involvedObject.kind": "Widget", "involvedObject.name": "ev",
		"involvedObject.uid": field(obj, "metadata", "uid"), "source.component": "statecraft-test",
		"lastTimestamp": "2026-01-02T03:04:05Z",
	} {
		var got string
		switch path {
		case "involvedObject.kind", "involvedObject.name", "involvedObject.uid":
			got = field(e, "involvedObject", path[len("involvedObject."):])
		case "source.component":
			got = field(e, "source", "component")
		default:
			got = field(e, path)
		}
		if got != want {
			t.Errorf("event %s = %q, want %q", path, got, want)
		}
	}
	if _, ok := found["Applied"]; !ok {
		t.Errorf("second event not listed")
	}

	// a cluster-scoped object's events go to "default"
	g := expect(t, c, adapters.Request{Verb: adapters.Create,
		Ref:  adapters.Ref{APIVersion: "test.statecraft.dev/v1", Kind: "Gadget", Name: ns + "-ev"},
		Body: raw(`{}`)}, adapters.OK).Object
	res = ev.Record(context.Background(), g, EventNormal, "Seen", "cluster-scoped")
	if res.Outcome != adapters.OK || field(res.Object, "metadata", "namespace") != "default" {
		t.Fatalf("cluster-scoped event: %q %s %v", res.Outcome, res.Message, res.Object["metadata"])
	}

	// refused before sending
	if res := ev.Record(context.Background(), map[string]any{}, EventNormal, "X", "y"); res.Outcome != adapters.Invalid {
		t.Errorf("event on an empty object: %q", res.Outcome)
	}
	if res := ev.Record(context.Background(), obj, "Loud", "X", "y"); res.Outcome != adapters.Invalid {
		t.Errorf("event of an unknown type: %q", res.Outcome)
	}
}
