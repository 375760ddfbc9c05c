package controller

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/statecraft/statecraft/engine"
)

func boolp(b bool) *bool { return &b }

// What blocked a candidate: the first false operand of an &&, every false
// operand of an ||, the guard's error; the time a false time comparison
// opens.
func TestBlocking(t *testing.T) {
	opens := time.Date(2026, 1, 1, 0, 20, 0, 0, time.UTC)
	and := engine.Why{Transition: "repair", Guard: "drifted && due", Clauses: []engine.ClauseWhy{
		{Text: "drifted", Op: "&&", Value: "true", Bool: boolp(true)},
		{Text: "due", Op: "&&", Value: "false", Bool: boolp(false), Reads: []string{"due = false"}, Opens: opens, OpensWhat: "now >= t"},
		{Text: "other", Op: "&&", Value: "false", Bool: boolp(false)},
	}}
	b := Blocking(and)
	if len(b.Clauses) != 1 || b.Clauses[0].Clause != "due" || b.Opens == nil || !b.Opens.Equal(opens) || b.OpensWhat != "now >= t" {
		t.Errorf("&&: %+v", b)
	}
	or := engine.Why{Transition: "x", Guard: "a || b", Clauses: []engine.ClauseWhy{
		{Text: "a", Op: "||", Value: "false", Bool: boolp(false)}, {Text: "b", Op: "||", Value: "false", Bool: boolp(false)}}}
	if b := Blocking(or); len(b.Clauses) != 2 {
		t.Errorf("||: %+v", b)
	}
	if b := Blocking(engine.Why{Transition: "e", Err: errors.New("no such key: x")}); b.Error != "no such key: x" || b.Clauses != nil {
		t.Errorf("error: %+v", b)
	}
	// A guard of one clause that is not a bool comparison still says it.
	if b := Blocking(engine.Why{Transition: "g", Guard: "f(x)"}); len(b.Clauses) != 1 || b.Clauses[0].Clause != "f(x)" {
		t.Errorf("bare guard: %+v", b)
	}
}

// The ring keeps the newest records within the count and the size bound;
// a repeated periodic self-transition or problem is not written again.
func TestDecisionRing(t *testing.T) {
	var recs []DecisionRecord
	for i := range 20 {
		recs = append(recs, DecisionRecord{At: time.Unix(int64(i), 0).UTC(), Transition: "t", From: "A", To: "B", Reason: strings.Repeat("r", 10)})
	}
	var got []DecisionRecord
	if err := json.Unmarshal([]byte(encodeRecords(recs, 8)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got) != 8 || got[0].At.Unix() != 12 || got[7].At.Unix() != 19 {
		t.Errorf("kept %d, from %v to %v", len(got), got[0].At, got[len(got)-1].At)
	}
	big := DecisionRecord{Transition: "t", Message: strings.Repeat("m", 6000)}
	enc := encodeRecords([]DecisionRecord{big, big, big, big}, 8)
	if len(enc) > maxDecisionBytes {
		t.Errorf("%d bytes, more than %d", len(enc), maxDecisionBytes)
	}
	if err := json.Unmarshal([]byte(enc), &got); err != nil || len(got) != 2 {
		t.Errorf("size-bounded ring: %d records (%v)", len(got), err)
	}
	wait := DecisionRecord{From: "Pending", To: "Pending", Transition: "wait for target", Reason: "TargetNotFound"}
	if !repeats(wait, wait) {
		t.Error("a repeated wait is written again")
	}
	moved := wait
	moved.To = "Applied"
	if repeats(moved, moved) {
		t.Error("a repeated move is not written")
	}
	prob := DecisionRecord{Problem: true, Reason: "EvaluationError", Message: "x"}
	if !repeats(prob, prob) || repeats(prob, DecisionRecord{Problem: true, Reason: "EvaluationError", Message: "y"}) {
		t.Error("problems")
	}
}

// The controller's own decision records are not a change of the object:
// writing them requeues nothing.
func TestDecisionRecordsAreNotAChange(t *testing.T) {
	obj := func(ann map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a", "annotations": ann}, "spec": map[string]any{"x": "1"}}}
	}
	if changedBeyondStatus(obj(nil), obj(map[string]any{DecisionAnnotation: "[]"})) {
		t.Error("adding decision records is a change")
	}
	if changedBeyondStatus(obj(map[string]any{"a": "1", DecisionAnnotation: "[1]"}), obj(map[string]any{"a": "1", DecisionAnnotation: "[2]"})) {
		t.Error("updating decision records is a change")
	}
	if !changedBeyondStatus(obj(map[string]any{DecisionAnnotation: "[1]"}), obj(map[string]any{"a": "1", DecisionAnnotation: "[1]"})) {
		t.Error("another annotation beside the records is no change")
	}
	if !changedBeyondStatus(obj(nil), obj(map[string]any{"a": "1"})) {
		t.Error("an annotation is no change")
	}
	if recs, err := DecisionRecords(obj(map[string]any{DecisionAnnotation: "not json"}).Object); err == nil || recs != nil {
		t.Errorf("damaged records: %v %v", recs, err)
	}
}
