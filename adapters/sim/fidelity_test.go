package sim

import (
	"strings"
	"testing"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// The differences adapters/fidelity found between the simulator and
// kube-apiserver 1.37, each pinned here on the simulator alone, with the
// answer the server gave (FIDELITY.md).

func jobRef(name string) adapters.Ref {
	return adapters.Ref{APIVersion: "batch/v1", Kind: "Job", Namespace: "default", Name: name}
}

func jobObject(name string, templateLabels map[string]any) map[string]any {
	tmpl := map[string]any{"spec": map[string]any{"restartPolicy": "Never",
		"containers": []any{map[string]any{"name": "job", "image": "busybox:1.36"}}}}
	if templateLabels != nil {
		tmpl["metadata"] = map[string]any{"labels": templateLabels}
	}
	return map[string]any{"apiVersion": "batch/v1", "kind": "Job",
		"metadata": map[string]any{"name": name, "namespace": "default"},
		"spec":     map[string]any{"template": tmpl}}
}

// Jobs are served by the Job registry strategy: the generated selector
// and template labels, the defaults, the Job's labels taken from its
// template as the server reads the stored Job back (the strategy's labels
// included when the Job had none, not when it had some), status
// validation, and the legacy Orphan default of a batch/v1 delete.
func TestJobs(t *testing.T) {
	c := newCluster(t)
	plain := create(t, c, jobObject("plain", nil))
	uid := metaString(plain, "uid")
	for p, want := range map[string]any{
		"/spec/backoffLimit":   int64(6),
		"/spec/completionMode": "NonIndexed",
		"/spec/suspend":        false,
		"/spec/selector/matchLabels/batch.kubernetes.io~1controller-uid": uid,
		"/spec/template/metadata/labels/job-name":                        "plain",
		"/metadata/labels/batch.kubernetes.io~1job-name":                 "plain",
		"/metadata/labels/controller-uid":                                uid,
		"/status":                                                        map[string]any{},
	} {
		if got := pathValue(plain, p); !jsonvalue.Equal(got, want) {
			t.Errorf("job without labels: %s = %v, want %v", p, got, want)
		}
	}
	// Defaulting makes a Job's labels its template's (one map), and the
	// strategy's selector labels land in both; a create with a generated
	// name works on a copy, so they are in the template only.
	tiered := create(t, c, jobObject("tiered", map[string]any{"tier": "a"}))
	if got := pathValue(tiered, "/metadata/labels"); !jsonvalue.Equal(got, pathValue(tiered, "/spec/template/metadata/labels")) ||
		pathValue(tiered, "/metadata/labels/job-name") != "tiered" || pathValue(tiered, "/metadata/labels/tier") != "a" {
		t.Errorf("job with template labels: metadata.labels = %v, want the template's with the selector labels", got)
	}
	gen := jobObject("", map[string]any{"tier": "a"})
	gen["metadata"] = map[string]any{"generateName": "job-", "namespace": "default"}
	generated := mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: adapters.Ref{APIVersion: "batch/v1", Kind: "Job", Namespace: "default"}, Body: body(gen)})).Object
	if got := pathValue(generated, "/metadata/labels"); !jsonvalue.Equal(got, map[string]any{"tier": "a"}) {
		t.Errorf("job with a generated name: metadata.labels = %v, want the template's own {tier: a}", got)
	}
	if pathValue(generated, "/spec/template/metadata/labels/job-name") != metaString(generated, "name") {
		t.Errorf("job with a generated name: template labels %v", pathValue(generated, "/spec/template/metadata/labels"))
	}
	bad := do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: jobRef("plain"), Subresource: "status",
		Body: raw(`{"status":{"active":-1}}`)})
	if bad.Outcome != adapters.Invalid || !strings.Contains(bad.Message, "status.active") {
		t.Errorf("negative status.active: %s %q", bad.Outcome, bad.Message)
	}
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: jobRef("plain")}))
	if got := stringList(pathValue(res.Object, "/metadata/finalizers")); strings.Join(got, ",") != "orphan" {
		t.Errorf("delete of a Job without propagation: finalizers %v, want [orphan]", got)
	}
	res = do(c, adapters.Request{Verb: adapters.Delete, Ref: jobRef("tiered"), Propagation: "Background"})
	if res.Outcome != adapters.OK || res.Object != nil || exists(c, jobRef("tiered")) {
		t.Errorf("Background delete of a Job: %s %v", res.Outcome, res.Object)
	}
}

// Events have no garbage collection (their strategy's policy is
// Unsupported): a Foreground or Orphan delete removes one at once.
func TestEventDeleteIgnoresPropagation(t *testing.T) {
	c := newCluster(t)
	ref := adapters.Ref{APIVersion: "events.k8s.io/v1", Kind: "Event", Namespace: "default", Name: "e"}
	ev := raw(`{"eventTime":"2026-01-01T00:00:00.000000Z","reason":"R","note":"n","type":"Normal","action":"A",
		"reportingController":"x.io/c","reportingInstance":"i","regarding":{"apiVersion":"v1","kind":"ConfigMap","name":"c","namespace":"default"}}`)
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: ev}))
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: ref, Propagation: "Foreground"}))
	if res.Object != nil || exists(c, ref) {
		t.Errorf("Foreground delete of an Event: %v, still there %v", res.Object, exists(c, ref))
	}
}

// The first delete of a namespace marks it (Terminating, the finalizers
// its propagation asks for, no deletionGracePeriodSeconds) and a later one
// changes nothing while spec.finalizers holds it.
func TestNamespaceDeleteMarks(t *testing.T) {
	c := newCluster(t)
	ref := adapters.Ref{APIVersion: "v1", Kind: "Namespace", Name: "n"}
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{}`)}))
	first := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: ref, Propagation: "Orphan"})).Object
	if _, has := getPath(first, "/metadata/deletionGracePeriodSeconds"); has {
		t.Errorf("deleted namespace has deletionGracePeriodSeconds: %v", first["metadata"])
	}
	if got := stringList(pathValue(first, "/metadata/finalizers")); strings.Join(got, ",") != "orphan" {
		t.Errorf("Orphan delete of a namespace: finalizers %v, want [orphan]", got)
	}
	second := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: ref, Propagation: "Background"})).Object
	if metaString(second, "resourceVersion") != metaString(first, "resourceVersion") ||
		strings.Join(stringList(pathValue(second, "/metadata/finalizers")), ",") != "orphan" {
		t.Errorf("second delete changed the terminating namespace: %v", second["metadata"])
	}
}

// A create is validated before the name is found taken: the server
// answers invalid, not already exists.
func TestCreateValidatedBeforeConflict(t *testing.T) {
	c := newCluster(t)
	create(t, c, configMap("default", "c", nil, nil))
	res := do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "c"), Body: raw(`{"data":{"bad key":"v"}}`)})
	if res.Outcome != adapters.Invalid {
		t.Errorf("invalid create of a taken name: %s %q, want invalid", res.Outcome, res.Message)
	}
	res = do(c, adapters.Request{Verb: adapters.Create, Ref: cmRef("default", "c"), Body: raw(`{"data":{"k":"v"}}`)})
	if res.Outcome != adapters.Conflict {
		t.Errorf("valid create of a taken name: %s %q, want conflict", res.Outcome, res.Message)
	}
}

// Leases (and Events) are created by an update of a name that does not
// exist, as their strategies allow; a body with a uid fails its
// precondition; ConfigMaps are not.
func TestCreateOnUpdate(t *testing.T) {
	c := newCluster(t)
	ref := adapters.Ref{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Namespace: "default", Name: "l"}
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Update, Ref: ref, Body: raw(`{"metadata":{"resourceVersion":"7"},"spec":{"holderIdentity":"a"}}`)}))
	if metaString(res.Object, "uid") == "" || pathValue(res.Object, "/spec/holderIdentity") != "a" || !exists(c, ref) {
		t.Errorf("update of a missing Lease: %v", res.Object)
	}
	ref.Name = "m"
	res = do(c, adapters.Request{Verb: adapters.Update, Ref: ref, Body: raw(`{"metadata":{"uid":"u-1"},"spec":{}}`)})
	if res.Outcome != adapters.Conflict || exists(c, ref) {
		t.Errorf("update of a missing Lease with a uid: %s %q", res.Outcome, res.Message)
	}
	res = do(c, adapters.Request{Verb: adapters.Update, Ref: cmRef("default", "none"), Body: raw(`{"data":{}}`)})
	if res.Outcome != adapters.NotFound {
		t.Errorf("update of a missing ConfigMap: %s %q, want not_found", res.Outcome, res.Message)
	}
}

// A write that removes the last finalizer of an object being deleted
// deletes it and answers with the written object at the resourceVersion
// it was written against.
func TestEmptiedFinalizersAnswer(t *testing.T) {
	c := newCluster(t)
	create(t, c, withFinalizers(configMap("default", "c", nil, nil), "x.io/hold"))
	marked := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "c")})).Object
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: cmRef("default", "c"),
		Body: raw(`{"metadata":{"finalizers":null}}`)}))
	if metaString(res.Object, "resourceVersion") != metaString(marked, "resourceVersion") {
		t.Errorf("answer's resourceVersion %s, want %s", metaString(res.Object, "resourceVersion"), metaString(marked, "resourceVersion"))
	}
	if exists(c, cmRef("default", "c")) || pathValue(res.Object, "/metadata/finalizers") != nil {
		t.Errorf("object still there, or the answer keeps the finalizers: %v", res.Object["metadata"])
	}
}

// A JSON patch's replace of a member that is absent adds it, as the
// server's json-patch library (v4) does.
func TestJSONPatchReplaceOfMissingMember(t *testing.T) {
	c := newCluster(t)
	ref := adapters.Ref{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Namespace: "default", Name: "l"}
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{"spec":{}}`)}))
	res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.JSONPatch, Ref: ref,
		Body: raw(`[{"op":"replace","path":"/spec/holderIdentity","value":"b"}]`)}))
	if pathValue(res.Object, "/spec/holderIdentity") != "b" {
		t.Errorf("replace of a missing member: %v", res.Object["spec"])
	}
}

// The status shortcut prunes an unknown member of a status whose schema
// has no defaults (IchorInstallation's), as the full path does.
func TestStatusShortcutPrunesWithoutDefaults(t *testing.T) {
	var answers []adapters.Result
	for _, fullPath := range []bool{false, true} {
		c := newCluster(t)
		c.fullPath = fullPath
		if err := c.Apply(crdObject(t, "ichor.maesh.dev_ichorinstallations.yaml")); err != nil {
			t.Fatal(err)
		}
		ref := adapters.Ref{APIVersion: "ichor.maesh.dev/v1alpha1", Kind: "IchorInstallation", Namespace: "default", Name: "i"}
		mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: ref, Body: raw(`{"spec":{"version":"1.2.0"}}`)}))
		res := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Subresource: "status",
			Body: raw(`{"status":{"autoPatch":{"pending":{"anything":{"goes":1}}},"unknown":"pruned"}}`)}))
		if _, has := getPath(res.Object, "/status/unknown"); has {
			t.Errorf("full path %v: the unknown status member is kept: %v", fullPath, res.Object["status"])
		}
		answers = append(answers, res)
	}
	if !jsonvalue.Equal(answers[0].Object["status"], answers[1].Object["status"]) {
		t.Errorf("shortcut %v, full path %v", answers[0].Object["status"], answers[1].Object["status"])
	}
}

// The body is decoded before the object is looked up or its
// resourceVersion compared: a body the types cannot hold is invalid, not
// not found or a conflict.
func TestUpdateDecodesFirst(t *testing.T) {
	c := newCluster(t)
	res := do(c, adapters.Request{Verb: adapters.Update, Ref: cmRef("default", "none"), Body: raw(`{"data":{"k":2}}`)})
	if res.Outcome != adapters.Invalid || !strings.Contains(res.Message, "cannot be handled as a ConfigMap") {
		t.Errorf("undecodable update of a missing ConfigMap: %s %q", res.Outcome, res.Message)
	}
	create(t, c, configMap("default", "c", nil, nil))
	res = do(c, adapters.Request{Verb: adapters.Update, Ref: cmRef("default", "c"), Body: raw(`{"metadata":{"resourceVersion":"1"},"data":{"k":2}}`)})
	if res.Outcome != adapters.Invalid {
		t.Errorf("undecodable stale update: %s %q", res.Outcome, res.Message)
	}
	res = do(c, adapters.Request{Verb: adapters.Update, Ref: cmRef("default", "c"), Body: raw(`{"metadata":{"resourceVersion":"1"},"data":{"k":"v"}}`)})
	if res.Outcome != adapters.Conflict {
		t.Errorf("stale update: %s %q", res.Outcome, res.Message)
	}
}

// A dry-run delete that would take the last (garbage collection)
// finalizer off answers with an empty object (the server's registry store
// hands back the one its interrupted update started with); a real one
// with none.
func TestDryRunDeleteOfHeldObject(t *testing.T) {
	c := newCluster(t)
	create(t, c, configMap("default", "c", nil, nil))
	mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "c"), Propagation: "Orphan"}))
	dry := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "c"), Propagation: "Background", DryRun: true}))
	if dry.Object == nil || len(dry.Object["metadata"].(map[string]any)) != 0 || !exists(c, cmRef("default", "c")) {
		t.Errorf("dry-run delete of an orphaning ConfigMap: %v", dry.Object)
	}
	lease := adapters.Ref{APIVersion: "coordination.k8s.io/v1", Kind: "Lease", Namespace: "default", Name: "l"}
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: lease, Body: raw(`{"spec":{"holderIdentity":"a"}}`)}))
	mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: lease, Propagation: "Orphan"}))
	dry = mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: lease, Propagation: "Background", DryRun: true}))
	if !jsonvalue.Equal(dry.Object["spec"], map[string]any{}) || len(dry.Object["metadata"].(map[string]any)) != 0 {
		t.Errorf("dry-run delete of an orphaning Lease: %v, want an empty Lease as its types render it", dry.Object)
	}
	real := mustOK(t, do(c, adapters.Request{Verb: adapters.Delete, Ref: cmRef("default", "c"), Propagation: "Background"}))
	if real.Object != nil || exists(c, cmRef("default", "c")) {
		t.Errorf("delete of an orphaning ConfigMap: %v", real.Object)
	}
}

// A write that changes nothing keeps the resourceVersion after writes by
// one manager through the main resource and the status: the entries stay
// in the order the library sorts them by their (virtual) times.
func TestNoOpAfterWritesOfTwoSubresources(t *testing.T) {
	c := withCRDs(t)
	ref := opRef("p")
	mustOK(t, do(c, adapters.Request{Verb: adapters.Create, Ref: ref, FieldManager: "m", Body: body(objectPatch("default", "p"))}))
	mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, Subresource: "status", FieldManager: "m",
		Body: raw(`{"status":{"state":"Applied"}}`)}))
	last := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, FieldManager: "m",
		Body: raw(`{"metadata":{"annotations":{"note":"x"}}}`)})).Object
	noop := mustOK(t, do(c, adapters.Request{Verb: adapters.Patch, PatchType: adapters.MergePatch, Ref: ref, FieldManager: "m",
		Body: raw(`{"metadata":{"labels":{"absent":null}}}`)})).Object
	if metaString(noop, "resourceVersion") != metaString(last, "resourceVersion") {
		t.Errorf("a no-op patch moved the resourceVersion from %s to %s:\n%v\n%v", metaString(last, "resourceVersion"),
			metaString(noop, "resourceVersion"), mustJSON(last["metadata"]), mustJSON(noop["metadata"]))
	}
}
