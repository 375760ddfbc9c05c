package objpatch

import (
	"errors"
	"strings"
	"testing"
)

func TestErrorText(t *testing.T) {
	cases := []struct {
		err  *Error
		want string
	}{
		{&Error{Index: 2, Field: "path", Message: `must contain exactly one "@" segment`}, `jsonPatch[2].path: must contain exactly one "@" segment`},
		{&Error{Index: 0, Message: "must be an object"}, `jsonPatch[0]: must be an object`},
		{&Error{Index: -1, Field: "patch.metadata", Message: "must be an object"}, `patch.metadata: must be an object`},
		{&Error{Index: -1, Message: "bare"}, `bare`},
	}
	for _, c := range cases {
		if got := c.err.Error(); got != c.want {
			t.Errorf("Error() = %q, want %q", got, c.want)
		}
	}
}

func TestParseOps(t *testing.T) {
	got, err := ParseOps(js(t, `[
		{"op":"add","path":"/a/@/b","selector":"true","value":1},
		{"op":"remove","path":"/a/@/b","selector":"true","matchPolicy":"All"},
		{"op":"replace","path":"/a/@","selector":"true","value":null}]`))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 {
		t.Fatalf("got %d ops", len(got))
	}
	if !got[0].HasValue || got[0].Value != float64(1) || got[0].Op != "add" || got[0].Path != "/a/@/b" || got[0].Selector != "true" {
		t.Errorf("op 0 = %+v", got[0])
	}
	if got[1].HasValue || got[1].MatchPolicy != "All" {
		t.Errorf("op 1 = %+v", got[1])
	}
	if !got[2].HasValue || got[2].Value != nil {
		t.Errorf("op 2: explicit null value must set HasValue: %+v", got[2])
	}
	if o, err := ParseOps(nil); err != nil || o != nil {
		t.Errorf("ParseOps(nil) = %v, %v", o, err)
	}

	bad := []struct{ in, want string }{
		{`{"op":"add"}`, `jsonPatch: must be a list of operations, not an object`},
		{`[1]`, `jsonPatch[0]: must be an object, not a number`},
		{`[{"op":"add","from":"/x"}]`, `jsonPatch[0].from: unknown field`},
		{`[{"op":"add","path":5}]`, `jsonPatch[0].path: must be a string, not a number`},
		{`[{"op":"add"},{"selector":true}]`, `jsonPatch[1].selector: must be a string, not a boolean`},
	}
	for _, c := range bad {
		_, err := ParseOps(js(t, c.in))
		if err == nil || err.Error() != c.want {
			t.Errorf("ParseOps(%s) error = %v, want %q", c.in, err, c.want)
		}
		var e *Error
		if err != nil && !errors.As(err, &e) {
			t.Errorf("ParseOps(%s) error is %T, want *Error", c.in, err)
		}
	}
}

// nOps returns n valid replace operations.
func nOps(n int) []Op {
	o := make([]Op, n)
	for i := range o {
		o[i] = Op{Op: "replace", Path: "/spec/containers/@/image", Selector: `item.name == "app"`, Value: "x", HasValue: true}
	}
	return o
}

func TestValidate(t *testing.T) {
	label := js(t, `{"metadata":{"labels":{"managed-by":"kubex"}}}`)
	valid := Op{Op: "replace", Path: "/spec/containers/@/image", Selector: `item.name == "app"`, Value: "nginx", HasValue: true}
	with := func(f func(*Op)) []Op { o := valid; f(&o); return []Op{o} }
	path1024 := "/a/@/" + strings.Repeat("x", 1024-5)
	path1025 := path1024 + "x"
	sel1024 := `item.name == "` + strings.Repeat("x", 1024-15) + `"`
	sel1025 := `item.name == "` + strings.Repeat("x", 1024-14) + `"`
	if len(path1024) != 1024 || len(sel1024) != 1024 || len(sel1025) != 1025 {
		t.Fatalf("bad fixture lengths %d %d %d", len(path1024), len(sel1024), len(sel1025))
	}

	cases := []struct {
		name     string
		patch    any
		hasPatch bool
		ops      []Op
		want     string // "" = valid
	}{
		{"merge patch only", label, true, nil, ""},
		{"jsonPatch only", nil, false, []Op{valid}, ""},
		{"both", label, true, []Op{valid}, ""},
		{"neither", nil, false, nil, "spec: at least one of patch or jsonPatch is required"},
		{"patch null", nil, true, nil, "patch: must be a non-empty JSON object, not null"},
		{"patch string", "x", true, nil, "patch: must be a non-empty JSON object, not a string"},
		{"patch array", js(t, `[1]`), true, nil, "patch: must be a non-empty JSON object, not an array"},
		{"patch empty", js(t, `{}`), true, []Op{valid}, "patch: must be a non-empty JSON object"},
		{"metadata string", js(t, `{"metadata":"x"}`), true, nil, "patch.metadata: must be an object, not a string"},
		{"metadata null", js(t, `{"metadata":null}`), true, nil, "patch.metadata: must be an object, not null"},
		{"metadata array", js(t, `{"metadata":[]}`), true, nil, "patch.metadata: must be an object, not an array"},
		{"metadata empty object", js(t, `{"metadata":{}}`), true, nil, ""},
		{"100 ops", nil, false, nOps(100), ""},
		{"101 ops", nil, false, nOps(101), "jsonPatch: must have at most 100 operations, has 101"},
		{"op missing", nil, false, with(func(o *Op) { o.Op = "" }), `jsonPatch[0].op: is required: one of "add", "remove", "replace"`},
		{"op move", nil, false, with(func(o *Op) { o.Op = "move" }), `jsonPatch[0].op: unsupported operation "move": must be one of "add", "remove", "replace"`},
		{"op test", nil, false, with(func(o *Op) { o.Op = "test" }), `jsonPatch[0].op: unsupported operation "test"`},
		{"op copy", nil, false, with(func(o *Op) { o.Op = "copy" }), `unsupported operation "copy"`},
		{"path missing", nil, false, with(func(o *Op) { o.Path = "" }), "jsonPatch[0].path: is required"},
		{"path 1024", nil, false, with(func(o *Op) { o.Path = path1024 }), ""},
		{"path 1025", nil, false, with(func(o *Op) { o.Path = path1025 }), "jsonPatch[0].path: must be at most 1024 characters, has 1025"},
		{"path 1024 multibyte", nil, false, with(func(o *Op) { o.Path = "/a/@/" + strings.Repeat("é", 1019) }), ""},
		{"path relative", nil, false, with(func(o *Op) { o.Path = "spec/@/x" }), `jsonPatch[0].path: must be an RFC 6901 JSON Pointer starting with "/"`},
		{"path no @", nil, false, with(func(o *Op) { o.Path = "/spec/containers/0/image" }), `jsonPatch[0].path: must contain exactly one "@" segment`},
		{"path two @", nil, false, with(func(o *Op) { o.Path = "/spec/@/x/@/y" }), `jsonPatch[0].path: must contain exactly one "@" segment`},
		{"path @ first", nil, false, with(func(o *Op) { o.Path = "/@/x" }), `jsonPatch[0].path: "@" may not be the first segment`},
		{"path @ inside a segment is not a selector", nil, false, with(func(o *Op) { o.Path = "/spec/a@b/x" }), `must contain exactly one "@" segment`},
		{"path bad escape", nil, false, with(func(o *Op) { o.Path = "/spec/a~2b/@/x" }), `jsonPatch[0].path: segment 2 ("a~2b") has an invalid escape`},
		{"path trailing tilde", nil, false, with(func(o *Op) { o.Path = "/spec/a~/@/x" }), `has an invalid escape`},
		{"path escapes", nil, false, with(func(o *Op) { o.Path = "/metadata/a~1b~0c/@/x" }), ""},
		{"escaped @ is a key", nil, false, with(func(o *Op) { o.Path = "/a/~1@/x" }), `must contain exactly one "@" segment`},
		{"replace element itself", nil, false, with(func(o *Op) { o.Path = "/spec/containers/@" }), ""},
		{"replace descendant", nil, false, with(func(o *Op) { o.Path = "/spec/containers/@/ports/0/containerPort" }), ""},
		{"add member", nil, false, with(func(o *Op) { o.Op = "add"; o.Path = "/spec/containers/@/workingDir" }), ""},
		{"add element", nil, false, with(func(o *Op) { o.Op = "add"; o.Path = "/spec/containers/@" }), "jsonPatch[0].path: add must address exactly one direct member below the selected element"},
		{"add deep", nil, false, with(func(o *Op) { o.Op = "add"; o.Path = "/spec/containers/@/resources/limits" }), "jsonPatch[0].path: add must address exactly one direct member"},
		{"remove member", nil, false, with(func(o *Op) { o.Op = "remove"; o.Path = "/spec/containers/@/stdin"; o.HasValue = false; o.Value = nil }), ""},
		{"remove element", nil, false, with(func(o *Op) { o.Op = "remove"; o.Path = "/spec/containers/@"; o.HasValue = false; o.Value = nil }), "jsonPatch[0].path: remove must address exactly one direct member"},
		{"remove deep", nil, false, with(func(o *Op) { o.Op = "remove"; o.Path = "/spec/containers/@/a/b"; o.HasValue = false }), "remove must address exactly one direct member"},
		{"add no value", nil, false, with(func(o *Op) { o.Op = "add"; o.Path = "/a/@/b"; o.HasValue = false; o.Value = nil }), "jsonPatch[0].value: add requires a non-null value"},
		{"add null value", nil, false, with(func(o *Op) { o.Op = "add"; o.Path = "/a/@/b"; o.Value = nil }), "jsonPatch[0].value: add requires a non-null value"},
		{"replace null value", nil, false, with(func(o *Op) { o.Value = nil }), "jsonPatch[0].value: replace requires a non-null value"},
		{"replace no value", nil, false, with(func(o *Op) { o.HasValue = false; o.Value = nil }), "jsonPatch[0].value: replace requires a non-null value"},
		{"replace false value", nil, false, with(func(o *Op) { o.Value = false }), ""},
		{"remove with value", nil, false, with(func(o *Op) { o.Op = "remove"; o.Path = "/a/@/b" }), "jsonPatch[0].value: remove must omit value"},
		{"remove with null value", nil, false, with(func(o *Op) { o.Op = "remove"; o.Path = "/a/@/b"; o.Value = nil }), "jsonPatch[0].value: remove must omit value"},
		{"policy ExactlyOne", nil, false, with(func(o *Op) { o.MatchPolicy = "ExactlyOne" }), ""},
		{"policy All", nil, false, with(func(o *Op) { o.MatchPolicy = "All" }), ""},
		{"policy other", nil, false, with(func(o *Op) { o.MatchPolicy = "First" }), `jsonPatch[0].matchPolicy: unsupported match policy "First": must be "ExactlyOne" or "All"`},
		{"policy lower case", nil, false, with(func(o *Op) { o.MatchPolicy = "all" }), `unsupported match policy "all"`},
		{"selector missing", nil, false, with(func(o *Op) { o.Selector = "" }), "jsonPatch[0].selector: is required"},
		{"selector 1024", nil, false, with(func(o *Op) { o.Selector = sel1024 }), ""},
		{"selector 1025", nil, false, with(func(o *Op) { o.Selector = sel1025 }), "jsonPatch[0].selector: must be at most 1024 characters, has 1025"},
		{"selector syntax", nil, false, with(func(o *Op) { o.Selector = `item.name ==` }), "jsonPatch[0].selector: does not compile"},
		{"selector unknown variable", nil, false, with(func(o *Op) { o.Selector = `self.name == "a"` }), "jsonPatch[0].selector: does not compile"},
		{"selector int", nil, false, with(func(o *Op) { o.Selector = `1 + 2` }), "jsonPatch[0].selector: must be a bool expression, has type int"},
		{"selector string", nil, false, with(func(o *Op) { o.Selector = `"a"` }), "must be a bool expression, has type string"},
		{"selector dyn accepted", nil, false, with(func(o *Op) { o.Selector = `item.enabled` }), ""},
		{"selector with functions", nil, false, with(func(o *Op) { o.Selector = `item.name.startsWith("app") && item.name.lowerAscii() != "x"` }), ""},
		{"second op reported", nil, false, append([]Op{valid}, Op{Op: "add", Path: "/a/@", Selector: "true", Value: 1, HasValue: true}), "jsonPatch[1].path:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := Validate(c.patch, c.hasPatch, c.ops)
			if c.want == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %q does not contain %q", err, c.want)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error is %T, want *Error", err)
			}
		})
	}
}
