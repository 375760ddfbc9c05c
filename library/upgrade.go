package library

// CEL functions for upgrade policies (rules/policies/autopatch.hcl). They
// compute facts about versions, daily windows and Leases: parse a release
// version, compare two, tell a patch step, place a time in a daily UTC
// window, say when a Lease runs out. They choose nothing: which versions
// are candidates and which one is started, what an unset window means, when
// a Lease counts as held, which guard blocks and when are the rule file's.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// upgradeLib is the upgrade functions, their records typed by rt.
type upgradeLib struct {
	rt *resultTypes
}

func (upgradeLib) LibraryName() string { return "statecraft.upgrade" }

func (upgradeLib) ProgramOptions() []cel.ProgramOption { return nil }

func (l upgradeLib) CompileOptions() []cel.EnvOption {
	dyn := cel.DynType
	str := cel.StringType
	return []cel.EnvOption{
		cel.Function("upgrade.version",
			cel.Overload("upgrade_version_string", []*cel.Type{str}, l.rt.version.CelType(),
				cel.UnaryBinding(func(v ref.Val) ref.Val { return ToCEL(ParseVersion(string(asString(v)))) }))),
		cel.Function("upgrade.minor",
			cel.Overload("upgrade_minor_string", []*cel.Type{str}, str,
				cel.UnaryBinding(func(v ref.Val) ref.Val { return types.String(MinorOf(string(asString(v)))) }))),
		cel.Function("upgrade.compare",
			cel.Overload("upgrade_compare_string_string", []*cel.Type{str, str}, cel.IntType,
				cel.BinaryBinding(func(a, b ref.Val) ref.Val {
					v, ok1 := Parse(string(asString(a)))
					w, ok2 := Parse(string(asString(b)))
					switch {
					case !ok1:
						return types.NewErr("upgrade.compare: %q is not a version", asString(a))
					case !ok2:
						return types.NewErr("upgrade.compare: %q is not a version", asString(b))
					}
					return types.Int(v.Compare(w))
				}))),
		cel.Function("upgrade.isPatchStep",
			cel.Overload("upgrade_ispatchstep_string_string", []*cel.Type{str, str}, cel.BoolType,
				cel.BinaryBinding(func(a, b ref.Val) ref.Val {
					return types.Bool(IsPatchStep(string(asString(a)), string(asString(b))))
				}))),
		cel.Function("upgrade.validWindow",
			cel.Overload("upgrade_validwindow_string", []*cel.Type{str}, cel.BoolType,
				cel.UnaryBinding(func(v ref.Val) ref.Val {
					_, _, err := ParseWindow(string(asString(v)))
					return types.Bool(err == nil)
				}))),
		cel.Function("upgrade.inWindow",
			cel.Overload("upgrade_inwindow_string_timestamp", []*cel.Type{str, cel.TimestampType}, cel.BoolType,
				cel.BinaryBinding(func(a, b ref.Val) ref.Val {
					ts, ok := b.(types.Timestamp)
					if !ok {
						return types.NewErr("upgrade.inWindow: want (string, timestamp)")
					}
					in, err := InWindow(string(asString(a)), ts.Time)
					if err != nil {
						return types.NewErr("upgrade.inWindow: %v", err)
					}
					return types.Bool(in)
				}))),
		cel.Function("upgrade.leaseExpiry",
			cel.Overload("upgrade_leaseexpiry_dyn", []*cel.Type{dyn}, cel.OptionalType(cel.TimestampType),
				cel.UnaryBinding(func(v ref.Val) ref.Val {
					if t, ok := LeaseExpiry(ToGo(v)); ok {
						return types.OptionalOf(types.Timestamp{Time: t})
					}
					return types.OptionalNone
				}))),
	}
}

func asString(v ref.Val) types.String {
	s, _ := v.(types.String)
	return s
}

// Version is a parsed release version: v1.10.4, 1.31.2, v1.11.0-beta.1.
type Version struct {
	Major, Minor, Patch int64
	Pre                 string // pre-release, without the dash
	Build               string // build metadata, without the plus
}

var versionRE = regexp.MustCompile(`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$`)

// Parse reads a version with or without a leading "v". Kubernetes' semver
// library refuses the "v" that Talos and Kubernetes release names carry.
func Parse(s string) (Version, bool) {
	m := versionRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return Version{}, false
	}
	n := func(x string) int64 { i, _ := strconv.ParseInt(x, 10, 64); return i }
	return Version{Major: n(m[1]), Minor: n(m[2]), Patch: n(m[3]), Pre: m[4], Build: m[5]}, true
}

// Final reports whether v is a final release: no pre-release, no build.
func (v Version) Final() bool { return v.Pre == "" && v.Build == "" }

// MinorString is "MAJOR.MINOR".
func (v Version) MinorString() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Compare orders versions by semantic versioning precedence (build
// metadata ignored; pre-release identifiers compared field by field).
func (v Version) Compare(w Version) int {
	for _, d := range []int64{v.Major - w.Major, v.Minor - w.Minor, v.Patch - w.Patch} {
		if d != 0 {
			if d < 0 {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.Pre == w.Pre:
		return 0
	case v.Pre == "":
		return 1
	case w.Pre == "":
		return -1
	}
	a, b := strings.Split(v.Pre, "."), strings.Split(w.Pre, ".")
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := comparePreField(a[i], b[i]); c != 0 {
			return c
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func comparePreField(a, b string) int {
	na, ea := strconv.ParseInt(a, 10, 64)
	nb, eb := strconv.ParseInt(b, 10, 64)
	switch {
	case ea == nil && eb == nil:
		switch {
		case na < nb:
			return -1
		case na > nb:
			return 1
		}
		return 0
	case ea == nil:
		return -1
	case eb == nil:
		return 1
	}
	return strings.Compare(a, b)
}

// ParseVersion returns {ok, major, minor, patch, pre, final, minorString}
// for upgrade.version; ok is false (and the rest zero) for a malformed
// version.
func ParseVersion(s string) map[string]any {
	v, ok := Parse(s)
	if !ok {
		return map[string]any{"ok": false, "major": int64(0), "minor": int64(0), "patch": int64(0), "pre": "", "final": false, "minorString": ""}
	}
	return map[string]any{"ok": true, "major": v.Major, "minor": v.Minor, "patch": v.Patch, "pre": v.Pre, "final": v.Final(), "minorString": v.MinorString()}
}

// MinorOf returns "MAJOR.MINOR" of a version, or "" when it does not parse.
// A bare minor ("1.31", "v1.31") is accepted as itself.
func MinorOf(s string) string {
	if v, ok := Parse(s); ok {
		return v.MinorString()
	}
	if v, ok := Parse(s + ".0"); ok && v.Final() {
		return v.MinorString()
	}
	return ""
}

// IsPatchStep reports whether to is a final release of the same minor as
// from and newer than it.
func IsPatchStep(from, to string) bool {
	f, ok1 := Parse(from)
	t, ok2 := Parse(to)
	return ok1 && ok2 && t.Final() && t.Major == f.Major && t.Minor == f.Minor && t.Compare(f) > 0
}

// WindowPattern is the syntax of a daily window, "HH:MM-HH:MM" (24-hour,
// UTC); the CRD uses the same pattern.
const WindowPattern = `^([01][0-9]|2[0-3]):[0-5][0-9]-([01][0-9]|2[0-3]):[0-5][0-9]$`

var windowRE = regexp.MustCompile(WindowPattern)

// ParseWindow returns a window's start and end as minutes after midnight.
// A window whose start equals its end is refused: it would be either empty
// or the whole day. "" is no window (what an unset window means is the
// rule file's to say).
func ParseWindow(w string) (start, end int, err error) {
	if !windowRE.MatchString(w) {
		return 0, 0, fmt.Errorf("window %q is not HH:MM-HH:MM", w)
	}
	hm := func(s string) int {
		h, _ := strconv.Atoi(s[0:2])
		m, _ := strconv.Atoi(s[3:5])
		return h*60 + m
	}
	start, end = hm(w[0:5]), hm(w[6:11])
	if start == end {
		return 0, 0, fmt.Errorf("window %q starts where it ends", w)
	}
	return start, end, nil
}

// InWindow reports whether t, taken in UTC, is inside the daily window: the
// start minute is inside, the end minute is not. A window whose end is
// before its start wraps midnight (22:00-02:00 holds 23:30 and 01:00).
func InWindow(w string, t time.Time) (bool, error) {
	start, end, err := ParseWindow(w)
	if err != nil {
		return false, err
	}
	u := t.UTC()
	m := u.Hour()*60 + u.Minute()
	if start < end {
		return m >= start && m < end, nil
	}
	return m >= start || m < end, nil
}

// LeaseExpiry returns when a coordination.k8s.io Lease runs out: its
// renewTime (else its acquireTime) plus leaseDurationSeconds. It reports
// false when the Lease says no duration or no time it could be counted
// from. Whether the Lease is held (a holder named, the expiry ahead) is the
// rule file's to say.
func LeaseExpiry(lease any) (time.Time, bool) {
	m, _ := lease.(map[string]any)
	spec, _ := m["spec"].(map[string]any)
	var secs int64
	switch d := spec["leaseDurationSeconds"].(type) {
	case int64:
		secs = d
	case float64:
		secs = int64(d)
	default:
		return time.Time{}, false
	}
	for _, f := range []string{"renewTime", "acquireTime"} {
		if s, _ := spec[f].(string); s != "" {
			if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
				return t.Add(time.Duration(secs) * time.Second).UTC(), true
			}
		}
	}
	return time.Time{}, false
}
