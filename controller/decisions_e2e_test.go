package controller_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/statecraft/statecraft/controller"
)

// The controller keeps each object's last decisions on it: a patch that
// targets itself ends in Error by "self target", and its annotation says
// so with the clause that decided it and the candidates tried before;
// writing the records does not requeue the object.
func TestDecisionRecordsOnTheObject(t *testing.T) {
	ns := uniq("decisions-e2e")
	e := newEnv(t, ns)
	e.createCM(ns, "target", map[string]string{"a": "1"})
	r := start(t, e.cp.Config, controller.Options{Namespace: ns, DecisionRecords: 4})
	if _, err := e.dyn.Resource(opGVR).Namespace(ns).Create(e.ctx, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
		"metadata": map[string]any{"name": "myself", "namespace": ns},
		"spec": map[string]any{
			"targetRef": map[string]any{"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch", "name": "myself"},
			"patch":     map[string]any{"metadata": map[string]any{"labels": map[string]any{"x": "y"}}},
		},
	}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.mustCreateOP(ns, "fine", "target", nil)
	e.waitState(ns, "myself", "Error", "SelfTargetNotAllowed")
	e.waitState(ns, "fine", "Applied", "Applied")
	var recs []controller.DecisionRecord
	eventually(t, "decision records on myself", func() (bool, string) {
		u, err := e.op(ns, "myself")
		if err != nil {
			return false, err.Error()
		}
		recs, err = controller.DecisionRecords(u.Object)
		if err != nil {
			return false, err.Error()
		}
		return len(recs) >= 2, fmt.Sprint(recs)
	})
	last := recs[len(recs)-1]
	if last.Transition != "self target" || last.From != "Pending" || last.To != "Error" || last.Reason != "SelfTargetNotAllowed" || last.Machine != "objectpatch" {
		t.Fatalf("last record %+v", last)
	}
	if len(last.Because) != 1 || last.Because[0].Clause != "self_target" || last.Because[0].Value != "true" {
		t.Errorf("because %+v", last.Because)
	}
	blocked := map[string]string{}
	for _, b := range last.Blocked {
		if len(b.Clauses) > 0 {
			blocked[b.Transition] = b.Clauses[0].Clause + " = " + b.Clauses[0].Value
		}
	}
	if blocked["reapply"] != "reapply = false" || !strings.Contains(blocked["spec changed"], "= false") {
		t.Errorf("blocked candidates %v", blocked)
	}
	first := recs[0]
	if first.Transition != "spec changed" || first.To != "Pending" {
		t.Errorf("first record %+v", first)
	}
	// Applied by "apply": its writes are recorded with it (the records'
	// annotation may land after the status a read saw Applied in).
	var apply *controller.DecisionRecord
	eventually(t, "the apply record on fine", func() (bool, string) {
		u, err := e.op(ns, "fine")
		if err != nil {
			return false, err.Error()
		}
		frecs, _ := controller.DecisionRecords(u.Object)
		for i := range frecs {
			if frecs[i].Transition == "apply" {
				apply = &frecs[i]
			}
		}
		return apply != nil, fmt.Sprint(frecs)
	})
	if apply == nil || len(apply.Writes) != 2 || !strings.Contains(apply.Writes[0], "dry-run") || !strings.HasPrefix(apply.Writes[1], "patch ConfigMap/"+ns+"/target (merge): ok") {
		t.Errorf("apply record %+v", apply)
	}
	// Nothing more to do: each patch was reconciled once (on its
	// creation; Applied rechecks in 5m, Error is final), and the records'
	// own writes requeued neither.
	time.Sleep(2 * time.Second)
	if n, _ := r.ctrl.Stats(); n != 2 {
		t.Errorf("%d reconciles of two patches, each created once: the records' writes requeue them", n)
	}
}
