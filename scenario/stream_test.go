package scenario_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/statecraft/statecraft/scenario"
)

// TestStreamedTraceIsTheKeptTrace runs every scenario of the suites, and
// an hour of the benchmark's drift workload, twice: keeping the trace in
// Result.Trace, and handing it line by line to Options.Trace. The lines
// handed over must be the kept lines, in the same order, nothing must be
// kept when they are streamed, and TraceWriter must write the bytes of
// RenderTrace (what the golden files hold).
func TestStreamedTraceIsTheKeptTrace(t *testing.T) {
	runs := suiteRuns(t, driftScenario(100, time.Hour))
	for _, r := range runs {
		ms, diags := scenario.Compile(r.s)
		if diags.HasErrors() {
			t.Fatalf("%s: %v", r.name, diags)
		}
		kept, err := scenario.Run(context.Background(), r.s, ms, scenario.Options{})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		var got []scenario.Line
		var buf bytes.Buffer
		tw := scenario.NewTraceWriter(&buf)
		streamed, err := scenario.Run(context.Background(), r.s, ms, scenario.Options{Trace: func(l scenario.Line) {
			got = append(got, l)
			tw.Line(l)
		}})
		if err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		if err := tw.Flush(); err != nil {
			t.Fatal(err)
		}
		if streamed.Trace != nil {
			t.Errorf("%s: streaming kept %d lines in Result.Trace", r.name, len(streamed.Trace))
		}
		if d := cmp.Diff(kept.Trace, got); d != "" {
			t.Errorf("%s: the streamed lines differ from the kept ones (-kept +streamed):\n%s", r.name, d)
		}
		if kept.Lines != len(kept.Trace) || streamed.Lines != len(got) {
			t.Errorf("%s: Lines %d kept (%d lines), %d streamed (%d lines)", r.name, kept.Lines, len(kept.Trace), streamed.Lines, len(got))
		}
		if want := scenario.RenderTrace(kept.Trace); !bytes.Equal(buf.Bytes(), want) {
			t.Errorf("%s: TraceWriter wrote\n%s\nwant\n%s", r.name, buf.Bytes(), want)
		}
		if d := cmp.Diff(kept.Failures, streamed.Failures); d != "" {
			t.Errorf("%s: streaming changed the failed expectations:\n%s", r.name, d)
		}
	}
}

// The stamp renders as +DdHH:MM:SS, zero-padded, at every boundary.
func TestStamp(t *testing.T) {
	for _, c := range []struct {
		d    time.Duration
		want string
	}{
		{0, "+0d00:00:00"},
		{9 * time.Second, "+0d00:00:09"},
		{10*time.Second + 999*time.Millisecond, "+0d00:00:10"},
		{59*time.Minute + 59*time.Second, "+0d00:59:59"},
		{time.Hour, "+0d01:00:00"},
		{23*time.Hour + 5*time.Minute, "+0d23:05:00"},
		{24 * time.Hour, "+1d00:00:00"},
		{10*24*time.Hour + 10*time.Hour + 10*time.Minute + 10*time.Second, "+10d10:10:10"},
		{-5 * time.Second, "+0d00:00:-5"},
	} {
		if got := scenario.Stamp(c.d); got != c.want {
			t.Errorf("Stamp(%v) = %q, want %q", c.d, got, c.want)
		}
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errors.New("disk full")
}

// A write error stops a TraceWriter and is what Flush reports.
func TestTraceWriterError(t *testing.T) {
	w := &failingWriter{}
	tw := scenario.NewTraceWriter(w)
	line := scenario.Line{Text: fmt.Sprintf("%070000d", 0)} // larger than the buffer
	tw.Line(line)
	tw.Line(line)
	if err := tw.Flush(); err == nil || err.Error() != "disk full" {
		t.Fatalf("Flush = %v, want the write error", err)
	}
	if w.n != 1 {
		t.Errorf("%d writes after the first failed, want none", w.n-1)
	}
}
