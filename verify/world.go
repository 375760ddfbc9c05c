package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	jsonpatch "github.com/evanphx/json-patch/v5"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/library"
)

// world is the abstract environment's concrete store: the objects that
// exist (the custom resource included), keyed by reference. It serves the
// engine's requests as an API server would for these verbs: merge, JSON and
// apply patches (apply as a merge, creating what does not exist), dry runs,
// the status subresource, generation bumps on spec changes, uids and
// creation times, and the garbage collector's cascade when an object is
// deleted (no finalizers); it has no RBAC or admission.
type world struct {
	objs map[adapters.Ref]map[string]any
	rv   int
	// now is the time of the reconcile being served: a created object's
	// creationTimestamp. uids counts the uids given to created objects.
	now  time.Time
	uids int
}

func (w *world) clone() *world {
	c := &world{objs: make(map[adapters.Ref]map[string]any, len(w.objs)), rv: w.rv, now: w.now, uids: w.uids}
	for k, v := range w.objs {
		c.objs[k] = deep(v)
	}
	return c
}

func deep(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	c, _ := library.Normalize(m).(map[string]any)
	return c
}

func key(r adapters.Ref) adapters.Ref {
	return adapters.Ref{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

func refOf(obj map[string]any) adapters.Ref {
	md, _ := obj["metadata"].(map[string]any)
	s := func(m map[string]any, k string) string { x, _ := m[k].(string); return x }
	return adapters.Ref{APIVersion: s(obj, "apiVersion"), Kind: s(obj, "kind"), Namespace: s(md, "namespace"), Name: s(md, "name")}
}

// scopes records how each kind is served (from the objects seen; a kind
// never seen is served with the scope its reference implies).
func (w *world) Scope(_ context.Context, apiVersion, kind string) adapters.Scope {
	for r := range w.objs {
		if r.APIVersion == apiVersion && r.Kind == kind {
			if r.Namespace == "" {
				return adapters.Cluster
			}
			return adapters.Namespaced
		}
	}
	return adapters.Namespaced
}

func (w *world) Do(_ context.Context, req adapters.Request) adapters.Result {
	ref := key(req.Ref)
	cur := w.objs[ref]
	switch req.Verb {
	case adapters.Get:
		if cur == nil {
			return adapters.Result{Outcome: adapters.NotFound, Message: fmt.Sprintf("%s not found", ref)}
		}
		return adapters.Result{Outcome: adapters.OK, Object: deep(cur)}
	case adapters.List:
		var items []map[string]any
		sel := parseSelector(req.LabelSelector)
		for r, o := range w.objs {
			if r.APIVersion == ref.APIVersion && r.Kind == ref.Kind && (ref.Namespace == "" || r.Namespace == ref.Namespace) && sel(o) {
				items = append(items, deep(o))
			}
		}
		sort.Slice(items, func(i, j int) bool {
			a, b := refOf(items[i]), refOf(items[j])
			return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
		})
		return adapters.Result{Outcome: adapters.OK, Items: items}
	case adapters.Delete:
		if cur == nil {
			return adapters.Result{Outcome: adapters.NotFound, Message: fmt.Sprintf("%s not found", ref)}
		}
		if !req.DryRun {
			w.remove(ref, req.Propagation != "Orphan")
		}
		return adapters.Result{Outcome: adapters.OK}
	case adapters.Create:
		if cur != nil {
			return adapters.Result{Outcome: adapters.Conflict, Message: fmt.Sprintf("%s already exists", ref)}
		}
		obj, isObject := req.Body.(map[string]any)
		if !isObject {
			return adapters.Result{Outcome: adapters.Invalid, Message: "the body is not a JSON object"}
		}
		obj = deep(obj)
		md, _ := obj["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
			obj["metadata"] = md
		}
		md["generation"] = int64(1)
		if _, ok := md["creationTimestamp"]; !ok {
			md["creationTimestamp"] = w.now.UTC().Format(time.RFC3339)
		}
		if _, ok := md["uid"]; !ok && !req.DryRun {
			w.uids++
			md["uid"] = fmt.Sprintf("verify-uid-%d", w.uids)
		}
		if !req.DryRun {
			w.store(ref, obj)
		}
		return adapters.Result{Outcome: adapters.OK, Object: deep(obj)}
	case adapters.Update, adapters.Patch:
		if cur == nil && req.PatchType == adapters.ApplyPatch && req.Subresource == "" {
			// Server-side apply creates what does not exist.
			return w.Do(context.Background(), adapters.Request{Verb: adapters.Create, Ref: req.Ref, Body: req.Body, DryRun: req.DryRun})
		}
		if cur == nil {
			return adapters.Result{Outcome: adapters.NotFound, Message: fmt.Sprintf("%s not found", ref)}
		}
		next, err := apply(cur, req)
		if err != nil {
			return adapters.Result{Outcome: adapters.Invalid, Message: err.Error()}
		}
		if req.Subresource == "status" {
			st := next["status"]
			next = deep(cur)
			if st == nil {
				delete(next, "status")
			} else {
				next["status"] = st
			}
		} else {
			next["status"] = cur["status"]
			if next["status"] == nil {
				delete(next, "status")
			}
			if !reflect.DeepEqual(cur["spec"], next["spec"]) {
				md, _ := next["metadata"].(map[string]any)
				g, _ := library.Normalize(metaOf(cur)["generation"]).(int64)
				md["generation"] = g + 1
			}
		}
		if !req.DryRun {
			w.store(ref, next)
		}
		return adapters.Result{Outcome: adapters.OK, Object: deep(next)}
	}
	return adapters.Result{Outcome: adapters.Unsupported, Message: "verify: verb " + string(req.Verb)}
}

// remove deletes an object and, with cascade, as the garbage collector
// would, the objects whose owner references all name it or objects so
// deleted.
func (w *world) remove(ref adapters.Ref, cascade bool) {
	gone := map[string]bool{}
	if uid, _ := metaOf(w.objs[ref])["uid"].(string); uid != "" {
		gone[uid] = true
	}
	delete(w.objs, ref)
	for cascade {
		cascade = false
		refs := make([]adapters.Ref, 0, len(w.objs))
		for r := range w.objs {
			refs = append(refs, r)
		}
		sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
		for _, r := range refs {
			owners, _ := metaOf(w.objs[r])["ownerReferences"].([]any)
			if len(owners) == 0 {
				continue
			}
			all := true
			for _, o := range owners {
				om, _ := o.(map[string]any)
				uid, _ := om["uid"].(string)
				all = all && gone[uid]
			}
			if all {
				if uid, _ := metaOf(w.objs[r])["uid"].(string); uid != "" {
					gone[uid] = true
				}
				delete(w.objs, r)
				cascade = true
			}
		}
	}
}

func metaOf(o map[string]any) map[string]any {
	md, _ := o["metadata"].(map[string]any)
	if md == nil {
		return map[string]any{}
	}
	return md
}

func (w *world) store(ref adapters.Ref, obj map[string]any) {
	w.rv++
	md := metaOf(obj)
	md["resourceVersion"] = fmt.Sprint(w.rv)
	obj["metadata"] = md
	w.objs[ref] = deep(obj)
}

func apply(cur map[string]any, req adapters.Request) (map[string]any, error) {
	doc, err := json.Marshal(cur)
	if err != nil {
		return nil, err
	}
	body, err := req.Payload()
	if err != nil {
		return nil, err
	}
	var out []byte
	switch {
	case req.Verb == adapters.Update:
		out = body
	case req.PatchType == adapters.JSONPatch:
		p, err := jsonpatch.DecodePatch(body)
		if err != nil {
			return nil, err
		}
		if out, err = p.Apply(doc); err != nil {
			return nil, err
		}
	default: // merge, and server-side apply approximated as a merge
		if out, err = jsonpatch.MergePatch(doc, body); err != nil {
			return nil, err
		}
	}
	var obj map[string]any
	if err := json.Unmarshal(out, &obj); err != nil {
		return nil, err
	}
	obj = deep(obj)
	// Keep the server's fields.
	md := metaOf(obj)
	for _, f := range []string{"generation", "uid", "resourceVersion", "creationTimestamp"} {
		if v, ok := metaOf(cur)[f]; ok {
			md[f] = v
		}
	}
	obj["metadata"] = md
	return obj, nil
}

// parseSelector supports equality selectors (a=b,c=d); anything else
// matches everything.
func parseSelector(s string) func(map[string]any) bool {
	if strings.TrimSpace(s) == "" {
		return func(map[string]any) bool { return true }
	}
	want := map[string]string{}
	for _, p := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(p, "=")
		if !ok {
			return func(map[string]any) bool { return true }
		}
		want[strings.TrimSpace(strings.TrimSuffix(k, "="))] = strings.TrimSpace(strings.TrimPrefix(v, "="))
	}
	return func(o map[string]any) bool {
		labels, _ := metaOf(o)["labels"].(map[string]any)
		for k, v := range want {
			if labels[k] != v {
				return false
			}
		}
		return true
	}
}

// comparable strips server fields and status: what another actor can
// change and drift means.
func content(o map[string]any) map[string]any {
	if o == nil {
		return nil
	}
	c := deep(o)
	delete(c, "status")
	md := metaOf(c)
	for _, f := range []string{"generation", "uid", "resourceVersion", "creationTimestamp", "managedFields"} {
		delete(md, f)
	}
	c["metadata"] = md
	return c
}

// mergePatch returns the RFC 7386 patch from a to b (content only).
func mergePatch(a, b map[string]any) map[string]any {
	ab, _ := json.Marshal(content(a))
	bb, _ := json.Marshal(content(b))
	p, err := jsonpatch.CreateMergePatch(ab, bb)
	if err != nil {
		return nil
	}
	var out map[string]any
	json.Unmarshal(p, &out)
	return out
}
