package sim

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// fuzzBodies are the bodies a fuzzed request may carry: objects, merge
// patches, JSON patches and applied configurations, well-formed and not
// (wrong names, kinds and resourceVersions, null, lists where maps go).
var fuzzBodies = []string{
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w0","namespace":"default"},"spec":{"n":1}}`,
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default","labels":{"app":"a"}},"spec":{"n":2,"l":[1,2]}}`,
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w0","namespace":"other"},"spec":{}}`,
	`{"apiVersion":"example.com/v1","kind":"Gadget","metadata":{"name":"w0","namespace":"default"}}`,
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w0","namespace":"default","resourceVersion":"1"},"spec":{"n":3}}`,
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"generateName":"w-","namespace":"default"},"spec":{"n":4}}`,
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w2","namespace":"default","finalizers":["x/y"],"ownerReferences":[{"apiVersion":"example.com/v1","kind":"Widget","name":"w0","uid":"u","controller":true}]}}`,
	`{"spec":{"n":5}}`,
	`{"spec":{"n":null,"m":{"k":"v"}}}`,
	`{"metadata":{"labels":{"app":"b"},"annotations":{"a":"1"}}}`,
	`{"metadata":{"finalizers":null}}`,
	`{"metadata":{"name":"renamed"}}`,
	`{"status":{"phase":"Ready","count":1.5}}`,
	`[{"op":"add","path":"/spec/x","value":1}]`,
	`[{"op":"replace","path":"/spec/n","value":"s"}]`,
	`[{"op":"remove","path":"/spec/missing"}]`,
	`[{"op":"test","path":"/spec/n","value":1}]`,
	`[{"op":"move","from":"/spec/n","path":"/spec/o"}]`,
	`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w0","namespace":"default"},"spec":{"applied":true}}`,
	`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w0","namespace":"default"},"data":{"k":"v"}}`,
	`null`,
	`[]`,
	`"text"`,
	`{"metadata":"not a map"}`,
}

var fuzzVerbs = []adapters.Verb{adapters.Get, adapters.List, adapters.Create, adapters.Update, adapters.Patch, adapters.Delete}
var fuzzPatchTypes = []adapters.PatchType{adapters.MergePatch, adapters.JSONPatch, adapters.ApplyPatch, "bogus"}
var fuzzNames = []string{"w0", "w1", "w2", ""}
var fuzzSelectors = []string{"", "app=a", "app!=a", "app in (a,b)", "!app", "bad selector!"}
var fuzzPropagation = []string{"", "Background", "Foreground", "Orphan", "Sideways"}

// FuzzRequests sends a sequence of requests, each decoded from five bytes
// (verb, object, body, patch type and flags, selector and propagation), to
// a simulated cluster. The simulator must answer every one with an outcome
// of the vocabulary, never panic, and keep the API server's promises: a
// successful write's result is what a get then returns; a dry run or a
// refused request changes nothing a get sees; stored resourceVersions never
// go back, and a write that changes the object takes a newer one; every result is a canonical JSON value; a deleted object is gone or
// being deleted (and one being deleted goes once its last finalizer does).
func FuzzRequests(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 0, 0, 0, 0, 4, 0, 8, 0, 0, 4, 0, 13, 1, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 1, 1, 0, 0, 4, 1, 12, 16, 0, 1, 3, 0, 0, 1, 5, 1, 0, 0, 2})
	f.Add([]byte{2, 0, 0, 0, 0, 4, 0, 18, 2, 0, 3, 0, 4, 0, 0, 5, 0, 0, 0, 3, 0, 0, 0, 0, 0})
	f.Add([]byte{2, 2, 6, 0, 0, 5, 2, 0, 0, 1, 0, 2, 0, 0, 0, 4, 2, 10, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 500 {
			return
		}
		c := New(NewClock(DefaultEpoch))
		c.RegisterKind("example.com/v1", "Widget", adapters.Namespaced, KindOptions{HasStatus: true})
		ctx := context.Background()
		lastRV := int64(0)
		for i := 0; i+5 <= len(data); i += 5 {
			b := data[i : i+5]
			req := adapters.Request{
				Verb:          fuzzVerbs[int(b[0])%len(fuzzVerbs)],
				Ref:           adapters.Ref{APIVersion: "example.com/v1", Kind: "Widget", Namespace: "default", Name: fuzzNames[int(b[1])%len(fuzzNames)]},
				PatchType:     fuzzPatchTypes[int(b[3])%len(fuzzPatchTypes)],
				DryRun:        b[3]&0x10 != 0,
				LabelSelector: fuzzSelectors[int(b[4])%len(fuzzSelectors)],
				Propagation:   fuzzPropagation[int(b[4]>>4)%len(fuzzPropagation)],
				FieldManager:  "m" + strconv.Itoa(int(b[3]>>6)),
				Force:         b[3]&0x20 != 0,
			}
			if b[1]&0x80 != 0 {
				req.Ref.Namespace = "missing"
			}
			if b[3]&0x08 != 0 {
				req.Subresource = "status"
			}
			if req.Verb == adapters.List {
				req.Ref.Name = ""
			}
			if req.Verb == adapters.Create || req.Verb == adapters.Update || req.Verb == adapters.Patch {
				req.Body = raw(fuzzBodies[int(b[2])%len(fuzzBodies)])
			}
			// The simulated controllers due by now act first, as every
			// request runs them before it is served: what the garbage
			// collector does then (an object whose owner is gone marked
			// deleted) is not the request's doing.
			c.RunControllers()
			before, existed := c.Object(req.Ref)
			res := c.Do(ctx, req)
			what := fmt.Sprintf("request %d (%s %s %s dry-run=%v %s): %s %s", i/5, req.Verb, req.Subresource, req.PatchType, req.DryRun, req.Ref, res.Outcome, res.Message)
			known := false
			for _, o := range adapters.Outcomes {
				known = known || o == res.Outcome
			}
			if !known {
				t.Fatalf("%s: outcome outside the vocabulary", what)
			}
			if res.Object != nil && !jsonvalue.IsCanonical(res.Object) {
				t.Fatalf("%s: result is not canonical", what)
			}
			for _, it := range res.Items {
				if !jsonvalue.IsCanonical(it) {
					t.Fatalf("%s: list item is not canonical", what)
				}
			}
			after, exists := c.Object(req.Ref)
			write := req.Verb != adapters.Get && req.Verb != adapters.List
			if write && (req.DryRun || res.Outcome != adapters.OK) && req.Ref.Name != "" {
				if existed != exists || (existed && !jsonvalue.Equal(before, after)) {
					t.Fatalf("%s: a dry run or refused request changed the object", what)
				}
			}
			if res.Outcome == adapters.OK && write && !req.DryRun && req.Verb != adapters.Delete && res.Object != nil {
				md, _ := res.Object["metadata"].(map[string]any)
				name, _ := md["name"].(string)
				stored, ok := c.Object(adapters.Ref{APIVersion: req.Ref.APIVersion, Kind: "Widget", Namespace: "default", Name: name})
				_, deleting := md["deletionTimestamp"]
				fins, _ := md["finalizers"].([]any)
				gone := !ok && deleting && len(fins) == 0 // its last finalizer removed
				if !gone && (!ok || !jsonvalue.Equal(stored, res.Object)) {
					t.Fatalf("%s: a get does not return what the write answered", what)
				}
				// A write that changes nothing keeps the object's
				// resourceVersion, as kube-apiserver's does, however far
				// other objects' writes have moved the store since; a write
				// that changes it takes a version newer than every write
				// before it that changed an object. A write that removed the last finalizer answers at
				// the version it was written against
				// (TestEmptiedFinalizersAnswer): the object is gone, so that
				// version is not one stored.
				answeredRV := fmt.Sprint(md["resourceVersion"])
				rv, err := strconv.ParseInt(answeredRV, 10, 64)
				if err != nil {
					t.Fatalf("%s: resourceVersion %v is not a number", what, answeredRV)
				}
				bmd, _ := before["metadata"].(map[string]any)
				beforeRV := fmt.Sprint(bmd["resourceVersion"])
				changed := !existed || !jsonvalue.Equal(before, stored)
				switch {
				case gone:
					if answeredRV != beforeRV {
						t.Fatalf("%s: the answer of a write that removed the last finalizer is at resourceVersion %v, not at the one it was written against, %v", what, answeredRV, beforeRV)
					}
				case changed:
					if rv <= lastRV {
						t.Fatalf("%s: a write that changed the object took resourceVersion %d, not newer than %d", what, rv, lastRV)
					}
					lastRV = rv
				default:
					if answeredRV != beforeRV {
						t.Fatalf("%s: a write that changed nothing moved the resourceVersion from %v to %v", what, beforeRV, answeredRV)
					}
				}
			}
			if req.Verb == adapters.Delete && res.Outcome == adapters.OK && !req.DryRun && exists {
				md, _ := after["metadata"].(map[string]any)
				if _, deleting := md["deletionTimestamp"]; !deleting {
					t.Fatalf("%s: a deleted object is still there and not being deleted", what)
				}
			}
			c.Clock().Advance(time.Second)
		}
	})
}
