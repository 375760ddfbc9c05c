package engine

import (
	"fmt"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/jsonvalue"
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
