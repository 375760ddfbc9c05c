package record

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/jsonvalue"
)

// Format names the version of the recording format (spec/recording.md).
const Format = "statecraft-recording/v1"

// The files of a recording folder.
const (
	ManifestFile = "recording.json"
	ScenarioFile = "recording.scenario.hcl"
	segmentsDir  = "segments"
	rulesDir     = "rules"
	objectsDir   = "objects"
)

// Manifest is recording.json: what was recorded, under which rules, and
// the segments kept.
type Manifest struct {
	Format string `json:"format"`
	// Server and Context say which cluster was recorded.
	Server  string `json:"server"`
	Context string `json:"context,omitempty"`
	// Start is time zero of every offset in the recording; End is the
	// last time it covers (updated as it is written).
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Rules are the rule files the engine ran, copied into rules/; Params
	// the --param values it ran with (MACHINE.NAME=VALUE).
	Rules  []RuleFile `json:"rules"`
	Params []string   `json:"params,omitempty"`
	// Namespace, when set, is the only namespace whose objects the
	// engine drove.
	Namespace string `json:"namespace,omitempty"`
	// SecretData is true when Secrets were recorded with their data;
	// otherwise every value of their data is Redacted.
	SecretData bool `json:"secretData"`
	// MaxSegmentBytes and MaxSegments bound the recording: a segment whose
	// logs pass the first is closed and a new one begun, and beyond the
	// second the oldest segments are deleted.
	MaxSegmentBytes int64 `json:"maxSegmentBytes"`
	MaxSegments     int   `json:"maxSegments"`
	// Segments are the segments kept, oldest first; Dropped counts those
	// rotation deleted before them.
	Segments []Segment `json:"segments"`
	Dropped  int       `json:"dropped,omitempty"`
	// Processes are the engine processes that recorded, in order: a
	// restart continues the recording in a new segment.
	Processes []Process `json:"processes"`
	// Kinds are the kinds recorded (apiVersion/Kind): Watched ones through
	// watches, Polled ones (the recording identity may not list or watch
	// them) through what the engine read.
	Watched []string `json:"watched"`
	Polled  []string `json:"polled,omitempty"`
}

// RuleFile is one rule file the engine ran.
type RuleFile struct {
	// Name is how it was given (a path, or a shipped policy's name).
	Name string `json:"name"`
	// File is its copy in the recording, relative to the folder.
	File     string   `json:"file"`
	SHA256   string   `json:"sha256"`
	Machines []string `json:"machines"`
}

// Segment is one part of a recording: a checkpoint of every recorded
// object at its start, and the logs of what happened until the next.
type Segment struct {
	N int `json:"n"`
	// At is when it starts, since the recording's start.
	At Offset `json:"at"`
	// Restart is set when an engine process began with it (a recording
	// continued after a restart).
	Restart bool `json:"restart,omitempty"`
	// Denials are the denials in force at its start.
	Denials []Denial `json:"denials,omitempty"`
}

// Process is one engine process that recorded.
type Process struct {
	At   Offset `json:"at"`
	Host string `json:"host,omitempty"`
	PID  int    `json:"pid,omitempty"`
}

// Offset is a duration since the recording's start, in JSON as
// nanoseconds.
type Offset = time.Duration

func segmentBase(n int) string { return filepath.Join(segmentsDir, fmt.Sprintf("%06d", n)) }

// ObjectsFile, WorldFile, DecisionsFile and ResumeFile are the files of
// segment n, relative to the recording folder.
func ObjectsFile(n int) string   { return segmentBase(n) + ".objects.yaml" }
func WorldFile(n int) string     { return segmentBase(n) + ".world.jsonl" }
func DecisionsFile(n int) string { return segmentBase(n) + ".decisions.jsonl" }
func ResumeFile(n int) string    { return segmentBase(n) + ".resume.json" }

// Change is one line of a segment's world log: something that changed in
// the cluster, or in what the engine was allowed to do.
type Change struct {
	At Offset `json:"at"`
	// Op is create, update, delete, seen (an object first seen then,
	// which existed before), deny or allow (a denial the engine met, or
	// its end).
	Op string `json:"op"`
	// By is "engine" for the engine's own write, "other" for anyone
	// else's, "server" for what the server did itself following an
	// earlier change (removing an object whose finalizers are gone,
	// collecting a dependent of a deleted owner): the simulator does the
	// same, and it is not replayed.
	By string `json:"by,omitempty"`
	// Lingers is set on a delete after which the object is still there,
	// held by its finalizers (a later delete by the server removes it).
	Lingers bool `json:"lingers,omitempty"`
	// Ref names the object of create, update, delete and seen.
	Ref *Ref `json:"ref,omitempty"`
	// Object is the object created or seen.
	Object map[string]any `json:"object,omitempty"`
	// Patch is the merge patch an update made to the whole object
	// (status included).
	Patch map[string]any `json:"patch,omitempty"`
	// Denial is the request a deny or allow is about.
	Denial *Denial `json:"denial,omitempty"`
}

// Ref names an object.
type Ref struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + "/" + r.Name
	}
	return r.Kind + "/" + r.Namespace + "/" + r.Name
}

// Denial is a kind of request the API server refused the engine: verb,
// apiVersion and kind ("Kind/status" for a subresource), and the identity
// it impersonated ("" for its own).
type Denial struct {
	Identity   string `json:"identity,omitempty"`
	Verb       string `json:"verb"`
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
}

// Decision is one line of a segment's decision log: a reconcile that
// began (every one, rests included: a replay pins its reconciles to these
// times), a transition the engine fired (with its clause values), a write
// it sent (with its body and outcome), or a problem it reported, in the
// order the reconcile made them.
type Decision struct {
	// At is the reconcile's now, since the recording's start.
	At      Offset `json:"at"`
	Object  string `json:"object"`
	Machine string `json:"machine"`
	Type    string `json:"type"` // reconcile, transition, write, problem
	// A transition: from, to, name, reason, message; Outcome is "ACTION
	// OUTCOME" when an action's outcome other than ok took the route;
	// Wake is the wait the route asked for; Why the candidates the step
	// tried, in order, the one that fired last.
	From       string  `json:"from,omitempty"`
	To         string  `json:"to,omitempty"`
	Transition string  `json:"transition,omitempty"`
	Reason     string  `json:"reason,omitempty"`
	Message    string  `json:"message,omitempty"`
	Outcome    string  `json:"outcome,omitempty"`
	Wake       *Offset `json:"wake,omitempty"`
	Why        []Why   `json:"why,omitempty"`
	// A write.
	Write *Write `json:"write,omitempty"`
	// End, on a reconcile, is when it was over: reconciles that overlap
	// in time ran concurrently (several workers), in an order of reads
	// and writes a replay cannot know.
	End *Offset `json:"end,omitempty"`
}

// Write is one write request of the engine and its outcome.
type Write struct {
	Verb        string `json:"verb"`
	Ref         Ref    `json:"ref"`
	Subresource string `json:"subresource,omitempty"`
	PatchType   string `json:"patchType,omitempty"`
	DryRun      bool   `json:"dryRun,omitempty"`
	Identity    string `json:"identity,omitempty"`
	Body        any    `json:"body,omitempty"`
	Outcome     string `json:"outcome"`
	Message     string `json:"message,omitempty"`
}

// Why is one candidate transition of a step, explained (engine.Why).
type Why struct {
	Transition string   `json:"transition"`
	Fired      bool     `json:"fired,omitempty"`
	Guard      string   `json:"guard,omitempty"`
	Error      string   `json:"error,omitempty"`
	Clauses    []Clause `json:"clauses,omitempty"`
}

// Clause is one top-level clause of a guard with its value (engine.ClauseWhy).
type Clause struct {
	Text  string   `json:"text"`
	Op    string   `json:"op,omitempty"`
	Value string   `json:"value"`
	Bool  *bool    `json:"bool,omitempty"`
	Reads []string `json:"reads,omitempty"`
	// Opens is when a false time comparison in it would next hold, since
	// the recording's start.
	Opens     *Offset `json:"opens,omitempty"`
	OpensWhat string  `json:"opensWhat,omitempty"`
}

// Resume is a segment's resume file: the engine's pending wake-up of each
// driven object when the segment began (see scenario "resume" blocks).
type Resume struct {
	Objects []ResumeObject `json:"objects"`
}

// ResumeObject is one driven object's pending wake-up (none: at rest until
// it changes), since the recording's start.
type ResumeObject struct {
	Ref  Ref     `json:"ref"`
	Wake *Offset `json:"wake,omitempty"`
}

// Recording is a recording folder read back.
type Recording struct {
	Dir      string
	Manifest Manifest
	// Objects are the checkpoint of the first kept segment; Resume its
	// pending wake-ups (nil for a segment an engine process began with).
	Objects []map[string]any
	Resume  *Resume
	// World and Decisions are every kept segment's logs, in order.
	World     []Change
	Decisions []Decision
	// Warnings say what was repaired on reading: a log whose last line
	// was cut short (the recorder was killed while writing it).
	Warnings []string
}

// Load reads a recording folder and checks it: a missing or damaged file
// is an error naming the file (and line).
func Load(dir string) (*Recording, error) {
	rec := &Recording{Dir: dir}
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s is not a recording: it has no %s", dir, ManifestFile)
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(data, &rec.Manifest); err != nil {
		return nil, fmt.Errorf("%s: damaged: %v", filepath.Join(dir, ManifestFile), err)
	}
	m := &rec.Manifest
	if m.Format != Format {
		return nil, fmt.Errorf("%s: format %q, want %q", filepath.Join(dir, ManifestFile), m.Format, Format)
	}
	if len(m.Segments) == 0 {
		return nil, fmt.Errorf("%s: no segments", filepath.Join(dir, ManifestFile))
	}
	for i, s := range m.Segments {
		if i > 0 && (s.N <= m.Segments[i-1].N || s.At < m.Segments[i-1].At) {
			return nil, fmt.Errorf("%s: segment %d out of order", filepath.Join(dir, ManifestFile), s.N)
		}
	}
	for _, r := range m.Rules {
		if _, err := os.Stat(filepath.Join(dir, r.File)); err != nil {
			return nil, fmt.Errorf("%s: the rule file %s it names is missing", filepath.Join(dir, ManifestFile), r.File)
		}
	}
	first := m.Segments[0]
	if rec.Objects, err = ReadObjects(filepath.Join(dir, ObjectsFile(first.N))); err != nil {
		return nil, err
	}
	if !first.Restart {
		var r Resume
		switch data, err := os.ReadFile(filepath.Join(dir, ResumeFile(first.N))); {
		case errors.Is(err, os.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			if err := json.Unmarshal(data, &r); err != nil {
				return nil, fmt.Errorf("%s: damaged: %v", filepath.Join(dir, ResumeFile(first.N)), err)
			}
			rec.Resume = &r
		}
	}
	for _, s := range m.Segments {
		if err := readLines(filepath.Join(dir, WorldFile(s.N)), rec, func(b []byte) error {
			var c Change
			if err := json.Unmarshal(b, &c); err != nil {
				return err
			}
			return c.check()
		}, func(b []byte) {
			var c Change
			json.Unmarshal(b, &c)
			if v, err := jsonvalue.Canonical(c.Object); err == nil && c.Object != nil {
				c.Object = v.(map[string]any)
			}
			if v, err := jsonvalue.Canonical(c.Patch); err == nil && c.Patch != nil {
				c.Patch = v.(map[string]any)
			}
			rec.World = append(rec.World, c)
		}); err != nil {
			return nil, err
		}
		if err := readLines(filepath.Join(dir, DecisionsFile(s.N)), rec, func(b []byte) error {
			var d Decision
			if err := json.Unmarshal(b, &d); err != nil {
				return err
			}
			return d.check()
		}, func(b []byte) {
			var d Decision
			json.Unmarshal(b, &d)
			if d.Write != nil && d.Write.Body != nil {
				if v, err := jsonvalue.Canonical(d.Write.Body); err == nil {
					d.Write.Body = v
				}
			}
			rec.Decisions = append(rec.Decisions, d)
		}); err != nil {
			return nil, err
		}
	}
	sort.SliceStable(rec.World, func(i, j int) bool { return rec.World[i].At < rec.World[j].At })
	return rec, nil
}

var changeOps = map[string]bool{"create": true, "update": true, "delete": true, "seen": true, "deny": true, "allow": true}

func (c Change) check() error {
	switch {
	case !changeOps[c.Op]:
		return fmt.Errorf("unknown op %q", c.Op)
	case c.Op == "deny" || c.Op == "allow":
		if c.Denial == nil || c.Denial.Verb == "" || c.Denial.Kind == "" {
			return fmt.Errorf("%s without its denial", c.Op)
		}
	case c.Ref == nil || c.Ref.Kind == "" || c.Ref.Name == "":
		return fmt.Errorf("%s without the object it is about", c.Op)
	case (c.Op == "create" || c.Op == "seen") && c.Object == nil:
		return fmt.Errorf("%s of %s without the object", c.Op, c.Ref)
	case c.Op == "update" && c.Patch == nil:
		return fmt.Errorf("update of %s without its patch", c.Ref)
	case c.By != "engine" && c.By != "other" && c.By != "server" && c.Op != "seen":
		return fmt.Errorf("%s of %s by %q: neither engine, other nor server", c.Op, c.Ref, c.By)
	}
	return nil
}

func (d Decision) check() error {
	switch d.Type {
	case "transition":
		if d.Transition == "" || d.To == "" {
			return fmt.Errorf("a transition without its name or state")
		}
	case "write":
		if d.Write == nil || d.Write.Verb == "" {
			return fmt.Errorf("a write without its request")
		}
	case "problem":
		if d.Reason == "" {
			return fmt.Errorf("a problem without its reason")
		}
	case "reconcile":
	default:
		return fmt.Errorf("unknown type %q", d.Type)
	}
	if d.Object == "" {
		return fmt.Errorf("a %s without its object", d.Type)
	}
	return nil
}

// readLines reads a JSON Lines file, checking each line; a last line cut
// short (no newline, not valid) is dropped with a warning, any other bad
// line is an error naming the file and line. A missing file is empty.
func readLines(path string, rec *Recording, check func([]byte) error, add func([]byte)) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := check(line); err != nil {
			last := !bytes.HasSuffix(data, []byte("\n")) && bytes.HasSuffix(data, line)
			if last {
				rec.Warnings = append(rec.Warnings, fmt.Sprintf("%s:%d: the last line is cut short (the recorder stopped while writing it); ignored", path, n))
				return nil
			}
			return fmt.Errorf("%s:%d: damaged: %v", path, n, err)
		}
		add(line)
	}
	return sc.Err()
}

// ReadObjects reads a YAML file of objects (documents separated by ---).
func ReadObjects(path string) ([]map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []map[string]any
	for i, doc := range bytes.Split(data, []byte("\n---")) {
		if len(bytes.TrimSpace(doc)) == 0 {
			continue
		}
		js, err := yaml.YAMLToJSON(doc)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: damaged: %v", path, i+1, err)
		}
		v, err := jsonvalue.Decode(js)
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: damaged: %v", path, i+1, err)
		}
		obj, ok := v.(map[string]any)
		if v == nil {
			continue
		}
		if !ok || obj["kind"] == nil || obj["apiVersion"] == nil {
			return nil, fmt.Errorf("%s: document %d is not a Kubernetes object", path, i+1)
		}
		out = append(out, obj)
	}
	return out, nil
}

// WriteObjects writes objects as YAML documents, in order.
func WriteObjects(path string, objs []map[string]any) error {
	var b strings.Builder
	for i, o := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		y, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		b.Write(y)
	}
	return writeFileAtomic(path, []byte(b.String()))
}

// writeFileAtomic writes a file through a temporary one renamed over it,
// so that a reader (or a recorder killed meanwhile) never sees half of it.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
