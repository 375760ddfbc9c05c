package engine

import (
	"fmt"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
	"github.com/statecraft/statecraft/library"
)

// PlannedAction is an action with its requests computed: one request, or
// one per element of its for_each list.
type PlannedAction struct {
	Action   *fsm.Action
	Requests []adapters.Request
	// Items are the for_each elements, one per request (nil without
	// for_each).
	Items []any
	// Skipped is set when the action's when was false: it sends nothing
	// and ends ok.
	Skipped bool
	Err     error // a request could not be built (becomes outcome invalid)
}

func planAction(v *vars, a *fsm.Action) PlannedAction {
	pa := PlannedAction{Action: a}
	if a.When != nil {
		ok, err := v.evalBool(a.When)
		if err != nil {
			pa.Err = fmt.Errorf("when: %w", err)
			return pa
		}
		if !ok {
			pa.Skipped = true
			return pa
		}
	}
	if a.ForEach == nil {
		req, err := planRequest(v, a)
		pa.Err = err
		pa.Requests = []adapters.Request{req}
		return pa
	}
	list, err := v.eval(a.ForEach)
	if err != nil {
		pa.Err = fmt.Errorf("for_each: %w", err)
		return pa
	}
	items, _ := list.([]any)
	for i, it := range items {
		req, err := planRequest(v.with(map[string]any{"item": it, "index": int64(i)}), a)
		if err != nil {
			pa.Err = fmt.Errorf("for_each[%d]: %w", i, err)
			pa.Requests, pa.Items = nil, nil
			return pa
		}
		pa.Requests = append(pa.Requests, req)
		pa.Items = append(pa.Items, it)
	}
	return pa
}

func planRequest(v *vars, a *fsm.Action) (adapters.Request, error) {
	if a.Event != nil {
		return planEvent(v, a)
	}
	target, err := v.eval(a.Target)
	if err != nil {
		return adapters.Request{}, fmt.Errorf("target: %w", err)
	}
	tm, ok := target.(map[string]any)
	if !ok {
		return adapters.Request{}, fmt.Errorf("target: want a reference map, got %T", target)
	}
	req := adapters.Request{Ref: refFromMap(tm), DryRun: a.DryRun, Propagation: a.Propagation, FieldManager: "statecraft"}
	switch a.Verb {
	case "get":
		req.Verb = adapters.Get
	case "create":
		req.Verb = adapters.Create
	case "update":
		req.Verb = adapters.Update
	case "delete":
		req.Verb = adapters.Delete
	case "patch", "status":
		req.Verb = adapters.Patch
		req.PatchType = adapters.MergePatch
		if a.PatchType == "json" {
			req.PatchType = adapters.JSONPatch
		}
		if a.Verb == "status" {
			req.Subresource = "status"
		}
	case "apply":
		req.Verb = adapters.Patch
		req.PatchType = adapters.ApplyPatch
		req.Force = true
	}
	if a.Body != nil {
		body, err := v.eval(a.Body)
		if err != nil {
			return req, fmt.Errorf("body: %w", err)
		}
		req.Body = body
		if s, isString := body.(string); isString && req.PatchType == adapters.JSONPatch {
			// A pre-rendered RFC 6902 document.
			if req.Body, err = jsonvalue.Decode([]byte(s)); err != nil {
				return req, fmt.Errorf("body: %w", err)
			}
		}
	}
	if a.Identity != nil {
		id, err := v.eval(a.Identity)
		if err != nil {
			return req, fmt.Errorf("identity: %w", err)
		}
		req.Identity, _ = id.(string)
	}
	return req, nil
}

// planEvent plans an event action: the creation of an events.k8s.io/v1
// Event about the regarding object (by default the object reconciled), in
// its namespace ("default" for a cluster-scoped one), named as client-go
// names Events (the object's name and the time in hexadecimal nanoseconds)
// unless the action names it.
func planEvent(v *vars, a *fsm.Action) (adapters.Request, error) {
	ev := a.Event
	regarding := map[string]any{"apiVersion": v.self["apiVersion"], "kind": v.self["kind"], "name": metaString(v.self, "name")}
	if ns := metaString(v.self, "namespace"); ns != "" {
		regarding["namespace"] = ns
	}
	if uid := metaString(v.self, "uid"); uid != "" {
		regarding["uid"] = uid
	}
	if a.Regarding != nil {
		r, err := v.eval(a.Regarding)
		if err != nil {
			return adapters.Request{}, fmt.Errorf("regarding: %w", err)
		}
		m, ok := r.(map[string]any)
		if !ok {
			return adapters.Request{}, fmt.Errorf("regarding: want a reference map, got %T", r)
		}
		regarding = refMap(m)
	}
	note, err := v.eval(a.Note)
	if err != nil {
		return adapters.Request{}, fmt.Errorf("message: %w", err)
	}
	ns, _ := regarding["namespace"].(string)
	if ns == "" {
		ns = "default"
	}
	name := fmt.Sprintf("%v.%x", regarding["name"], v.now.UnixNano())
	if a.EventName != nil {
		n, err := v.eval(a.EventName)
		if err != nil {
			return adapters.Request{}, fmt.Errorf("name: %w", err)
		}
		name, _ = n.(string)
	}
	body := map[string]any{
		"apiVersion": "events.k8s.io/v1", "kind": "Event",
		"metadata":  map[string]any{"name": name, "namespace": ns},
		"regarding": regarding,
		"type":      ev.Type, "reason": ev.Reason, "action": ev.Action, "note": note,
		"eventTime":           v.now.UTC().Format(library.MicroTimeFormat),
		"reportingController": ev.Controller, "reportingInstance": ev.Instance,
	}
	if a.Related != nil {
		r, err := v.eval(a.Related)
		if err != nil {
			return adapters.Request{}, fmt.Errorf("related: %w", err)
		}
		if m, ok := r.(map[string]any); ok {
			body["related"] = refMap(m)
		}
	}
	return adapters.Request{Verb: adapters.Create, Ref: adapters.Ref{APIVersion: "events.k8s.io/v1", Kind: "Event", Namespace: ns, Name: name},
		Body: body, FieldManager: "statecraft"}, nil
}

// refMap keeps the members of a reference map an Event's regarding and
// related take.
func refMap(m map[string]any) map[string]any {
	out := map[string]any{}
	for _, k := range []string{"apiVersion", "kind", "namespace", "name", "uid"} {
		if s, _ := m[k].(string); s != "" {
			out[k] = s
		}
	}
	return out
}

func metaString(obj map[string]any, key string) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md[key].(string)
	return s
}
