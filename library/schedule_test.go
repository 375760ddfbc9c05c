package library

import (
	"testing"
	"time"

	"github.com/google/cel-go/cel"
)

func TestSchedules(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	for _, c := range []struct {
		spec, tz, t, next, prev string
	}{
		// Every day at 02:00 UTC.
		{"0 2 * * *", "", "2026-03-10T12:00:00Z", "2026-03-11T02:00:00Z", "2026-03-10T02:00:00Z"},
		// A firing exactly at t is the previous one, not the next.
		{"0 2 * * *", "", "2026-03-10T02:00:00Z", "2026-03-11T02:00:00Z", "2026-03-10T02:00:00Z"},
		// 02:30 in Berlin: UTC+1 in winter, UTC+2 from March 29th.
		{"30 2 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z", "2026-03-28T01:30:00Z", "2026-03-27T01:30:00Z"},
		// The same with the CronJob's prefix.
		{"CRON_TZ=Europe/Berlin 30 2 * * *", "", "2026-03-27T12:00:00Z", "2026-03-28T01:30:00Z", "2026-03-27T01:30:00Z"},
		// On the day clocks spring forward 02:30 does not exist in Berlin.
		{"30 2 * * *", "Europe/Berlin", "2026-03-28T12:00:00Z", "2026-03-30T00:30:00Z", "2026-03-28T01:30:00Z"},
		// Weekdays at 09:00 in New York; the previous before a Monday morning is Friday's.
		{"0 9 * * 1-5", "America/New_York", "2026-06-08T12:00:00Z", "2026-06-08T13:00:00Z", "2026-06-05T13:00:00Z"},
		// Yearly: the previous firing is far back.
		{"@yearly", "", "2026-06-01T00:00:00Z", "2027-01-01T00:00:00Z", "2026-01-01T00:00:00Z"},
	} {
		s, err := ParseSchedule(c.spec, c.tz)
		if err != nil {
			t.Fatalf("%q %q: %v", c.spec, c.tz, err)
		}
		n, ok := Next(s, at(c.t))
		if !ok || !n.Equal(at(c.next)) {
			t.Errorf("%q %q after %s: next %s, want %s", c.spec, c.tz, c.t, n.UTC(), c.next)
		}
		p, ok := Prev(s, at(c.t))
		if !ok || !p.Equal(at(c.prev)) {
			t.Errorf("%q %q at %s: prev %s, want %s", c.spec, c.tz, c.t, p.UTC(), c.prev)
		}
	}
	for _, bad := range []struct{ spec, tz string }{
		{"61 * * * *", ""}, {"* * *", ""}, {"0 2 * * *", "Mars/Olympus"}, {"CRON_TZ=UTC 0 2 * * *", "UTC"}, {"TZ=Nowhere 0 2 * * *", ""},
	} {
		if _, err := ParseSchedule(bad.spec, bad.tz); err == nil {
			t.Errorf("%q %q parsed", bad.spec, bad.tz)
		}
	}
	never, _ := ParseSchedule("0 0 30 2 *", "")
	if _, ok := Next(never, at("2026-01-01T00:00:00Z")); ok {
		t.Error("February 30th fires")
	}
	if _, ok := Prev(never, at("2026-01-01T00:00:00Z")); ok {
		t.Error("February 30th fired")
	}
	// A two-hour window opening at 02:00: open from 02:00 up to, not at, 04:00.
	w, _ := ParseSchedule("0 2 * * *", "")
	for tm, want := range map[string]bool{"2026-03-10T01:59:59Z": false, "2026-03-10T02:00:00Z": true, "2026-03-10T03:59:59Z": true, "2026-03-10T04:00:00Z": false} {
		if got := Open(w, 2*time.Hour, at(tm)); got != want {
			t.Errorf("open at %s = %v, want %v", tm, got, want)
		}
	}
}

func TestScheduleFunctions(t *testing.T) {
	env, err := cel.NewEnv(append(EnvOptions(NewMemory(nil)), cel.Variable("now", cel.TimestampType))...)
	if err != nil {
		t.Fatal(err)
	}
	now, _ := time.Parse(time.RFC3339, "2026-03-10T12:00:00Z")
	for expr, want := range map[string]any{
		"cron.valid('0 2 * * *')":  true,
		"cron.valid('0 25 * * *')": false,
		"cron.next('0 2 * * *', now) == timestamp('2026-03-11T02:00:00Z')":               true,
		"cron.prev('0 2 * * *', 'Asia/Tokyo', now) == timestamp('2026-03-09T17:00:00Z')": true,
		"cron.open('0 11 * * *', duration('2h'), now)":                                   true,
		"cron.open('0 11 * * *', 'Europe/London', duration('30m'), now)":                 false,
		"timezone.valid('Europe/Berlin') && !timezone.valid('Europe/Nowhere')":           true,
	} {
		ast, iss := env.Compile(expr)
		if iss.Err() != nil {
			t.Fatalf("%s: %v", expr, iss.Err())
		}
		prg, _ := env.Program(ast)
		out, _, err := prg.Eval(map[string]any{"now": now})
		if err != nil || out.Value() != want {
			t.Errorf("%s = %v (%v), want %v", expr, out, err, want)
		}
	}
	// An invalid schedule is an evaluation error, not a value.
	ast, _ := env.Compile("cron.next('nope', now)")
	prg, _ := env.Program(ast)
	if _, _, err := prg.Eval(map[string]any{"now": now}); err == nil {
		t.Error("cron.next of an invalid schedule gave a value")
	}
}
