// Command benchtables rewrites the generated tables of BENCHMARKS.md from
// `go test -bench` output (issue 19: `make bench` writes the tables).
//
//	go run ./internal/benchtables -in bench.txt [-started 2026-12-01T14:00:00Z] [-load-start 1.2] BENCHMARKS.md
//
// A table lives between two markers in the file:
//
//	<!-- bench:NAME -->
//	...generated...
//	<!-- /bench:NAME -->
//
// and its history between <!-- bench:NAME:history --> and
// <!-- /bench:NAME:history -->. NAME is one of the tables below, each
// taking the benchmarks whose names start with its prefixes. A table with
// no benchmark in the input is left as it is, so that `make bench` and
// `make bench-kube` each rewrite their own. When a table is rewritten, the
// one-line summary of the figures it replaces (kept in the table as a
// comment) becomes the newest line of its history.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// table is one generated section.
type table struct {
	name     string
	prefixes []string // benchmark names (without "Benchmark") it takes
	// ratio, when set, adds a column: a row's ns/op divided by the ns/op
	// of the row named ratio(row), when there is one.
	ratio func(name string) string
	// columns, when set, are the units the table shows, in order; a row
	// with none of them (the bench-kube medians) is listed below the table
	// with all its figures.
	columns []string
	// summary names the units the history line keeps of each row.
	summary []string
}

var tables = []table{
	{name: "step", prefixes: []string{"Step", "StepInFull", "StepHandWritten"}, summary: []string{"ns/op"},
		ratio: func(name string) string {
			for _, p := range []string{"Step/", "StepInFull/"} {
				if rest, ok := strings.CutPrefix(name, p); ok {
					return "StepHandWritten/" + rest
				}
			}
			return ""
		}},
	{name: "compile", prefixes: []string{"Compile"}, summary: []string{"ns/op"}},
	{name: "sim", prefixes: []string{"SimulateDrift", "SimulateDriftDay", "SimulateDriftShort"},
		columns: []string{"ns/op", "cpu-s/op", "stepped", "skipped", "B/op", "allocs/op", "peak-heap-MB", "gc-cycles", "mem-limit-MB", "trace-lines", "µs/stepped", "step-hot-µs", "stepped/step-hot"},
		summary: []string{"ns/op", "cpu-s/op", "peak-heap-MB", "stepped/step-hot"}},
	{name: "kube", prefixes: []string{"ConvergeObjectPatches"},
		columns: []string{"s/converge", "objects/s", "cpu-ms/object", "controlplane-cpu-ms/object", "alloc-B/object", "requests/object", "reconciles/object"},
		summary: []string{"ratio-raw/statecraft", "ratio-raw/controller-runtime", "cpu-ms/object/statecraft", "cpu-ms/object/controller-runtime", "controlplane-cpu-ms/object/statecraft", "controlplane-cpu-ms/object/raw-client-go"}},
}

// result is one benchmark line: its name (without "Benchmark" and the
// -GOMAXPROCS suffix), iterations and metrics in the order printed.
type result struct {
	name    string
	n       int64
	units   []string
	metrics map[string]float64
}

// run is what one input holds.
type run struct {
	results []result
	cpu     string
	goos    string
	goarch  string
}

var benchLine = regexp.MustCompile(`^Benchmark(\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)

func parse(r io.Reader) (run, error) {
	var out run
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "cpu: "):
			out.cpu = strings.TrimPrefix(line, "cpu: ")
		case strings.HasPrefix(line, "goos: "):
			out.goos = strings.TrimPrefix(line, "goos: ")
		case strings.HasPrefix(line, "goarch: "):
			out.goarch = strings.TrimPrefix(line, "goarch: ")
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.ParseInt(m[2], 10, 64)
		res := result{name: m[1], n: n, metrics: map[string]float64{}}
		f := strings.Fields(m[3])
		if len(f)%2 != 0 {
			return out, fmt.Errorf("benchmark line with an odd number of fields: %q", line)
		}
		for i := 0; i < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return out, fmt.Errorf("benchmark line %q: %v", line, err)
			}
			if _, dup := res.metrics[f[i+1]]; !dup {
				res.units = append(res.units, f[i+1])
			}
			res.metrics[f[i+1]] = v
		}
		// -count=N prints a name N times: keep the least disturbed
		// sample, the fastest.
		replaced := false
		for j, prev := range out.results {
			if prev.name == res.name {
				if res.metrics["ns/op"] < prev.metrics["ns/op"] {
					out.results[j] = res
				}
				replaced = true
			}
		}
		if !replaced {
			out.results = append(out.results, res)
		}
	}
	return out, sc.Err()
}

// stamp is when, where and at what commit the figures were measured.
type stamp struct {
	started, ended time.Time
	commit         string
	loadStart      string
	loadEnd        string
	machine        string
}

func (s stamp) line() string {
	when := s.ended.Format("2006-01-02 15:04 UTC")
	if !s.started.IsZero() {
		when = s.started.Format("2006-01-02 15:04") + "–" + s.ended.Format("15:04 UTC")
	}
	load := "load average " + s.loadEnd + " at the end"
	if s.loadStart != "" {
		load = "load average " + s.loadStart + " → " + s.loadEnd
	}
	return fmt.Sprintf("%s, commit `%s`, %s, %s", when, s.commit, s.machine, load)
}

func (t table) takes(name string) bool {
	for _, p := range t.prefixes {
		if name == p || strings.HasPrefix(name, p+"/") {
			return true
		}
	}
	return false
}

// render writes the table's section: the stamp, the table, and its summary
// as a comment for the next rewrite's history.
func (t table) render(rs []result, st stamp) string {
	var units []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, u := range r.units {
			if !seen[u] {
				seen[u] = true
				units = append(units, u)
			}
		}
	}
	if t.columns != nil {
		var kept []string
		for _, c := range t.columns {
			if seen[c] {
				kept = append(kept, c)
			}
		}
		units = kept
	}
	var rows, others []result
	for _, r := range rs {
		shown := false
		for _, u := range units {
			if _, ok := r.metrics[u]; ok {
				shown = true
			}
		}
		if shown {
			rows = append(rows, r)
		} else {
			others = append(others, r)
		}
	}
	byName := map[string]result{}
	for _, r := range rs {
		byName[r.name] = r
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Measured %s.\n\n", st.line())
	b.WriteString("| benchmark |")
	for _, u := range units {
		fmt.Fprintf(&b, " %s |", u)
	}
	if t.ratio != nil {
		b.WriteString(" ratio |")
	}
	b.WriteString("\n|---|")
	for range units {
		b.WriteString("---|")
	}
	if t.ratio != nil {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s |", r.name)
		for _, u := range units {
			v, ok := r.metrics[u]
			if !ok {
				b.WriteString(" |")
				continue
			}
			fmt.Fprintf(&b, " %s |", format(u, v))
		}
		if t.ratio != nil {
			cell := ""
			if other, ok := byName[t.ratio(r.name)]; ok && other.metrics["ns/op"] > 0 {
				cell = fmt.Sprintf("%.1f×", r.metrics["ns/op"]/other.metrics["ns/op"])
			}
			b.WriteString(strings.TrimSuffix(" "+cell, " ") + " |")
		}
		b.WriteString("\n")
	}
	for _, r := range others {
		var parts []string
		for _, u := range r.units {
			if u != "ns/op" {
				parts = append(parts, u+" "+format(u, r.metrics[u]))
			}
		}
		fmt.Fprintf(&b, "\n%s: %s\n", r.name, strings.Join(parts, ", "))
	}
	var sum []string
	for _, r := range rs {
		var parts []string
		for _, u := range t.summary {
			if v, ok := r.metrics[u]; ok {
				parts = append(parts, strings.TrimSpace(format(u, v)+" "+shortUnit(u)))
			}
		}
		if len(parts) > 0 {
			sum = append(sum, r.name+" "+strings.Join(parts, ", "))
		}
	}
	fmt.Fprintf(&b, "\n<!-- summary: %s: %s -->\n", st.line(), strings.Join(sum, "; "))
	return b.String()
}

func shortUnit(u string) string {
	switch u {
	case "ns/op":
		return ""
	case "peak-heap-MB":
		return "peak heap"
	}
	return u
}

// format renders a value of a unit for people: durations for ns/op, bytes
// for B/op, three significant digits otherwise.
func format(unit string, v float64) string {
	switch unit {
	case "ns/op":
		return time.Duration(v).Round(sig(time.Duration(v))).String()
	case "B/op":
		switch {
		case v >= 1<<30:
			return fmt.Sprintf("%.2f GiB", v/(1<<30))
		case v >= 1<<20:
			return fmt.Sprintf("%.1f MiB", v/(1<<20))
		case v >= 1<<10:
			return fmt.Sprintf("%.1f KiB", v/(1<<10))
		}
		return fmt.Sprintf("%.0f B", v)
	}
	switch {
	case v == float64(int64(v)) && v < 1e15:
		return strconv.FormatInt(int64(v), 10)
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case v >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

// sig is the rounding that keeps three significant digits of d.
func sig(d time.Duration) time.Duration {
	r := time.Duration(1)
	for d >= 1000*r {
		r *= 10
	}
	return r
}

// rewrite replaces each table's section of doc that the run has figures
// for, moving the summary it replaces into the table's history.
func rewrite(doc string, r run, st stamp) (string, []string, error) {
	var done []string
	for _, t := range tables {
		var rs []result
		for _, res := range r.results {
			if t.takes(res.name) {
				rs = append(rs, res)
			}
		}
		if len(rs) == 0 {
			continue
		}
		open, close := "<!-- bench:"+t.name+" -->\n", "<!-- /bench:"+t.name+" -->"
		i := strings.Index(doc, open)
		j := strings.Index(doc, close)
		if i < 0 || j < i {
			return "", nil, fmt.Errorf("no section %s…%s for the %d %s benchmarks", strings.TrimSpace(open), close, len(rs), t.name)
		}
		old := doc[i+len(open) : j]
		doc = doc[:i+len(open)] + t.render(rs, st) + doc[j:]
		if m := regexp.MustCompile(`<!-- summary: (.*) -->`).FindStringSubmatch(old); m != nil {
			hopen, hclose := "<!-- bench:"+t.name+":history -->\n", "<!-- /bench:"+t.name+":history -->"
			h := strings.Index(doc, hopen)
			if h < 0 || strings.Index(doc, hclose) < h {
				return "", nil, fmt.Errorf("no section %s…%s for the figures replaced", strings.TrimSpace(hopen), hclose)
			}
			at := h + len(hopen)
			doc = doc[:at] + "- " + m[1] + "\n" + doc[at:]
		}
		done = append(done, fmt.Sprintf("%s (%d benchmarks)", t.name, len(rs)))
	}
	return doc, done, nil
}

func main() {
	in := flag.String("in", "-", "go test -bench output to read (-: standard input)")
	started := flag.String("started", "", "when the benchmarks started (RFC 3339)")
	loadStart := flag.String("load-start", "", "the load average when they started")
	commitFlag := flag.String("commit", "", "the commit measured (default: HEAD, -dirty when the tree is), for output kept from an earlier build")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: benchtables [-in FILE] [-started TIME] [-load-start L] BENCHMARKS.md")
		os.Exit(2)
	}
	if err := mainErr(flag.Arg(0), *in, *started, *loadStart, *commitFlag); err != nil {
		fmt.Fprintln(os.Stderr, "benchtables:", err)
		os.Exit(1)
	}
}

func mainErr(path, in, started, loadStart, commitOverride string) error {
	var src io.Reader = os.Stdin
	if in != "-" {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		defer f.Close()
		src = f
	}
	r, err := parse(src)
	if err != nil {
		return err
	}
	st := stamp{ended: time.Now().UTC(), loadStart: loadStart, loadEnd: loadAverage(), commit: commitOverride}
	if st.commit == "" {
		st.commit = commit()
	}
	if started != "" {
		if st.started, err = time.Parse(time.RFC3339, started); err != nil {
			return fmt.Errorf("-started: %v", err)
		}
		st.started = st.started.UTC()
	}
	st.machine = fmt.Sprintf("%d CPUs (%s), %s/%s, %s", runtime.NumCPU(), r.cpu, r.goos, r.goarch, runtime.Version())
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, done, err := rewrite(string(doc), r, st)
	if err != nil {
		return err
	}
	if len(done) == 0 {
		return fmt.Errorf("no benchmark of the input belongs to a table of %s", path)
	}
	if err := os.WriteFile(path, []byte(out), 0o644); err != nil {
		return err
	}
	fmt.Printf("%s: rewrote %s\n", path, strings.Join(done, ", "))
	return nil
}

func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := string(bytes.TrimSpace(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		c += "-dirty"
	}
	return c
}
