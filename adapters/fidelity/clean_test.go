package fidelity

import "testing"

func TestCleanMessages(t *testing.T) {
	r := &Run{Token: "fid3x", sides: [2]*side{newSide(nil, "fid3x"), newSide(nil, "fid3x")}}
	r.sides[Server].uids["0a1b"] = "ConfigMap/a"
	msg := `"" is invalid: patch: Invalid value: "{\"metadata\":{\"name\":\"cm-b\",\"namespace\":\"fid3x\",\"uid\":\"0a1b\",\"resourceVersion\":\"1234\",\"creationTimestamp\":\"2026-12-01T10:00:00Z\"}}"`
	want := `"" is invalid: patch: Invalid value: "{\"metadata\":{\"name\":\"cm-b\",\"namespace\":\"$T\",\"uid\":\"<uid:ConfigMap/a>\",\"resourceVersion\":\"<rv>\",\"creationTimestamp\":\"<time>\"}}"`
	if got := r.clean(Server, Step{Kind: "ConfigMap"}, msg); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	gen := Step{ID: 4, Verb: "create", Kind: "ClusterObjectPatch", GenerateName: true}
	if got := r.clean(Server, gen, `ClusterObjectPatch "fid3x-cop-q5bvh" is invalid`); got != `ClusterObjectPatch "<gen:4>" is invalid` {
		t.Errorf("generated name: got %s", got)
	}
}
