package library

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/statecraft/statecraft/jsonvalue"
	"sigs.k8s.io/yaml"
)

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{
		"v1.10.4":        "1.10 final",
		"1.31.2":         "1.31 final",
		"v1.11.0-beta.1": "1.11 pre",
		"1.31.2+k3s1":    "1.31 pre",
	} {
		v, ok := Parse(in)
		got := v.MinorString() + " pre"
		if v.Final() {
			got = v.MinorString() + " final"
		}
		if !ok || got != want {
			t.Errorf("Parse(%q) = %v %q, want %q", in, ok, got, want)
		}
	}
	for _, bad := range []string{"", "1.10", "v1.10.x", "01.2.3", "latest"} {
		if _, ok := Parse(bad); ok {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestCompare(t *testing.T) {
	order := []string{"1.10.0-alpha.1", "1.10.0-alpha.2", "1.10.0-beta.1", "1.10.0", "v1.10.2", "1.10.10", "1.11.0"}
	for i := 0; i+1 < len(order); i++ {
		a, _ := Parse(order[i])
		b, _ := Parse(order[i+1])
		if a.Compare(b) >= 0 || b.Compare(a) <= 0 {
			t.Errorf("%s should sort before %s", order[i], order[i+1])
		}
	}
}

func TestIsPatchStep(t *testing.T) {
	for _, c := range []struct {
		from, to string
		want     bool
	}{
		{"v1.10.2", "v1.10.4", true},
		{"1.31.2", "1.31.10", true},
		{"v1.10.2", "v1.10.2", false},        // not newer
		{"v1.10.4", "v1.10.2", false},        // older
		{"v1.10.2", "v1.11.0", false},        // a minor
		{"v1.10.2", "v2.10.3", false},        // a major
		{"v1.10.2", "v1.10.5-beta.0", false}, // not final
		{"garbage", "v1.10.5", false},
	} {
		if got := IsPatchStep(c.from, c.to); got != c.want {
			t.Errorf("IsPatchStep(%q, %q) = %v", c.from, c.to, got)
		}
	}
}

func TestWindow(t *testing.T) {
	at := func(hm string) time.Time {
		tt, _ := time.Parse("2006-01-02T15:04Z", "2026-11-04T"+hm+"Z")
		return tt
	}
	for _, c := range []struct {
		window, at string
		want       bool
	}{
		{"02:00-05:00", "02:00", true},
		{"02:00-05:00", "04:59", true},
		{"02:00-05:00", "05:00", false},
		{"02:00-05:00", "01:59", false},
		{"22:00-02:00", "23:30", true},
		{"22:00-02:00", "00:00", true},
		{"22:00-02:00", "01:59", true},
		{"22:00-02:00", "02:00", false},
		{"22:00-02:00", "21:59", false},
		{"22:00-02:00", "12:00", false},
	} {
		got, err := InWindow(c.window, at(c.at))
		if err != nil || got != c.want {
			t.Errorf("InWindow(%q, %s) = %v, %v", c.window, c.at, got, err)
		}
	}
	// A time in another zone is taken in UTC.
	berlin := time.FixedZone("CET", 3600)
	if in, _ := InWindow("02:00-05:00", time.Date(2026, 11, 4, 3, 30, 0, 0, berlin)); !in {
		t.Error("03:30 CET is 02:30 UTC: inside 02:00-05:00")
	}
	// "" is no window: what an unset window means is the rule file's.
	for _, bad := range []string{"", "2:00-05:00", "02:00-24:00", "02:60-03:00", "02:00", "02:00-02:00", "noon-night"} {
		if _, err := InWindow(bad, at("03:00")); err == nil {
			t.Errorf("InWindow(%q) accepted a malformed window", bad)
		}
	}
}

func TestLeaseExpiry(t *testing.T) {
	lease := func(renew, acquire string, secs any) any {
		spec := map[string]any{"holderIdentity": "ichor-executor", "renewTime": renew, "acquireTime": acquire}
		if secs != nil {
			spec["leaseDurationSeconds"] = secs
		}
		return map[string]any{"spec": spec}
	}
	for _, c := range []struct {
		lease any
		want  string // "" for none
	}{
		{lease("2026-11-04T02:59:30.000000Z", "", int64(60)), "2026-11-04T03:00:30Z"},
		{lease("", "2026-11-04T02:00:00Z", float64(15)), "2026-11-04T02:00:15Z"},
		{lease("garbage", "2026-11-04T02:00:00Z", int64(15)), "2026-11-04T02:00:15Z"},
		{lease("2026-11-04T02:59:30.000000Z", "", nil), ""}, // no duration
		{lease("", "", int64(60)), ""},                      // no time
		{map[string]any{}, ""},
	} {
		at, ok := LeaseExpiry(c.lease)
		got := ""
		if ok {
			got = at.Format(time.RFC3339)
		}
		if got != c.want {
			t.Errorf("LeaseExpiry(%v) = %q, want %q", c.lease, got, c.want)
		}
	}
}

// The CRD refuses what upgrade.validWindow refuses: the IchorInstallation
// CRD's window pattern and component enum are the ones this file uses.
func TestCRDWindowAndComponents(t *testing.T) {
	b, err := os.ReadFile("../spec/crds/ichor.maesh.dev_ichorinstallations.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var crd map[string]any
	if err := yaml.Unmarshal(b, &crd); err != nil {
		t.Fatal(err)
	}
	ap, _ := jsonvalue.Lookup(crd, jsonvalue.DottedPath("spec.versions.0.schema.openAPIV3Schema.properties.spec.properties.autoPatch.properties"))
	window, _ := ap.(map[string]any)["window"].(map[string]any)
	pattern, _ := window["pattern"].(string)
	re, err := regexp.Compile(pattern)
	if err != nil {
		t.Fatalf("window pattern %q: %v", pattern, err)
	}
	for _, w := range []string{"", "02:00-05:00", "22:00-02:00", "00:00-23:59"} {
		if !re.MatchString(w) {
			t.Errorf("the CRD refuses the valid window %q", w)
		}
	}
	for _, w := range []string{"2:00-05:00", "02:00-24:00", "02:60-03:00", "02:00", "noon-night", "02:00 - 05:00"} {
		if re.MatchString(w) {
			t.Errorf("the CRD accepts the malformed window %q", w)
		}
		if _, _, err := ParseWindow(w); err == nil {
			t.Errorf("ParseWindow accepts the malformed window %q", w)
		}
	}
	// start == end passes the pattern; a CEL validation rule refuses it.
	rules, _ := window["x-kubernetes-validations"].([]any)
	if len(rules) != 1 || !strings.Contains(rules[0].(map[string]any)["rule"].(string), "self.substring(0, 5) != self.substring(6, 11)") {
		t.Errorf("window validations = %v", rules)
	}
	comps, _ := jsonvalue.Lookup(ap, []string{"components", "items", "enum"})
	if got, _ := comps.([]any); len(got) != 3 || got[0] != "talos" || got[1] != "cilium" || got[2] != "kubernetes" {
		t.Errorf("components enum = %v, want [talos cilium kubernetes]", comps)
	}
}

// The functions as rules call them.
func TestUpgradeCEL(t *testing.T) {
	env, err := cel.NewEnv(EnvOptions(nil)...)
	if err != nil {
		t.Fatal(err)
	}
	for _, expr := range []string{
		`upgrade.version('v1.10.4').minorString == '1.10' && upgrade.version('v1.10.4').final`,
		`!upgrade.version('v1.10').ok`,
		`upgrade.minor('v1.31.2') == '1.31' && upgrade.minor('x') == ''`,
		`upgrade.compare('v1.10.5', '1.10.10') < 0 && upgrade.compare('1.10.0', 'v1.10.0-rc.1') > 0 && upgrade.compare('v1.10.5', '1.10.5') == 0`,
		`upgrade.isPatchStep('v1.10.2', 'v1.10.4') && !upgrade.isPatchStep('v1.10.2', 'v1.11.0')`,
		// The newest of a list as a rule file picks it: the first listed of
		// those no other is newer than.
		`['v1.10.3', 'v1.10.5', '1.10.5', 'v1.10.4'].filter(v, ['v1.10.3', 'v1.10.5', '1.10.5', 'v1.10.4'].all(w, upgrade.compare(w, v) <= 0)) == ['v1.10.5', '1.10.5']`,
		`upgrade.validWindow('22:00-02:00') && !upgrade.validWindow('') && !upgrade.validWindow('25:00-02:00')`,
		`upgrade.inWindow('22:00-02:00', timestamp('2026-11-04T01:30:00Z'))`,
		`!upgrade.inWindow('02:00-05:00', timestamp('2026-11-04T05:00:00Z'))`,
		`upgrade.leaseExpiry({'spec': {'holderIdentity': 'x', 'renewTime': '2026-11-04T01:00:00Z', 'leaseDurationSeconds': 60}}) == optional.of(timestamp('2026-11-04T01:01:00Z'))`,
		`!upgrade.leaseExpiry({'spec': {'holderIdentity': 'x'}}).hasValue()`,
	} {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Errorf("%s: %v", expr, iss.Err())
			continue
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		out, _, err := prg.Eval(map[string]any{})
		if err != nil || out.Value() != true {
			t.Errorf("%s = %v, %v", expr, out, err)
		}
	}
	// A malformed window or version is an evaluation error, not a silent
	// false.
	for _, expr := range []string{
		`upgrade.inWindow('2am-5am', timestamp('2026-11-04T01:30:00Z'))`,
		`upgrade.inWindow('', timestamp('2026-11-04T01:30:00Z'))`,
		`upgrade.compare('v1.10', 'v1.10.0') == 0`,
	} {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", expr, iss.Err())
		}
		prg, _ := env.Program(ast)
		if _, _, err := prg.Eval(map[string]any{}); err == nil {
			t.Errorf("%s: no evaluation error", expr)
		}
	}
}

// The upgrade functions' results are typed: a field upgrade.version does
// not return is a compile error, as is a result used as the wrong type;
// every field it does return compiles, typed.
func TestUpgradeResultTypes(t *testing.T) {
	env, err := cel.NewEnv(append(EnvOptions(nil), cel.Variable("x", cel.DynType))...)
	if err != nil {
		t.Fatal(err)
	}
	for expr, ok := range map[string]bool{
		"upgrade.version('v1.10.4').ok && upgrade.version('v1.10.4').final":                    true,
		"upgrade.version(x.v).major + upgrade.version(x.v).minor + upgrade.version(x.v).patch": true,
		"upgrade.version(x.v).pre + upgrade.version(x.v).minorString":                          true,
		"upgrade.version(x.v).minr":                                                          false,
		"upgrade.version(x.v).minorString + 1":                                               false,
		"upgrade.version(x.v).final == 'true'":                                               false,
		"upgrade.leaseExpiry(x).orValue(timestamp('2026-01-01T00:00:00Z')) > timestamp(x.t)": true,
		"upgrade.leaseExpiry(x) > timestamp(x.t)":                                            false,
		"upgrade.compare(x.a, x.b) < 0":                                                      true,
		"upgrade.compare(x.a, x.b) == 'older'":                                               false,
	} {
		_, iss := env.Compile(expr)
		if got := iss.Err() == nil; got != ok {
			t.Errorf("%s: compiles %v, want %v (%v)", expr, got, ok, iss.Err())
		}
	}
	// At run time the record is the map ParseVersion builds, read through
	// the declared fields.
	ast, iss := env.Compile(`upgrade.version('v1.11.0-beta.1').pre == 'beta.1' && !upgrade.version('v1.11.0-beta.1').final && upgrade.version('v1.11.0-beta.1').minor == 11`)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prg, err := env.Program(ast)
	if err != nil {
		t.Fatal(err)
	}
	if out, _, err := prg.Eval(map[string]any{"x": map[string]any{}}); err != nil || out != types.True {
		t.Errorf("upgrade.version fields at run time = %v, %v", out, err)
	}
}
