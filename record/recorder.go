package record

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/resourceversion"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// Options configure a Recorder.
type Options struct {
	// Dir is the recording folder. One that holds a recording is
	// continued (the same rules and params are required).
	Dir string
	// Server and Context name the cluster, for the manifest.
	Server, Context string
	// Rules are the rule files the engine runs, copied into the recording.
	Rules []RuleSource
	// Params are the --param values the engine runs with.
	Params []string
	// Namespace, when set, is the only namespace the engine drives.
	Namespace string
	// SecretData records Secrets with their data (default: redacted).
	SecretData bool
	// MaxSegmentBytes bounds a segment's logs (default 32 MiB);
	// MaxSegments the segments kept (default 8): the recording holds at
	// most about their product, plus one checkpoint per segment.
	MaxSegmentBytes int64
	MaxSegments     int
	// Settle is how long a change a watch shows waits before it is told
	// apart as the engine's own or another actor's: the engine's write
	// may return after its watch event arrives (default 1s).
	Settle time.Duration
	// Now is the clock (default time.Now); Logger gets warnings.
	Now    func() time.Time
	Logger *slog.Logger
}

// RuleSource is one rule file the engine runs.
type RuleSource struct {
	Name     string // as given: a path, or a shipped policy's name
	Source   []byte
	Machines []string
}

const (
	defaultSegmentBytes = 32 << 20
	defaultSegments     = 8
)

type kindKey struct{ apiVersion, kind string }

func (k kindKey) String() string { return k.apiVersion + "/" + k.kind }

func parseKind(s string) kindKey {
	i := strings.LastIndex(s, "/")
	if i < 0 {
		return kindKey{kind: s}
	}
	return kindKey{s[:i], s[i+1:]}
}

// event is one change an informer showed, waiting to be logged.
type event struct {
	kind     kindKey
	old, obj map[string]any
	at       time.Time
}

type denialState struct {
	active                bool
	lastOK, lastForbidden time.Time
}

// objState is what the recorder knows of the engine's work on one driven
// object: its last reconcile, the wake-up it asked for, and the last
// change that should make the engine look at it again.
type objState struct {
	reconciled, changed, wake time.Time
}

// A Recorder records a controller's run into a recording folder. It is a
// controller.Observer; Close ends the recording.
type Recorder struct {
	opts   Options
	client *kube.Client
	cache  *controller.Cache
	driven map[kindKey]*fsm.Machine
	start  time.Time
	ctx    context.Context
	cancel context.CancelFunc

	mu         sync.Mutex
	man        Manifest
	seg        *segmentFiles
	known      map[Ref]map[string]any
	namespaces map[string]bool  // namespaces whose observed objects are recorded
	wide       map[kindKey]bool // kinds the engine lists in every namespace: recorded in all
	listed     map[kindKey]time.Time
	polled     map[kindKey]bool
	starting   map[kindKey]bool
	pending    []event
	ownRV      map[Ref]map[string]ownWrite
	ownDel     map[Ref]time.Time
	denials    map[Denial]*denialState
	lastRead   map[Ref]time.Time
	objects    map[Ref]*objState
	// decisions wait, as changes do, until the logs are written up to
	// their time (committed), so that a segment holds what happened
	// after its checkpoint and nothing before.
	decisions []Decision
	committed time.Time
	gap       []Change // what changed while no engine ran, for the next segment
	procStart Offset   // when this process began recording
	err       error

	wg       sync.WaitGroup
	stop     chan struct{}
	closed   bool
	rendered time.Time
}

type ownWrite struct {
	by Ref // the object whose reconcile wrote it
	at time.Time
}

// Start begins (or continues) a recording of what the controller that
// uses it as its Observer does with machines on the cluster client
// reaches: it watches the machines' driven kinds and the kinds their
// objects read, writes the first checkpoint, and returns once that is on
// disk, before the controller starts.
func Start(ctx context.Context, client *kube.Client, machines []*fsm.Machine, opts Options) (*Recorder, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.MaxSegmentBytes <= 0 {
		opts.MaxSegmentBytes = defaultSegmentBytes
	}
	if opts.MaxSegments <= 0 {
		opts.MaxSegments = defaultSegments
	}
	if opts.Settle <= 0 {
		opts.Settle = time.Second
	}
	r := &Recorder{opts: opts, client: client, driven: map[kindKey]*fsm.Machine{},
		known: map[Ref]map[string]any{}, namespaces: map[string]bool{}, wide: map[kindKey]bool{}, listed: map[kindKey]time.Time{},
		polled: map[kindKey]bool{}, starting: map[kindKey]bool{}, ownRV: map[Ref]map[string]ownWrite{},
		ownDel: map[Ref]time.Time{}, denials: map[Denial]*denialState{}, lastRead: map[Ref]time.Time{},
		objects: map[Ref]*objState{}, stop: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	for _, m := range machines {
		for _, res := range m.Resources {
			r.driven[kindKey{res.APIVersion, res.Kind}] = m
		}
	}
	if opts.Namespace != "" {
		r.namespaces[opts.Namespace] = true
	}
	now := opts.Now()
	var prev map[Ref]map[string]any
	continued, err := r.open(now)
	if err != nil {
		return nil, err
	}
	if continued {
		if prev, err = r.lastKnown(); err != nil {
			return nil, err
		}
		// The namespaces the previous process recorded stay recorded: what
		// it knew there and still is is no change, nor what is gone
		// there a delete it missed.
		for ref := range prev {
			if ref.Namespace != "" {
				r.namespaces[ref.Namespace] = true
			}
		}
	}
	r.cache = controller.NewCache(client, 10*time.Hour, opts.Now, r.onChange)
	// What to watch first: Namespaces, the driven kinds, the kinds the
	// previous process watched, and the kinds the driven objects read.
	first := []kindKey{{"v1", "Namespace"}}
	for k := range r.driven {
		first = append(first, k)
	}
	for _, s := range r.man.Watched {
		first = append(first, parseKind(s))
	}
	for _, k := range sortedKinds(first) {
		if err := r.watch(ctx, k); err != nil {
			r.cache.Stop()
			return nil, err
		}
	}
	for _, k := range sortedKinds(r.readKinds(now)) {
		if err := r.watch(ctx, k); err != nil {
			r.cache.Stop()
			return nil, err
		}
	}
	r.mu.Lock()
	at := r.opts.Now()
	if continued {
		r.restarted(prev, at)
	}
	err = r.beginSegment(at, continued, true)
	r.committed, r.procStart = at, at.Sub(r.start)
	r.mu.Unlock()
	if err != nil {
		r.cache.Stop()
		return nil, err
	}
	if err := WriteScenario(opts.Dir); err != nil {
		r.cache.Stop()
		return nil, err
	}
	r.wg.Add(1)
	go r.loop()
	return r, nil
}

// open reads the manifest of a recording to continue, or begins a new
// one: its folder, its rule files. It reports whether it continues one.
func (r *Recorder) open(now time.Time) (bool, error) {
	dir := r.opts.Dir
	data, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	switch {
	case err == nil:
		if err := json.Unmarshal(data, &r.man); err != nil || r.man.Format != Format {
			return false, fmt.Errorf("%s holds a damaged recording (%s): record into another folder", dir, ManifestFile)
		}
		if err := r.sameRun(); err != nil {
			return false, fmt.Errorf("cannot continue the recording in %s: %v; record into another folder", dir, err)
		}
		r.start = r.man.Start
		r.man.MaxSegmentBytes, r.man.MaxSegments = r.opts.MaxSegmentBytes, r.opts.MaxSegments
		return true, nil
	case !errors.Is(err, os.ErrNotExist):
		return false, err
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return false, fmt.Errorf("%s is not empty and holds no recording: record into a new or empty folder", dir)
	}
	if err := os.MkdirAll(filepath.Join(dir, segmentsDir), 0o755); err != nil {
		return false, err
	}
	r.start = now.UTC()
	r.man = Manifest{Format: Format, Server: r.opts.Server, Context: r.opts.Context, Start: r.start, End: r.start,
		Params: r.opts.Params, Namespace: r.opts.Namespace, SecretData: r.opts.SecretData,
		MaxSegmentBytes: r.opts.MaxSegmentBytes, MaxSegments: r.opts.MaxSegments}
	used := map[string]bool{}
	for _, rs := range r.opts.Rules {
		base := strings.TrimSuffix(filepath.Base(rs.Name), ".hcl")
		name := base
		for i := 2; used[name]; i++ {
			name = fmt.Sprintf("%s-%d", base, i)
		}
		used[name] = true
		file := filepath.Join(rulesDir, name+".hcl")
		if err := writeFileAtomic(filepath.Join(dir, file), rs.Source); err != nil {
			return false, err
		}
		sum := sha256.Sum256(rs.Source)
		r.man.Rules = append(r.man.Rules, RuleFile{Name: rs.Name, File: file, SHA256: hex.EncodeToString(sum[:]), Machines: rs.Machines})
	}
	return false, nil
}

// sameRun checks that the engine runs as the recording was made.
func (r *Recorder) sameRun() error {
	if len(r.man.Rules) != len(r.opts.Rules) {
		return fmt.Errorf("it was recorded with %d rule files, the engine runs %d", len(r.man.Rules), len(r.opts.Rules))
	}
	for i, rs := range r.opts.Rules {
		sum := sha256.Sum256(rs.Source)
		if r.man.Rules[i].Name != rs.Name || r.man.Rules[i].SHA256 != hex.EncodeToString(sum[:]) {
			return fmt.Errorf("it was recorded with another version of %s", rs.Name)
		}
	}
	if strings.Join(r.man.Params, "\n") != strings.Join(r.opts.Params, "\n") {
		return fmt.Errorf("it was recorded with --param %v, the engine runs with %v", r.man.Params, r.opts.Params)
	}
	if r.man.Namespace != r.opts.Namespace || r.man.SecretData != r.opts.SecretData {
		return fmt.Errorf("it was recorded with another --namespace or secret data setting")
	}
	return nil
}

// lastKnown is what the recording last knew of the world: the last
// segment's checkpoint with its changes folded in. A log line the last
// process cut short is dropped from the file first.
func (r *Recorder) lastKnown() (map[Ref]map[string]any, error) {
	last := r.man.Segments[len(r.man.Segments)-1].N
	for _, f := range []string{WorldFile(last), DecisionsFile(last)} {
		if err := truncatePartial(filepath.Join(r.opts.Dir, f)); err != nil {
			return nil, err
		}
	}
	objs, err := ReadObjects(filepath.Join(r.opts.Dir, ObjectsFile(last)))
	if err != nil {
		return nil, err
	}
	known := map[Ref]map[string]any{}
	for _, o := range objs {
		known[refOfObject(o)] = o
	}
	rec := &Recording{}
	err = readLines(filepath.Join(r.opts.Dir, WorldFile(last)), rec, func(b []byte) error {
		var c Change
		if err := json.Unmarshal(b, &c); err != nil {
			return err
		}
		return c.check()
	}, func(b []byte) {
		var c Change
		json.Unmarshal(b, &c)
		fold(known, c)
	})
	return known, err
}

// truncatePartial cuts a file after its last newline.
func truncatePartial(path string) error {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil || len(data) == 0 || data[len(data)-1] == '\n' {
		return err
	}
	return os.Truncate(path, int64(bytes.LastIndexByte(data, '\n')+1))
}

// restarted logs what changed while no engine ran (between what the
// recording last knew and what the watches now show) as other actors'
// changes at the restart.
func (r *Recorder) restarted(prev map[Ref]map[string]any, at time.Time) {
	var gap []Change
	off := at.Sub(r.start)
	for _, ref := range sortedRefs(prev, r.known) {
		if r.polled[kindKey{ref.APIVersion, ref.Kind}] {
			if o, ok := prev[ref]; ok {
				r.known[ref] = o
			}
			continue
		}
		before, had := prev[ref]
		now, has := r.known[ref]
		ref := ref
		switch {
		case had && !has:
			gap = append(gap, Change{At: off, Op: "delete", By: "other", Ref: &ref})
		case !had && has:
			gap = append(gap, Change{At: off, Op: "create", By: "other", Ref: &ref, Object: now})
		case had && has:
			if p := change(before, now); len(p) > 0 {
				gap = append(gap, Change{At: off, Op: "update", By: "other", Ref: &ref, Patch: p})
			}
		}
	}
	r.gap = gap
}

func sortedRefs(ms ...map[Ref]map[string]any) []Ref {
	seen := map[Ref]bool{}
	var out []Ref
	for _, m := range ms {
		for r := range m {
			if !seen[r] {
				seen[r] = true
				out = append(out, r)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return refLess(out[i], out[j]) })
	return out
}

func sortedKinds(ks []kindKey) []kindKey {
	seen := map[kindKey]bool{}
	var out []kindKey
	for _, k := range ks {
		if !seen[k] && k.kind != "" {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// readKinds returns the kinds the driven objects read now (their first
// observations), and adds their namespaces to those recorded.
func (r *Recorder) readKinds(now time.Time) []kindKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []kindKey
	for _, ref := range sortedRefs(r.known) {
		m := r.driven[kindKey{ref.APIVersion, ref.Kind}]
		if m == nil {
			continue
		}
		r.addNamespace(ref.Namespace)
		for _, rd := range engine.Reads(m, r.known[ref], now) {
			if rd.Skip || rd.Err != nil || rd.Ref.Kind == "" {
				continue
			}
			out = append(out, kindKey{rd.Ref.APIVersion, rd.Ref.Kind})
			r.addNamespace(rd.Ref.Namespace)
		}
	}
	return out
}

// watch starts recording a kind: through a watch when the recording's
// identity may list it (the objects it holds in the recorded namespaces
// join what is known), else through what the engine reads of it.
func (r *Recorder) watch(ctx context.Context, k kindKey) error {
	ref := adapters.Ref{APIVersion: k.apiVersion, Kind: k.kind}
	if r.client.Scope(ctx, k.apiVersion, k.kind) == adapters.Unknown {
		r.mu.Lock()
		r.polled[k] = true
		r.mu.Unlock()
		return nil
	}
	if probe := r.client.Do(ctx, adapters.Request{Verb: adapters.List, Ref: ref}); probe.Outcome != adapters.OK {
		if probe.Outcome != adapters.Forbidden {
			r.opts.Logger.Warn("recording: cannot list a kind; recording what the engine reads of it", "kind", k.String(), "outcome", probe.Outcome, "message", probe.Message)
		}
		r.mu.Lock()
		r.polled[k] = true
		r.mu.Unlock()
		return nil
	}
	if err := r.cache.Watch(ctx, k.apiVersion, k.kind); err != nil {
		return fmt.Errorf("recording: watch %s: %w", k, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	at := r.opts.Now()
	res := r.cache.Do(ctx, adapters.Request{Verb: adapters.List, Ref: ref})
	started := len(r.listed) > 0 && r.seg != nil
	r.listed[k] = at
	for _, item := range res.Items {
		oref := refOfObject(item)
		if !r.inScope(k, oref) {
			continue
		}
		obj := recorded(item, r.opts.SecretData)
		if _, ok := r.known[oref]; ok || !started {
			r.known[oref] = obj
			continue
		}
		// A kind watched from the middle of a run: its objects join as
		// seen now (they existed, or another actor made them unseen),
		// unless the engine made them.
		op, by := "seen", ""
		if _, own := r.ownRV[oref][resourceVersionOf(item)]; own {
			op, by = "create", "engine"
		}
		r.known[oref] = obj
		r.log(Change{At: at.Sub(r.start), Op: op, By: by, Ref: &oref, Object: obj})
	}
	if crd := r.definition(ctx, k); crd != nil {
		cref := refOfObject(crd)
		if _, ok := r.known[cref]; ok || !started {
			r.known[cref] = crd
		} else {
			r.known[cref] = crd
			r.log(Change{At: at.Sub(r.start), Op: "seen", Ref: &cref, Object: crd})
		}
	}
	if !r.hasKind(k) {
		r.man.Watched = append(r.man.Watched, k.String())
		sort.Strings(r.man.Watched)
	}
	return nil
}

// definition returns the CustomResourceDefinition that serves kind k on
// the cluster, as recorded, when the recording's identity may read it: a
// replay then serves the kind as this cluster does (its schema's defaults
// and checks, which may differ from the CRD statecraft ships), not as the
// shipped CRD would. Nil for a built-in kind, and when it may not (the
// replay then serves the shipped CRD; said in a warning).
func (r *Recorder) definition(ctx context.Context, k kindKey) map[string]any {
	gv, err := schema.ParseGroupVersion(k.apiVersion)
	if err != nil || gv.Group == "" || !strings.Contains(gv.Group, ".") || strings.HasSuffix(gv.Group, ".k8s.io") {
		return nil
	}
	mapping, err := r.client.Mapper().RESTMapping(gv.WithKind(k.kind).GroupKind(), gv.Version)
	if err != nil {
		return nil
	}
	name := mapping.Resource.Resource + "." + gv.Group
	res := r.client.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: adapters.Ref{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: name}})
	if res.Outcome != adapters.OK || res.Object == nil {
		r.opts.Logger.Warn("recording: cannot read a kind's CustomResourceDefinition; a replay serves it from the CRD statecraft ships", "kind", k.String(), "crd", name, "outcome", res.Outcome, "message", res.Message)
		return nil
	}
	crd := recorded(res.Object, false)
	delete(crd, "status")
	if md, ok := crd["metadata"].(map[string]any); ok {
		delete(md, "uid")
		delete(md, "generation")
	}
	return crd
}

func (r *Recorder) hasKind(k kindKey) bool {
	for _, w := range r.man.Watched {
		if w == k.String() {
			return true
		}
	}
	return false
}

func resourceVersionOf(obj map[string]any) string {
	md, _ := obj["metadata"].(map[string]any)
	s, _ := md["resourceVersion"].(string)
	return s
}

// inScope reports whether an object of kind k is recorded: Namespaces and
// cluster-scoped objects always, driven objects in the driven namespace,
// others in the namespaces the engine works in.
func (r *Recorder) inScope(k kindKey, ref Ref) bool {
	switch {
	case ref.Namespace == "":
		return true
	case r.driven[k] != nil:
		return r.opts.Namespace == "" || ref.Namespace == r.opts.Namespace
	}
	return r.wide[k] || r.namespaces[ref.Namespace]
}

// addNamespace records the observed objects of a namespace from now on;
// those already watched join as seen (under r.mu).
func (r *Recorder) addNamespace(ns string) {
	if ns == "" || r.namespaces[ns] {
		return
	}
	r.namespaces[ns] = true
	for k := range r.listed {
		if r.driven[k] == nil {
			r.join(k, ns)
		}
	}
}

// join adds to what is known the objects of a watched kind in namespace ns
// ("" for all) that it does not know yet, as seen now: they come into the
// recording's scope (under r.mu).
func (r *Recorder) join(k kindKey, ns string) {
	if r.seg == nil {
		return // at the start: the kinds are listed after this
	}
	at := r.opts.Now()
	res := r.cache.Do(r.ctx, adapters.Request{Verb: adapters.List, Ref: adapters.Ref{APIVersion: k.apiVersion, Kind: k.kind, Namespace: ns}})
	for _, item := range res.Items {
		oref := refOfObject(item)
		if _, ok := r.known[oref]; ok || ns != "" && oref.Namespace != ns {
			continue
		}
		if _, own := r.ownRV[oref][resourceVersionOf(item)]; own || r.pendingFor(oref) {
			continue // its watch event says what it is
		}
		obj := recorded(item, r.opts.SecretData)
		r.known[oref] = obj
		r.log(Change{At: at.Sub(r.start), Op: "seen", Ref: &oref, Object: obj})
	}
}

// pendingFor reports whether a change of ref waits to be logged.
func (r *Recorder) pendingFor(ref Ref) bool {
	for _, ev := range r.pending {
		src := ev.obj
		if src == nil {
			src = ev.old
		}
		if refOfObject(src) == ref {
			return true
		}
	}
	return false
}

// onChange takes an informer's event (from its goroutine).
func (r *Recorder) onChange(gvk schema.GroupVersionKind, old, obj *unstructured.Unstructured) {
	ev := event{kind: kindKey{gvk.GroupVersion().String(), gvk.Kind}, at: r.opts.Now()}
	if old != nil {
		ev.old = old.Object
	}
	if obj != nil {
		ev.obj = obj.Object
	}
	r.mu.Lock()
	if !r.closed {
		r.pending = append(r.pending, ev)
	}
	r.mu.Unlock()
}

// loop logs settled changes, rotates, and keeps the manifest and the
// scenario current, until Close.
func (r *Recorder) loop() {
	defer r.wg.Done()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-tick.C:
		}
		r.mu.Lock()
		before := r.committed
		r.commit(r.opts.Now().Add(-r.opts.Settle))
		rotate := r.seg != nil && r.seg.bytes > r.opts.MaxSegmentBytes
		if rotate {
			r.rotate()
		}
		if rotate || r.committed.Sub(r.man.End) >= time.Second || before.IsZero() {
			r.writeManifest()
		}
		render := rotate || r.opts.Now().Sub(r.rendered) > 30*time.Second
		r.mu.Unlock()
		if render {
			r.render()
		}
	}
}

// commit logs the pending changes seen at or before cutoff, in order
// (under r.mu).
func (r *Recorder) commit(cutoff time.Time) {
	var keep []event
	for _, ev := range r.pending {
		listed, ok := r.listed[ev.kind]
		switch {
		case !ok:
			keep = append(keep, ev) // its kind's first list is not taken yet
		case ev.at.Before(listed):
			// shown by that list already
		case ev.at.After(cutoff):
			keep = append(keep, ev)
		default:
			r.process(ev)
		}
	}
	r.pending = keep
	off := cutoff.Sub(r.start)
	var later []Decision
	for _, d := range r.decisions {
		if d.At > off {
			later = append(later, d)
			continue
		}
		if err := r.seg.decisions.add(d); err != nil && r.err == nil {
			r.err = err
		}
	}
	r.decisions = later
	if cutoff.After(r.committed) {
		r.committed = cutoff
	}
	r.prune(cutoff.Add(-time.Minute))
}

// process logs one change a watch showed (under r.mu).
func (r *Recorder) process(ev event) {
	src := ev.obj
	if src == nil {
		src = ev.old
	}
	ref := refOfObject(src)
	if !r.inScope(ev.kind, ref) {
		return
	}
	off := ev.at.Sub(r.start)
	prev, known := r.known[ref]
	if ev.obj == nil {
		if !known {
			return
		}
		by := r.deleter(ref, prev)
		delete(r.known, ref)
		r.log(Change{At: off, Op: "delete", By: by, Ref: &ref})
		r.changed(ref, ev.at, by)
		return
	}
	cur := recorded(ev.obj, r.opts.SecretData)
	r.known[ref] = cur
	by, writer := r.writer(ref, resourceVersionOf(ev.obj))
	switch {
	case !known:
		r.log(Change{At: off, Op: "create", By: by, Ref: &ref, Object: cur})
	case deleting(cur) && !deleting(prev):
		if _, own := r.ownDel[ref]; own {
			by = "engine"
		}
		r.log(Change{At: off, Op: "delete", By: by, Ref: &ref, Lingers: true})
	default:
		p := change(prev, cur)
		if len(p) == 0 {
			return
		}
		r.log(Change{At: off, Op: "update", By: by, Ref: &ref, Patch: p})
	}
	if by == "other" || writer != ref {
		r.changed(ref, ev.at, by)
	}
}

// writer says whose write made resourceVersion rv of ref: the engine's
// (and which object's reconcile made it) or another actor's.
func (r *Recorder) writer(ref Ref, rv string) (string, Ref) {
	if w, ok := r.ownRV[ref][rv]; ok && rv != "" {
		return "engine", w.by
	}
	return "other", Ref{}
}

// deleter says who removed an object: the engine, when it deleted it;
// the server, when its deletion was already under way, its namespace is
// going, or one of its owners is gone (the garbage collector); another
// actor otherwise.
func (r *Recorder) deleter(ref Ref, prev map[string]any) string {
	if _, own := r.ownDel[ref]; own {
		return "engine"
	}
	if deleting(prev) {
		return "server"
	}
	if ns, ok := r.known[Ref{APIVersion: "v1", Kind: "Namespace", Name: ref.Namespace}]; ref.Namespace != "" && (!ok || deleting(ns)) {
		return "server"
	}
	md, _ := prev["metadata"].(map[string]any)
	owners, _ := md["ownerReferences"].([]any)
	for _, o := range owners {
		om, _ := o.(map[string]any)
		uid, _ := om["uid"].(string)
		if !r.hasUID(uid) {
			return "server"
		}
	}
	return "other"
}

func (r *Recorder) hasUID(uid string) bool {
	for _, o := range r.known {
		if uidOf(o) == uid {
			return !deleting(o)
		}
	}
	return false
}

// changed notes a change that makes the engine look at ref (and at its
// driven controller owner) again.
func (r *Recorder) changed(ref Ref, at time.Time, by string) {
	mark := func(x Ref) {
		if r.driven[kindKey{x.APIVersion, x.Kind}] == nil {
			return
		}
		st := r.objects[x]
		if st == nil {
			st = &objState{}
			r.objects[x] = st
		}
		st.changed = at
	}
	mark(ref)
	obj := r.known[ref]
	md, _ := obj["metadata"].(map[string]any)
	owners, _ := md["ownerReferences"].([]any)
	for _, o := range owners {
		om, _ := o.(map[string]any)
		if c, _ := om["controller"].(bool); !c {
			continue
		}
		av, _ := om["apiVersion"].(string)
		k, _ := om["kind"].(string)
		name, _ := om["name"].(string)
		owner := Ref{APIVersion: av, Kind: k, Name: name}
		if m := r.driven[kindKey{av, k}]; m != nil {
			for _, res := range m.Resources {
				if res.Kind == k && res.Scope == string(adapters.Namespaced) {
					owner.Namespace = ref.Namespace
				}
			}
			mark(owner)
		}
	}
}

// prune forgets the engine's writes older than before: their watch events
// came long since.
func (r *Recorder) prune(before time.Time) {
	for ref, rvs := range r.ownRV {
		for rv, w := range rvs {
			if w.at.Before(before) {
				delete(rvs, rv)
			}
		}
		if len(rvs) == 0 {
			delete(r.ownRV, ref)
		}
	}
	for ref, at := range r.ownDel {
		if at.Before(before) {
			delete(r.ownDel, ref)
		}
	}
}

// Reconciling implements controller.Observer.
func (r *Recorder) Reconciling(m *fsm.Machine, ref adapters.Ref, now time.Time) controller.ReconcileObserver {
	return &observed{r: r, ref: ref, m: m, reconcileLog: newReconcileLog(r.start, now, ref, m, !r.opts.SecretData)}
}

type observed struct {
	*reconcileLog
	r   *Recorder
	ref adapters.Ref
	m   *fsm.Machine
}

// Request notes an engine's write as soon as it returns, before its watch
// event can be told apart (the rest of the reconcile is taken at Done).
func (o *observed) Request(req adapters.Request, res adapters.Result) {
	o.reconcileLog.Request(req, res)
	if req.Verb == adapters.Get || req.Verb == adapters.List || req.DryRun || res.Outcome != adapters.OK {
		return
	}
	o.r.mu.Lock()
	o.r.own(req, res, refOf(o.ref), o.now)
	o.r.mu.Unlock()
}

func (o *observed) Done(rep engine.Report) {
	o.r.reconciled(o.reconcileLog, o.ref, rep)
}

// reconciled logs one reconcile: its decisions, the engine's writes (to
// tell its changes from others'), the denials it met, what it read of
// kinds no watch shows.
func (r *Recorder) reconciled(l *reconcileLog, ref adapters.Ref, rep engine.Report) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed || r.seg == nil {
		return
	}
	self := refOf(ref)
	now := l.now
	if rep.Err != nil {
		l.lines = append(l.lines, Decision{At: l.at(), Object: l.object, Machine: l.machine, Type: "problem",
			Reason: "ReconcileFailed", Message: rep.Err.Error()})
	}
	r.learn(l, self, now)
	r.saw(l)
	end := r.opts.Now().Sub(r.start)
	l.lines = append([]Decision{{At: l.at(), Object: l.object, Machine: l.machine, Type: "reconcile", End: &end}}, l.lines...)
	for _, d := range l.lines {
		r.logDecision(d)
	}
	st := r.objects[self]
	if st == nil {
		st = &objState{}
		r.objects[self] = st
	}
	st.reconciled, st.wake = now, rep.Wake
	if rep.Err != nil {
		st.changed = now // retried soon
	}
	// The kinds and namespaces the engine works with are recorded from
	// now on.
	var kinds []kindKey
	seen := func(q adapters.Request) {
		k := kindKey{q.Ref.APIVersion, q.Ref.Kind}
		if q.Ref.Namespace != "" && r.driven[k] == nil {
			r.addNamespace(q.Ref.Namespace)
		}
		if q.Verb == adapters.List && q.Ref.Namespace == "" && !r.wide[k] && r.driven[k] == nil && r.client.Scope(r.ctx, k.apiVersion, k.kind) == adapters.Namespaced {
			r.wide[k] = true
			if _, ok := r.listed[k]; ok {
				r.join(k, "")
			}
		}
		if _, ok := r.listed[k]; !ok && !r.polled[k] && !r.starting[k] {
			r.starting[k] = true
			kinds = append(kinds, k)
		}
	}
	for _, x := range l.reqs {
		if x.res.Outcome == adapters.OK || x.res.Outcome == adapters.Forbidden || x.res.Outcome == adapters.NotFound {
			seen(x.req)
		}
	}
	for _, k := range kinds {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			if err := r.watch(r.ctx, k); err != nil && r.ctx.Err() == nil {
				r.opts.Logger.Warn("recording: cannot watch a kind the engine uses", "kind", k.String(), "error", err)
			}
		}()
	}
}

// learn goes through a reconcile's requests in order: the engine's own
// writes (their resourceVersions tell its changes from others' when
// watches show them), the denials it met and those that ended, and what
// it read and wrote of kinds no watch shows yet (under r.mu).
func (r *Recorder) learn(l *reconcileLog, self Ref, now time.Time) {
	for _, x := range l.reqs {
		q, res := x.req, x.res
		k := kindKey{q.Ref.APIVersion, q.Ref.Kind}
		_, listed := r.listed[k]
		switch res.Outcome {
		case adapters.Forbidden:
			r.refused(q, now)
			continue
		case adapters.OK:
			r.allowed(q, now)
		default:
			continue
		}
		if q.Verb == adapters.Get || q.Verb == adapters.List {
			if !listed && q.Subresource == "" {
				objs := res.Items
				if res.Object != nil {
					objs = []map[string]any{res.Object}
				}
				for _, o := range objs {
					r.read(o, now)
				}
			}
			continue
		}
		if q.DryRun {
			continue
		}
		wref := refOf(q.Ref)
		r.own(q, res, self, now)
		if listed {
			continue
		}
		if q.Verb == adapters.Delete {
			delete(r.known, wref)
		} else if res.Object != nil {
			r.known[wref] = recorded(res.Object, r.opts.SecretData)
		}
	}
}

// own notes a write of the engine (by the reconcile of self): the
// resourceVersion it made, or that it deleted the object (under r.mu).
func (r *Recorder) own(q adapters.Request, res adapters.Result, self Ref, now time.Time) {
	wref := refOf(q.Ref)
	if q.Verb == adapters.Delete {
		r.ownDel[wref] = now
	}
	if rv := resourceVersionOf(res.Object); rv != "" {
		if r.ownRV[wref] == nil {
			r.ownRV[wref] = map[string]ownWrite{}
		}
		r.ownRV[wref][rv] = ownWrite{by: self, at: now}
	}
}

// saw moves the pending changes a reconcile saw (it read the version
// they made, or a later one; or found the object gone) to just before it:
// the recorder's watch may show a change after the controller's showed it
// to the engine, and a replay at the recorded reconcile times must make
// the change first (under r.mu).
func (r *Recorder) saw(l *reconcileLog) {
	if len(r.pending) == 0 {
		return
	}
	read := map[Ref]string{}
	gone := map[Ref]bool{}
	for _, x := range l.reqs {
		switch {
		case x.req.Verb == adapters.Get && x.res.Outcome == adapters.NotFound:
			gone[refOf(x.req.Ref)] = true
		case x.res.Outcome != adapters.OK || x.req.Verb != adapters.Get && x.req.Verb != adapters.List:
		case x.res.Object != nil:
			read[refOfObject(x.res.Object)] = resourceVersionOf(x.res.Object)
		default:
			for _, it := range x.res.Items {
				read[refOfObject(it)] = resourceVersionOf(it)
			}
		}
	}
	before := l.now.Add(-time.Microsecond)
	for i := range r.pending {
		ev := &r.pending[i]
		if !ev.at.After(before) {
			continue
		}
		src := ev.obj
		if src == nil {
			src = ev.old
		}
		ref := refOfObject(src)
		switch {
		case ev.obj == nil:
			if gone[ref] {
				ev.at = before
			}
		default:
			rv, ok := read[ref]
			if !ok {
				continue
			}
			if cmp, err := resourceversion.CompareResourceVersion(resourceVersionOf(ev.obj), rv); err == nil && cmp <= 0 || rv == resourceVersionOf(ev.obj) {
				ev.at = before
			}
		}
	}
}

func denialOf(q adapters.Request) Denial {
	k := q.Ref.Kind
	if q.Subresource != "" {
		k += "/" + q.Subresource
	}
	return Denial{Identity: q.Identity, Verb: string(q.Verb), APIVersion: q.Ref.APIVersion, Kind: k}
}

// refused notes a denial the engine met: it is taken to hold since the
// last time such a request succeeded (or since this process began), and
// to end after the last time it was refused; when RBAC changed in between
// is not known.
func (r *Recorder) refused(q adapters.Request, now time.Time) {
	d := denialOf(q)
	st := r.denials[d]
	if st == nil {
		st = &denialState{}
		r.denials[d] = st
	}
	if !st.active {
		st.active = true
		at := r.procStart
		if !st.lastOK.IsZero() {
			at = st.lastOK.Sub(r.start) + time.Millisecond
		}
		r.log(Change{At: at, Op: "deny", Denial: &d})
	}
	st.lastForbidden = now
}

func (r *Recorder) allowed(q adapters.Request, now time.Time) {
	d := denialOf(q)
	st := r.denials[d]
	if st == nil {
		st = &denialState{}
		r.denials[d] = st
	}
	st.lastOK = now
	if st.active {
		st.active = false
		r.log(Change{At: st.lastForbidden.Sub(r.start) + time.Millisecond, Op: "allow", Denial: &d})
	}
}

// read takes an object the engine read of a kind no watch shows (yet): one
// not known yet is seen, as it was before the engine's writes; one that
// differs from what is known (and not by the engine's write) was changed
// by another actor, at the earliest just after the engine last read it.
func (r *Recorder) read(o map[string]any, now time.Time) {
	ref := refOfObject(o)
	if ref.Name == "" {
		return
	}
	cur := recorded(o, r.opts.SecretData)
	prev, ok := r.known[ref]
	last := r.lastRead[ref]
	r.lastRead[ref] = now
	r.known[ref] = cur
	switch {
	case !ok:
		r.log(Change{At: now.Sub(r.start), Op: "seen", Ref: &ref, Object: cur})
	default:
		if p := change(prev, cur); len(p) > 0 {
			if by, _ := r.writer(ref, resourceVersionOf(o)); by == "other" {
				at := now.Sub(r.start) - time.Millisecond
				if !last.IsZero() {
					at = last.Sub(r.start) + time.Millisecond
				}
				r.log(Change{At: at, Op: "update", By: "other", Ref: &ref, Patch: p})
			}
		}
	}
}

// log appends a change to the current segment's world log (under r.mu).
func (r *Recorder) log(c Change) {
	if r.seg == nil {
		return
	}
	if err := r.seg.world.add(c); err != nil && r.err == nil {
		r.err = err
	}
}

func (r *Recorder) logDecision(d Decision) {
	r.decisions = append(r.decisions, d)
}
