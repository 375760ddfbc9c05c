package kube

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
)

// events lists the Events of ns by reason, waiting until want says enough
// arrived (recording is asynchronous).
func events(t *testing.T, c *Client, ns string, want func(map[string][]map[string]any) bool) map[string][]map[string]any {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list := expect(t, c, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: "v1", Kind: "Event", Namespace: ns}}, adapters.OK)
		found := map[string][]map[string]any{}
		for _, it := range list.Items {
			found[field(it, "reason")] = append(found[field(it, "reason")], it)
		}
		if want(found) || time.Now().After(deadline) {
			return found
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestEventsRecord(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	obj := expect(t, c, adapters.Request{Verb: adapters.Create, Ref: widgetRef(ns, "ev"), Body: raw(`{"spec":{"size":1}}`)}, adapters.OK).Object

	ev := NewEvents(c, "statecraft-test", nil)
	defer ev.Shutdown()
	if res := ev.Record(context.Background(), obj, EventWarning, "TargetAccessDenied", "patch deployments/web: forbidden"); res.Outcome != adapters.OK {
		t.Fatalf("record: %q %s", res.Outcome, res.Message)
	}
	// The same event three times more: aggregated into one Event, count 4.
	for range 3 {
		ev.Record(context.Background(), obj, EventWarning, "TargetAccessDenied", "patch deployments/web: forbidden")
	}
	ev.Record(context.Background(), obj, EventNormal, "Applied", "patched")

	found := events(t, c, ns, func(f map[string][]map[string]any) bool {
		return len(f["Applied"]) == 1 && len(f["TargetAccessDenied"]) == 1 && fmt.Sprint(f["TargetAccessDenied"][0]["count"]) == "4"
	})
	if len(found["TargetAccessDenied"]) != 1 {
		t.Fatalf("TargetAccessDenied events: %d, want 1 aggregated; have %v", len(found["TargetAccessDenied"]), found)
	}
	e := found["TargetAccessDenied"][0]
	for path, want := range map[string]string{
		"type": "Warning", "message": "patch deployments/web: forbidden", "count": "4",
		"involvedObject.kind": "Widget", "involvedObject.name": "ev",
		"involvedObject.uid": field(obj, "metadata", "uid"), "source.component": "statecraft-test",
	} {
		var got string
		switch path {
		case "involvedObject.kind", "involvedObject.name", "involvedObject.uid":
			got = field(e, "involvedObject", path[len("involvedObject."):])
		case "source.component":
			got = field(e, "source", "component")
		case "count":
			got = fmt.Sprint(e["count"])
		default:
			got = field(e, path)
		}
		if got != want {
			t.Errorf("event %s = %q, want %q", path, got, want)
		}
	}
	if len(found["Applied"]) != 1 {
		t.Errorf("Applied events: %v", found["Applied"])
	}

	// A cluster-scoped object's events go to "default".
	g := expect(t, c, adapters.Request{Verb: adapters.Create,
		Ref:  adapters.Ref{APIVersion: "test.statecraft.dev/v1", Kind: "Gadget", Name: ns + "-ev"},
		Body: raw(`{}`)}, adapters.OK).Object
	if res := ev.Record(context.Background(), g, EventNormal, "Seen"+ns, "cluster-scoped"); res.Outcome != adapters.OK {
		t.Fatalf("cluster-scoped event: %q %s", res.Outcome, res.Message)
	}
	if got := events(t, c, "default", func(f map[string][]map[string]any) bool { return len(f["Seen"+ns]) == 1 }); len(got["Seen"+ns]) != 1 {
		t.Errorf("no event of the cluster-scoped object in default")
	}

	// Refused before queueing.
	if res := ev.Record(context.Background(), map[string]any{}, EventNormal, "X", "y"); res.Outcome != adapters.Invalid {
		t.Errorf("event on an empty object: %q", res.Outcome)
	}
	if res := ev.Record(context.Background(), obj, "Loud", "X", "y"); res.Outcome != adapters.Invalid {
		t.Errorf("event of an unknown type: %q", res.Outcome)
	}
}

// TestEventsRateLimited: 40 distinct events on one object in a burst write
// 25 (the recorder's token bucket), not 40.
func TestEventsRateLimited(t *testing.T) {
	c := cluster(t)
	ns := namespace(t, c)
	obj := expect(t, c, adapters.Request{Verb: adapters.Create, Ref: widgetRef(ns, "burst"), Body: raw(`{"spec":{"size":1}}`)}, adapters.OK).Object
	ev := NewEvents(c, "statecraft-test", nil)
	defer ev.Shutdown()
	for i := range 40 {
		ev.Record(context.Background(), obj, EventNormal, fmt.Sprintf("Step%02d", i), "step")
	}
	total := func(f map[string][]map[string]any) int {
		n := 0
		for _, l := range f {
			n += len(l)
		}
		return n
	}
	found := events(t, c, ns, func(f map[string][]map[string]any) bool { return total(f) >= 25 })
	// Give a too-generous limit the time to show itself.
	time.Sleep(time.Second)
	found = events(t, c, ns, func(map[string][]map[string]any) bool { return true })
	if n := total(found); n != 25 {
		t.Errorf("%d Events written for 40 recorded in a burst, want 25", n)
	}
}
