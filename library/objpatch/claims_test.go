package objpatch

import (
	"reflect"
	"testing"
	"time"
)

func claimStrings(cs []Claim) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

func TestClaims(t *testing.T) {
	cases := []struct {
		name, patch, ops string
		want             []string
	}{
		{name: "label leaf", patch: `{"metadata":{"labels":{"managed-by":"kubex"}}}`,
			want: []string{"/metadata/labels/managed-by"}},
		{name: "leaves recurse, sorted; null, arrays and empty objects claim their path",
			patch: `{"spec":{"z":1,"list":[{"a":1}],"gone":null,"empty":{},"deep":{"b":true,"a":"x"}},"metadata":{"annotations":{"example.com/x":"1"}}}`,
			want:  []string{"/metadata/annotations/example.com~1x", "/spec/deep/a", "/spec/deep/b", "/spec/empty", "/spec/gone", "/spec/list", "/spec/z"}},
		{name: "selector item claims, any field, both orders, index form",
			ops: `[{"op":"replace","path":"/spec/template/spec/containers/@/args","selector":"item.name == \"app\"","value":[]},
			       {"op":"replace","path":"/spec/template/spec/requirements/@/values","selector":"\"karpenter.sh/capacity-type\" == item.key","value":[]},
			       {"op":"replace","path":"/spec/ports/@/port","selector":"item[\"portName\"] == 'http'","value":1}]`,
			want: []string{"/spec/template/spec/containers[name=app]", "/spec/template/spec/requirements[key=karpenter.sh/capacity-type]", "/spec/ports[portName=http]"}},
		{name: "other selectors claim the whole array",
			ops: `[{"op":"add","path":"/spec/containers/@/x","selector":"item.name == \"app\" && item.image == \"nginx\"","value":1},
			       {"op":"add","path":"/spec/a/@/x","selector":"item.port == 80","value":1},
			       {"op":"add","path":"/spec/b/@/x","selector":"item.name != \"app\"","value":1},
			       {"op":"add","path":"/spec/c/@/x","selector":"has(item.name)","value":1},
			       {"op":"add","path":"/spec/d/@/x","selector":"item.meta.name == \"a\"","value":1},
			       {"op":"add","path":"/spec/e/@/x","selector":"item == \"a\"","value":1},
			       {"op":"add","path":"/spec/f/@/x","selector":"item.name == item.other","value":1}]`,
			want: []string{"/spec/containers", "/spec/a", "/spec/b", "/spec/c", "/spec/d", "/spec/e", "/spec/f"}},
		{name: "merge and ops together, duplicates dropped, invalid paths claim nothing",
			patch: `{"metadata":{"labels":{"a":"b"}}}`,
			ops: `[{"op":"replace","path":"/spec/containers/@/args","selector":"item.name == \"app\"","value":[]},
			       {"op":"add","path":"/spec/containers/@/workingDir","selector":"item.name == \"app\"","value":"/w"},
			       {"op":"add","path":"/spec/no/selector/segment","selector":"true","value":1}]`,
			want: []string{"/metadata/labels/a", "/spec/containers[name=app]"}},
		{name: "quoted rendering",
			ops:  `[{"op":"replace","path":"/a/@","selector":"item.name == \"x]=y\"","value":1},{"op":"replace","path":"/b/@","selector":"item.name == \"\"","value":1}]`,
			want: []string{`/a[name="x]=y"]`, `/b[name=""]`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var patch any
			if c.patch != "" {
				patch = js(t, c.patch)
			}
			var o []Op
			if c.ops != "" {
				o = ops(t, c.ops)
			}
			got := claimStrings(Claims(patch, o))
			if !reflect.DeepEqual(got, c.want) {
				t.Fatalf("Claims\n got %q\nwant %q", got, c.want)
			}
		})
	}
	if got := Claims(js(t, `{}`), nil); len(got) != 1 || got[0].String() != "(root)" {
		t.Errorf("empty merge patch claims %v, want the root", got)
	}
}

func TestConflicts(t *testing.T) {
	karpenter := func(key, field string) []Claim {
		return Claims(nil, ops(t, `[{"op":"replace","path":"/spec/template/spec/requirements/@/`+field+`","selector":"item.key == \"`+key+`\"","value":["x"]}]`))
	}
	merge := func(p string) []Claim { return Claims(js(t, p), nil) }
	sel := func(path, s string) []Claim {
		return Claims(nil, []Op{{Op: "replace", Path: path, Selector: s, Value: 1, HasValue: true}})
	}
	cases := []struct {
		name     string
		a, b     []Claim
		conflict bool
		pair     [2]string
	}{
		{"sibling labels coexist", merge(`{"metadata":{"labels":{"a":"1"}}}`), merge(`{"metadata":{"labels":{"b":"1"}}}`), false, [2]string{}},
		{"same label conflicts", merge(`{"metadata":{"labels":{"a":"1"}}}`), merge(`{"metadata":{"labels":{"a":"2"}}}`), true, [2]string{"/metadata/labels/a", "/metadata/labels/a"}},
		{"parent and child conflict", merge(`{"metadata":{"labels":null}}`), merge(`{"metadata":{"labels":{"a":"2"}}}`), true, [2]string{"/metadata/labels", "/metadata/labels/a"}},
		{"child and parent conflict", merge(`{"spec":{"a":{"b":1}}}`), merge(`{"spec":{"a":{}}}`), true, [2]string{"/spec/a/b", "/spec/a"}},
		{"prefix of a key is not a parent", merge(`{"spec":{"ab":1}}`), merge(`{"spec":{"a":1}}`), false, [2]string{}},
		{"Karpenter: different requirement keys coexist",
			karpenter("node.kubernetes.io/instance-type", "values"), karpenter("karpenter.sh/capacity-type", "values"), false, [2]string{}},
		{"Karpenter: same key conflicts even with different child fields",
			karpenter("karpenter.sh/capacity-type", "values"), karpenter("karpenter.sh/capacity-type", "operator"), true,
			[2]string{"/spec/template/spec/requirements[key=karpenter.sh/capacity-type]", "/spec/template/spec/requirements[key=karpenter.sh/capacity-type]"}},
		{"reversed form claims likewise",
			sel("/spec/template/spec/requirements/@/values", `"karpenter.sh/capacity-type" == item.key`), karpenter("karpenter.sh/capacity-type", "operator"), true,
			[2]string{"/spec/template/spec/requirements[key=karpenter.sh/capacity-type]", "/spec/template/spec/requirements[key=karpenter.sh/capacity-type]"}},
		{"reversed form with another key coexists",
			sel("/spec/template/spec/requirements/@/values", `"kubernetes.io/arch" == item.key`), karpenter("karpenter.sh/capacity-type", "operator"), false, [2]string{}},
		{"other selector claims the whole array",
			sel("/spec/template/spec/requirements/@/values", `item.key.startsWith("karpenter")`), karpenter("node.kubernetes.io/instance-type", "values"), true,
			[2]string{"/spec/template/spec/requirements", "/spec/template/spec/requirements[key=node.kubernetes.io/instance-type]"}},
		{"different key fields on one array may select the same item",
			sel("/spec/containers/@/image", `item.name == "app"`), sel("/spec/containers/@/args", `item.image == "nginx"`), true,
			[2]string{"/spec/containers[name=app]", "/spec/containers[image=nginx]"}},
		{"merge-patch array replacement conflicts with an item",
			merge(`{"spec":{"template":{"spec":{"requirements":[]}}}}`), karpenter("karpenter.sh/capacity-type", "values"), true,
			[2]string{"/spec/template/spec/requirements", "/spec/template/spec/requirements[key=karpenter.sh/capacity-type]"}},
		{"merge-patch ancestor conflicts with an item",
			merge(`{"spec":{"template":null}}`), karpenter("karpenter.sh/capacity-type", "values"), true,
			[2]string{"/spec/template", "/spec/template/spec/requirements[key=karpenter.sh/capacity-type]"}},
		{"merge-patch sibling of the array coexists",
			merge(`{"spec":{"template":{"spec":{"limits":{"cpu":"10"}}}}}`), karpenter("karpenter.sh/capacity-type", "values"), false, [2]string{}},
		{"item conflicts with an array nested inside items by index",
			sel("/spec/containers/@/image", `item.name == "app"`), sel("/spec/containers/0/env/@/value", `item.name == "A"`), true,
			[2]string{"/spec/containers[name=app]", "/spec/containers/0/env[name=A]"}},
		{"no claims, no conflict", nil, merge(`{"a":1}`), false, [2]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			x, y, ok := Conflicts(c.a, c.b)
			if ok != c.conflict {
				t.Fatalf("Conflicts(%v, %v) = %v, want %v", claimStrings(c.a), claimStrings(c.b), ok, c.conflict)
			}
			if ok && (x.String() != c.pair[0] || y.String() != c.pair[1]) {
				t.Errorf("pair = %s, %s; want %s, %s", x, y, c.pair[0], c.pair[1])
			}
			// Overlap is symmetric.
			if _, _, back := Conflicts(c.b, c.a); back != ok {
				t.Errorf("Conflicts is not symmetric")
			}
		})
	}
}

func TestArbitrate(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	label := func(k string) []Claim { return Claims(js(t, `{"metadata":{"labels":{"`+k+`":"v"}}}`), nil) }
	both := append(label("x"), label("y")...)
	claimants := []Claimant{
		{Key: "ns/late", Target: "T", Rank: []any{t0.Add(3 * time.Minute), "late"}, Claims: label("y")},
		{Key: "ns/blocked", Target: "T", Rank: []any{t0.Add(time.Minute), "blocked"}, Claims: both},
		{Key: "ns/b-tie", Target: "T", Rank: []any{t0, "b-tie"}, Claims: label("x")},
		{Key: "ns/a-tie", Target: "T", Rank: []any{t0, "a-tie"}, Claims: label("x")},
		{Key: "ns/other-target", Target: "U", Rank: []any{t0.Add(time.Hour), "other-target"}, Claims: label("x")},
		{Key: "ns/disjoint", Target: "T", Rank: []any{t0.Add(2 * time.Hour), "disjoint"}, Claims: label("z")},
	}
	got := Arbitrate(claimants)
	want := map[string]Verdict{
		"ns/a-tie":        {Accepted: true},
		"ns/b-tie":        {Winner: "ns/a-tie", Claim: label("x")[0], WinnerClaim: label("x")[0]},
		"ns/blocked":      {Winner: "ns/a-tie", Claim: label("x")[0], WinnerClaim: label("x")[0]},
		"ns/late":         {Accepted: true}, // the blocked claimant reserved nothing
		"ns/other-target": {Accepted: true},
		"ns/disjoint":     {Accepted: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Arbitrate\n got %+v\nwant %+v", got, want)
	}
	if m := got["ns/b-tie"].Message(); m != "claim /metadata/labels/x is held by ns/a-tie" {
		t.Errorf("Message = %q", m)
	}
	v := Verdict{Winner: "w", Claim: Claim{Path: "/spec/a"}, WinnerClaim: Claim{Path: "/spec"}}
	if m := v.Message(); m != "claim /spec/a conflicts with /spec held by w" {
		t.Errorf("Message = %q", m)
	}
	if m := got["ns/late"].Message(); m != "" {
		t.Errorf("accepted Message = %q", m)
	}
	// The order is the caller's: ranked by name alone, b-tie is not first
	// but still loses to a-tie; ranked by a number, the lowest wins.
	byNumber := Arbitrate([]Claimant{
		{Key: "ten", Target: "T", Rank: []any{int64(10)}, Claims: label("x")},
		{Key: "nine", Target: "T", Rank: []any{float64(9)}, Claims: label("x")},
		{Key: "two", Target: "T", Rank: []any{int64(2), "z"}, Claims: label("x")},
	})
	if !byNumber["two"].Accepted || byNumber["nine"].Winner != "two" || byNumber["ten"].Winner != "two" {
		t.Errorf("ranked by number = %+v", byNumber)
	}

	// Karpenter: two ClusterObjectPatches on one NodePool, different keys.
	np := func(key string) []Claim {
		return Claims(nil, []Op{{Op: "replace", Path: "/spec/template/spec/requirements/@/values",
			Selector: `item.key == "` + key + `"`, Value: []any{"x"}, HasValue: true}})
	}
	res := Arbitrate([]Claimant{
		{Key: "instance-type", Target: "NodePool/default", Rank: []any{t0, "instance-type"}, Claims: np("node.kubernetes.io/instance-type")},
		{Key: "capacity-type", Target: "NodePool/default", Rank: []any{t0, "capacity-type"}, Claims: np("karpenter.sh/capacity-type")},
		{Key: "capacity-type-2", Target: "NodePool/default", Rank: []any{t0.Add(time.Second), "capacity-type-2"}, Claims: np("karpenter.sh/capacity-type")},
	})
	if !res["instance-type"].Accepted || !res["capacity-type"].Accepted || res["capacity-type-2"].Accepted || res["capacity-type-2"].Winner != "capacity-type" {
		t.Errorf("NodePool arbitration = %+v", res)
	}
}

func TestCompareRank(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		a, b []any
		want int
	}{
		{[]any{t0}, []any{t0.Add(time.Second)}, -1},
		{[]any{t0, "b"}, []any{t0, "a"}, 1},
		{[]any{int64(10)}, []any{float64(9.5)}, 1},
		{[]any{int64(10)}, []any{"9"}, -1}, // a number and a string compare as text
		{[]any{"a"}, []any{"a", "b"}, -1},
		{[]any{nil}, []any{""}, 0},
		{nil, nil, 0},
	} {
		if got := CompareRank(c.a, c.b); got != c.want {
			t.Errorf("CompareRank(%v, %v) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
}
