package sim

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

func opRef(name string) adapters.Ref {
	return adapters.Ref{APIVersion: "rightsizing.kubex.ai/v1alpha1", Kind: "ObjectPatch", Namespace: "default", Name: name}
}

// withCRDs returns a cluster serving the shipped ObjectPatch CRD.
func withCRDs(t testing.TB, opts ...Option) *Cluster {
	t.Helper()
	c := New(NewClock(start), opts...)
	if err := c.Apply(crdObject(t, "rightsizing.kubex.ai_objectpatches.yaml")); err != nil {
		t.Fatal(err)
	}
	return c
}

// Built-in kinds are decoded into their types and defaulted by the server's
// own code; a body the types cannot hold is refused with the server's
// message.
func TestBuiltinDecodingAndDefaulting(t *testing.T) {
	c := newCluster(t)
	d := create(t, c, deployment("web", 2))
	for p, want := range map[string]any{
		"/spec/strategy/type":                               "RollingUpdate",
		"/spec/revisionHistoryLimit":                        int64(10),
		"/spec/progressDeadlineSeconds":                     int64(600),
		"/spec/template/spec/restartPolicy":                 "Always",
		"/spec/template/spec/dnsPolicy":                     "ClusterFirst",
		"/spec/template/spec/terminationGracePeriodSeconds": int64(30),
	} {
		if got := pathValue(d, p); !jsonvalue.Equal(got, want) {
			t.Errorf("%s = %v, want %v", p, got, want)
		}
	}
	ctr := pathValue(d, "/spec/template/spec/containers").([]any)[0].(map[string]any)
	for k, want := range map[string]any{"imagePullPolicy": "IfNotPresent", "terminationMessagePath": "/dev/termination-log",
		"terminationMessagePolicy": "File", "resources": map[string]any{}} {
		if !jsonvalue.Equal(ctr[k], want) {
			t.Errorf("container %s = %v, want %v", k, ctr[k], want)
		}
	}
	// An image change by merge patch replaces the list; the server
	// defaults the new container again.
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: deployRef("web"),
		Body: raw(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.28"}]}}}}`)}))
	ctr = pathValue(res.Object, "/spec/template/spec/containers").([]any)[0].(map[string]any)
	if ctr["image"] != "nginx:1.28" || ctr["imagePullPolicy"] != "IfNotPresent" || generationOf(res.Object) != 2 {
		t.Errorf("after the image patch: %v, generation %d", ctr, generationOf(res.Object))
	}
	// A ConfigMap with a number in data cannot be decoded.
	bad := do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "n"), Body: raw(`{"metadata":{"name":"n"},"data":{"k":1}}`)})
	if bad.Outcome != adapters.Invalid || bad.Message != `ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into Go struct field ConfigMap.data of type string` {
		t.Errorf("number in data: %s %q", bad.Outcome, bad.Message)
	}
	// Validation is the server's: a Deployment without containers.
	nd := deployment("empty", 1)
	nd["spec"].(map[string]any)["template"].(map[string]any)["spec"] = map[string]any{"containers": []any{}}
	res = do(c, adapters.Request{Verb: adapters.Create, Ref: deployRef("empty"), Body: body(nd)})
	if res.Outcome != adapters.Invalid || !strings.Contains(res.Message, `Deployment.apps "empty" is invalid: spec.template.spec.containers: Required value`) {
		t.Errorf("no containers: %s %q", res.Outcome, res.Message)
	}
	// Names and labels: apimachinery's validation.
	res = do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "a"), Body: body(configMap("default", "a", map[string]any{"k": "bad value"}, nil))})
	if res.Outcome != adapters.Invalid || !strings.Contains(res.Message, `metadata.labels: Invalid value: "bad value"`) {
		t.Errorf("bad label: %s %q", res.Outcome, res.Message)
	}
	// An HPA and a PDB are defaulted too.
	hpa := mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: adapters.Ref{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler", Namespace: "default", Name: "h"},
		Body: raw(`{"metadata":{"name":"h"},"spec":{"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"web"},"maxReplicas":5}}`)})).Object
	if pathValue(hpa, "/spec/minReplicas") != int64(1) || pathValue(hpa, "/spec/metrics") == nil {
		t.Errorf("HPA defaults: %v", hpa["spec"])
	}
	pdb := mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: adapters.Ref{APIVersion: "policy/v1", Kind: "PodDisruptionBudget", Namespace: "default", Name: "p"},
		Body: raw(`{"metadata":{"name":"p"},"spec":{"minAvailable":1,"selector":{"matchLabels":{"app":"web"}}}}`)})).Object
	if generationOf(pdb) != 1 || pathValue(pdb, "/spec/minAvailable") != int64(1) {
		t.Errorf("PDB: %v", pdb)
	}
}

// Custom resources are served by their CRD's structural schema:
// defaulting, pruning of unknown fields, OpenAPI validation and
// x-kubernetes-validations rules, transition rules included, with the
// server's messages; an update without resourceVersion is refused.
func TestCustomResources(t *testing.T) {
	c := withCRDs(t)
	op := objectPatch("default", "p")
	delete(op["spec"].(map[string]any), "requeueInterval")
	op["spec"].(map[string]any)["unknownField"] = "x"
	got := create(t, c, op)
	if pathValue(got, "/spec/requeueInterval") != "5m" || pathValue(got, "/spec/retryAmount") != int64(3) {
		t.Errorf("defaults: %v", got["spec"])
	}
	if _, has := got["spec"].(map[string]any)["unknownField"]; has {
		t.Error("an unknown field was kept")
	}
	if generationOf(got) != 1 {
		t.Errorf("generation %d", generationOf(got))
	}
	// OpenAPI validation.
	res := do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: opRef("p"), Body: raw(`{"spec":{"requeueInterval":"soon"}}`)})
	if res.Outcome != adapters.Invalid || !strings.Contains(res.Message, `ObjectPatch.rightsizing.kubex.ai "p" is invalid: [spec.requeueInterval: Invalid value: "soon": spec.requeueInterval in body should match`) {
		t.Errorf("pattern: %s %q", res.Outcome, res.Message)
	}
	// A transition rule: targetRef is immutable.
	res = do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: opRef("p"), Body: raw(`{"spec":{"targetRef":{"name":"other"}}}`)})
	if res.Outcome != adapters.Invalid || !strings.Contains(res.Message, "spec.targetRef: Invalid value: targetRef is immutable") {
		t.Errorf("transition rule: %s %q", res.Outcome, res.Message)
	}
	// A rule on spec.
	res = do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: opRef("p"), Body: raw(`{"spec":{"patch":null}}`)})
	if res.Outcome != adapters.Invalid || !strings.Contains(res.Message, "at least one of patch or jsonPatch is required") {
		t.Errorf("spec rule: %s %q", res.Outcome, res.Message)
	}
	// A refused status write.
	res = do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: opRef("p"), Subresource: "status",
		Body: raw(`{"status":{"conditions":[{"type":"Ready","status":"Maybe"}]}}`)})
	if res.Outcome != adapters.Invalid || !strings.Contains(res.Message, `status.conditions[0].status: Unsupported value: "Maybe"`) {
		t.Errorf("status write: %s %q", res.Outcome, res.Message)
	}
	// An update of a custom resource needs a resourceVersion.
	upd := copyObject(got)
	delete(metadata(upd), "resourceVersion")
	res = do(c, adapters.Request{Verb: adapters.Update, Ref: opRef("p"), Body: body(upd)})
	if res.Outcome != adapters.Invalid || res.Message != `objectpatches.rightsizing.kubex.ai "p" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update` {
		t.Errorf("update without resourceVersion: %s %q", res.Outcome, res.Message)
	}
	// A status write to a kind without a status subresource.
	res = do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "x"), Subresource: "status", Body: raw(`{"status":{}}`)})
	if res.Outcome != adapters.NotFound {
		t.Errorf("status of a ConfigMap: %s %q", res.Outcome, res.Message)
	}
}

// A dry run that the server re-defaults back to the stored object changes
// nothing: no generation, no resourceVersion.
func TestDryRunRedefaulted(t *testing.T) {
	c := newCluster(t)
	d := create(t, c, deployment("web", 2))
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: deployRef("web"), DryRun: true,
		Body: raw(`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"nginx:1.27"}]}}}}`)}))
	if generationOf(res.Object) != 1 || metaString(res.Object, "resourceVersion") != metaString(d, "resourceVersion") {
		t.Errorf("a dry run the server defaults back: generation %d, resourceVersion %s (was %s)", generationOf(res.Object),
			metaString(res.Object, "resourceVersion"), metaString(d, "resourceVersion"))
	}
}

// Server-side apply merges lists by the keys the schema declares:
// containers by name, finalizers as a set; an apply that changes only
// ownership is a change (a new resourceVersion).
func TestServerSideApplyListTypes(t *testing.T) {
	c := newCluster(t)
	create(t, c, deployment("web", 2))
	side := raw(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","finalizers":["example.com/a"]},
		"spec":{"selector":{"matchLabels":{"app":"web"}},"template":{"metadata":{"labels":{"app":"web"}},"spec":{"containers":[{"name":"side","image":"busybox"}]}}}}`)
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: deployRef("web"), FieldManager: "sidecar", Body: side}))
	ctrs := pathValue(res.Object, "/spec/template/spec/containers").([]any)
	if len(ctrs) != 2 {
		t.Fatalf("containers after applying a sidecar: %v", ctrs)
	}
	res = mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: deployRef("web"), FieldManager: "other",
		Body: raw(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web","namespace":"default","finalizers":["example.com/b"]}}`)}))
	if fins := stringList(metadata(res.Object)["finalizers"]); len(fins) != 2 {
		t.Errorf("finalizers merge as a set: %v", fins)
	}
	// Applying again what sidecar applied, as a third manager: only
	// ownership changes, and the server writes it.
	rv := metaString(res.Object, "resourceVersion")
	res = mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: deployRef("web"), FieldManager: "third", Body: side}))
	if metaString(res.Object, "resourceVersion") == rv {
		t.Error("an apply that changed only ownership kept the resourceVersion")
	}
}

// The shortcuts (fast.go) answer every write as the full path does: a
// random sequence of label patches and status writes, valid and not, on
// built-in kinds and a custom resource, sent to a cluster that takes them
// and to one that takes the full path for every write, gets the same
// answers and leaves the same objects.
func TestShortcutsAgree(t *testing.T) {
	quick, full := withCRDs(t), withCRDs(t)
	full.fullPath = true
	refs := []adapters.Ref{cmRef("default", "c"), deployRef("d"), opRef("p"),
		{APIVersion: "v1", Kind: "Namespace", Name: "n"}}
	for _, c := range []*Cluster{quick, full} {
		create(t, c, configMap("default", "c", map[string]any{"a": "1"}, map[string]any{"k": "v"}))
		create(t, c, deployment("d", 1))
		create(t, c, objectPatch("default", "p"))
		mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: refs[3], Body: raw(`{"metadata":{"name":"n"}}`)}))
	}
	labelValues := []any{"x", "y", "", "bad value", "-x", int64(1), nil, strings.Repeat("v", 64)}
	labelKeys := []string{"a", "b", "example.com/c", "kubernetes.io/metadata.name", "bad/key/x", "-k"}
	statusValues := []func(r *rand.Rand) any{
		func(r *rand.Rand) any { return "Applied" },
		func(r *rand.Rand) any { return int64(r.IntN(3) - 1) },
		func(r *rand.Rand) any { return fmt.Sprintf("2026-01-01T00:%02d:00Z", r.IntN(60)) },
		func(r *rand.Rand) any { return "not a time" },
		func(r *rand.Rand) any { return nil },
		func(r *rand.Rand) any { return map[string]any{"nested": "x"} },
	}
	condition := func(r *rand.Rand) any {
		c := map[string]any{"type": []string{"Ready", "Drifted", "bad type!"}[r.IntN(3)],
			"status": []string{"True", "False", "Maybe"}[r.IntN(3)], "reason": []string{"Applied", "", "bad reason"}[r.IntN(3)],
			"message": "m", "lastTransitionTime": "2026-01-01T00:00:00Z"}
		if r.IntN(5) == 0 {
			delete(c, "message")
		}
		if r.IntN(5) == 0 {
			c["extra"] = "pruned"
		}
		return c
	}
	r := rand.New(rand.NewPCG(7, 11))
	taken := shortcutsTaken.Load()
	for i := range 600 {
		var req adapters.Request
		switch r.IntN(3) {
		case 0, 1: // a label patch of any object
			labels := map[string]any{}
			for range 1 + r.IntN(2) {
				labels[labelKeys[r.IntN(len(labelKeys))]] = labelValues[r.IntN(len(labelValues))]
			}
			var md any = map[string]any{"labels": labels}
			if r.IntN(10) == 0 {
				md = map[string]any{"labels": nil}
			}
			req = adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: refs[r.IntN(len(refs))],
				Body: body(map[string]any{"metadata": md}), DryRun: r.IntN(4) == 0}
		default: // a status write of the custom resource
			st := map[string]any{}
			for _, f := range []string{"state", "reason", "retryCount", "lastAttemptTime", "observedGeneration", "unknown"} {
				if r.IntN(2) == 0 {
					st[f] = statusValues[r.IntN(len(statusValues))](r)
				}
			}
			if r.IntN(2) == 0 {
				var conds []any
				for range r.IntN(3) {
					conds = append(conds, condition(r))
				}
				st["conditions"] = conds
			}
			var s any = st
			if r.IntN(15) == 0 {
				s = nil
			}
			req = adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: opRef("p"), Subresource: "status",
				Body: body(map[string]any{"status": s}), DryRun: r.IntN(4) == 0}
		}
		a, b := do(quick, req), do(full, req)
		if a.Outcome != b.Outcome || a.Message != b.Message || !jsonvalue.Equal(a.Object, b.Object) {
			t.Fatalf("write %d %s %s: the shortcut answered\n%s %s %s\nthe full path\n%s %s %s", i, req.Ref, mustJSON(req.Body),
				a.Outcome, a.Message, mustJSON(a.Object), b.Outcome, b.Message, mustJSON(b.Object))
		}
	}
	for _, ref := range refs {
		a, _ := quick.Object(ref)
		b, _ := full.Object(ref)
		if !jsonvalue.Equal(a, b) {
			t.Errorf("%s differs:\n%s\n%s", ref, mustJSON(a), mustJSON(b))
		}
	}
	n := shortcutsTaken.Load() - taken
	t.Logf("the shortcuts answered %d of 600 writes", n)
	if n < 100 {
		t.Errorf("the shortcuts answered %d of 600 writes: the test does not exercise them", n)
	}
}

// A cluster without field management answers every request but
// server-side apply as one with it, managedFields aside.
func TestWithoutFieldManagementAnswersTheSame(t *testing.T) {
	with, without := withCRDs(t, WithoutManagedFields()), withCRDs(t, WithoutFieldManagement())
	r := rand.New(rand.NewPCG(3, 5))
	refs := []adapters.Ref{cmRef("default", "c"), deployRef("d"), opRef("p")}
	bodies := []map[string]any{configMap("default", "c", nil, map[string]any{"k": "v"}), deployment("d", 1), objectPatch("default", "p")}
	for i := range 300 {
		n := r.IntN(len(refs))
		var req adapters.Request
		switch r.IntN(6) {
		case 0:
			req = adapters.Request{Verb: adapters.Create, Ref: refs[n], Body: body(bodies[n])}
		case 1:
			req = adapters.Request{Verb: adapters.Delete, Ref: refs[n]}
		case 2:
			req = adapters.Request{Verb: adapters.Get, Ref: refs[n]}
		case 3:
			req = adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: refs[n],
				Body: body(map[string]any{"metadata": map[string]any{"labels": map[string]any{"i": fmt.Sprint(i % 4)}, "annotations": map[string]any{"a": fmt.Sprint(i % 3)}}})}
		case 4:
			req = adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: refs[2], Subresource: "status",
				Body: body(map[string]any{"status": map[string]any{"state": fmt.Sprint("S", i%3)}})}
		default:
			req = adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: refs[n].APIVersion, Kind: refs[n].Kind, Namespace: "default"}, LabelSelector: "i in (1,2)"}
		}
		req.DryRun = r.IntN(5) == 0 && req.Verb != adapters.Get && req.Verb != adapters.List
		a, b := do(with, req), do(without, req)
		if a.Outcome != b.Outcome || a.Message != b.Message || !jsonvalue.Equal(a.Object, b.Object) || !jsonvalue.Equal(a.Items, b.Items) {
			t.Fatalf("request %d %s %s: with field management\n%s %s %s\nwithout\n%s %s %s", i, req.Verb, req.Ref,
				a.Outcome, a.Message, mustJSON(a.Object), b.Outcome, b.Message, mustJSON(b.Object))
		}
		with.Clock().Advance(ControllerDelay)
		without.Clock().Advance(ControllerDelay)
	}
	res := do(without, adapters.Request{Verb: adapters.Patch, PatchType: adapters.ApplyPatch, Ref: refs[0], FieldManager: "m", Body: body(bodies[0])})
	if res.Outcome != adapters.Unsupported {
		t.Errorf("apply without field management: %s %q", res.Outcome, res.Message)
	}
}

// mayPrune says no only where pruning removes nothing: random statuses,
// known and unknown fields at every level, against the ObjectPatch status
// schema.
func TestMayPruneOnlyWhereNothingIsPruned(t *testing.T) {
	c := withCRDs(t)
	k := c.kinds[kindKey{"rightsizing.kubex.ai/v1alpha1", "ObjectPatch"}]
	sc := k.srv.(*customServer).statusWrites
	if sc == nil {
		t.Fatal("no status shortcut for ObjectPatch")
	}
	r := rand.New(rand.NewPCG(1, 2))
	leaf := func() any { return []any{"x", int64(1), map[string]any{"a": "b"}, []any{"y"}}[r.IntN(4)] }
	saidNo := 0
	for range 2000 {
		st := map[string]any{}
		for _, f := range []string{"state", "reason", "unknown", "conditions", "retryCount"} {
			if r.IntN(2) == 0 {
				continue
			}
			if f == "conditions" {
				cond := map[string]any{"type": "Ready", "status": "True"}
				if r.IntN(3) == 0 {
					cond["extra"] = leaf()
				}
				st[f] = []any{cond}
			} else {
				st[f] = leaf()
			}
		}
		before := jsonvalue.DeepCopy(st)
		pruned := jsonvalue.DeepCopy(st).(map[string]any)
		structuralpruning.PruneWithOptions(pruned, sc.structural, false, structuralschema.UnknownFieldPathOptions{})
		if !mayPrune(st, sc.prune) {
			saidNo++
			if !jsonvalue.Equal(pruned, before) {
				t.Fatalf("mayPrune said no, and pruning changed %s into %s", mustJSON(before), mustJSON(pruned))
			}
		}
	}
	if saidNo == 0 {
		t.Fatal("mayPrune never said no")
	}
}
