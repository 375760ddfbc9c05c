package library

import (
	"fmt"
	"strings"
	"time"
	_ "time/tzdata" // time zones are the same on every machine

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/robfig/cron/v3"
)

// Schedules: cron expressions as a Kubernetes CronJob takes them (five
// fields, the @hourly / @daily / @weekly / @monthly / @yearly descriptors,
// an optional CRON_TZ= or TZ= prefix; parsed by robfig/cron, the library
// the CronJob controller uses), with time zones from the IANA database
// compiled into the binary, so every machine computes the same firings.
// Facts only: when a schedule fires, whether a window is open; what to do
// then is the rule file's.

type scheduleLib struct{ mem *Memory }

func (scheduleLib) LibraryName() string { return "statecraft.schedule" }

func (scheduleLib) ProgramOptions() []cel.ProgramOption { return nil }

func (l scheduleLib) CompileOptions() []cel.EnvOption {
	str, ts, dur := cel.StringType, cel.TimestampType, cel.DurationType
	return []cel.EnvOption{
		cel.Function("cron.valid",
			cel.Overload("cron_valid_string", []*cel.Type{str}, cel.BoolType,
				cel.UnaryBinding(func(v ref.Val) ref.Val {
					_, err := l.mem.schedule(string(asString(v)), "")
					return types.Bool(err == nil)
				}))),
		cel.Function("cron.next",
			cel.Overload("cron_next_string_timestamp", []*cel.Type{str, ts}, ts,
				cel.BinaryBinding(func(s, t ref.Val) ref.Val { return l.firing(s, types.String(""), t, Next) })),
			cel.Overload("cron_next_string_string_timestamp", []*cel.Type{str, str, ts}, ts,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return l.firing(args[0], args[1], args[2], Next) }))),
		cel.Function("cron.prev",
			cel.Overload("cron_prev_string_timestamp", []*cel.Type{str, ts}, ts,
				cel.BinaryBinding(func(s, t ref.Val) ref.Val { return l.firing(s, types.String(""), t, Prev) })),
			cel.Overload("cron_prev_string_string_timestamp", []*cel.Type{str, str, ts}, ts,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return l.firing(args[0], args[1], args[2], Prev) }))),
		cel.Function("cron.open",
			cel.Overload("cron_open_string_duration_timestamp", []*cel.Type{str, dur, ts}, cel.BoolType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return l.open(args[0], types.String(""), args[1], args[2]) })),
			cel.Overload("cron_open_string_string_duration_timestamp", []*cel.Type{str, str, dur, ts}, cel.BoolType,
				cel.FunctionBinding(func(args ...ref.Val) ref.Val { return l.open(args[0], args[1], args[2], args[3]) }))),
		cel.Function("timezone.valid",
			cel.Overload("timezone_valid_string", []*cel.Type{str}, cel.BoolType,
				cel.UnaryBinding(func(v ref.Val) ref.Val {
					_, err := time.LoadLocation(string(asString(v)))
					return types.Bool(err == nil)
				}))),
	}
}

func (l scheduleLib) firing(spec, tz, at ref.Val, f func(cron.Schedule, time.Time) (time.Time, bool)) ref.Val {
	t, ok := at.(types.Timestamp)
	if !ok {
		return types.NewErr("cron: want a timestamp")
	}
	s, err := l.mem.schedule(string(asString(spec)), string(asString(tz)))
	if err != nil {
		return types.NewErr("cron: %v", err)
	}
	next, found := f(s, t.Time)
	if !found {
		return types.NewErr("cron: schedule %q does not fire within %s of %s", asString(spec), searchLimit, t.Time.UTC().Format(time.RFC3339))
	}
	return types.Timestamp{Time: next.UTC()}
}

func (l scheduleLib) open(spec, tz, length, at ref.Val) ref.Val {
	t, ok := at.(types.Timestamp)
	d, ok2 := length.(types.Duration)
	if !ok || !ok2 {
		return types.NewErr("cron.open: want a duration and a timestamp")
	}
	s, err := l.mem.schedule(string(asString(spec)), string(asString(tz)))
	if err != nil {
		return types.NewErr("cron.open: %v", err)
	}
	return types.Bool(Open(s, d.Duration, t.Time))
}

// scheduleKey names a parsed schedule in a Memory.
type scheduleKey struct{ spec, tz string }

type parsedSchedule struct {
	s   cron.Schedule
	err error
}

// schedule parses spec, in time zone tz ("" for the spec's own CRON_TZ=
// prefix, else UTC); parsed schedules are remembered in mem.
func (mem *Memory) schedule(spec, tz string) (cron.Schedule, error) {
	p := mem.tables().schedules.Get(scheduleKey{spec, tz}, func() parsedSchedule {
		s, err := ParseSchedule(spec, tz)
		return parsedSchedule{s, err}
	})
	return p.s, p.err
}

// ParseSchedule parses a CronJob schedule; tz, when set, is the time zone
// its fields are read in (a CRON_TZ= or TZ= prefix in spec then is an
// error, as a CronJob refuses both).
func ParseSchedule(spec, tz string) (cron.Schedule, error) {
	spec = strings.TrimSpace(spec)
	hasTZ := strings.HasPrefix(spec, "CRON_TZ=") || strings.HasPrefix(spec, "TZ=")
	if tz != "" {
		if hasTZ {
			return nil, fmt.Errorf("schedule %q names a time zone and one is given (%s)", spec, tz)
		}
		if _, err := time.LoadLocation(tz); err != nil {
			return nil, fmt.Errorf("unknown time zone %q", tz)
		}
		spec = "CRON_TZ=" + tz + " " + spec
	}
	s, err := cron.ParseStandard(spec)
	if err != nil {
		return nil, fmt.Errorf("schedule %q: %v", spec, err)
	}
	return s, nil
}

// searchLimit bounds the search of a firing: a schedule that cannot fire
// (February 30th) has none.
const searchLimit = 5 * 366 * 24 * time.Hour

// Next returns the first firing of s after t.
func Next(s cron.Schedule, t time.Time) (time.Time, bool) {
	n := s.Next(t)
	return n, !n.IsZero() && n.Sub(t) <= searchLimit
}

// Prev returns the last firing of s at or before t: the search goes back
// by doubling steps until a firing is in reach, then forward to the last
// one not after t.
func Prev(s cron.Schedule, t time.Time) (time.Time, bool) {
	for back := time.Minute; back <= 2*searchLimit; back *= 2 {
		from := t.Add(-back)
		first := s.Next(from.Add(-time.Second))
		if first.IsZero() || first.After(t) {
			continue
		}
		last := first
		for n := s.Next(last); !n.IsZero() && !n.After(t); n = s.Next(last) {
			last = n
		}
		return last, true
	}
	return time.Time{}, false
}

// Open reports whether a window that opens at each firing of s and lasts
// length is open at t (the start inside, the end not).
func Open(s cron.Schedule, length time.Duration, t time.Time) bool {
	p, ok := Prev(s, t)
	return ok && t.Before(p.Add(length))
}
