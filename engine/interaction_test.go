package engine_test

// The engine's behaviour as datadriven scripts (testdata/*.txt), as raft's
// interaction tests are: each command drives one Reconciliation a step at a
// time and prints what it did, and the expected output sits under the
// command. When a script fails, run
//
//	go test ./engine -run TestInteraction -rewrite
//
// inspect the diff, and commit only the changes you understand.
//
// Commands (arguments in brackets are optional):
//
//	load                              compile the rule file in the input (one machine)
//	object                            create or replace the object in the input (YAML) in the world
//	step [at=DURATION] [ref=K/NS/N]   begin a reconcile of ref (default: the first object of the
//	                                  machine's kind) at DURATION after the start; print its Ready
//	deliver [outcome=O] [message=M]   hand back the outcome of what Ready asked for: the world's
//	                                  answer, or outcome O (every read, or the request); print Ready
//	reconcile [at=DURATION] [ref=...] a whole reconcile, the world answering everything
//	rest                              the certificate of the rest the last reconcile ended in
//	world [ref=K/NS/N]                the object as the world now holds it (YAML)

import (
	"context"
	"fmt"
	"maps"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"sigs.k8s.io/yaml"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/sim"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/rules"
)

func TestInteraction(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		env := &interaction{}
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			return env.handle(t, d)
		})
	})
}

// interaction is the state of one script: the machine, the world (a
// simulated cluster) and the reconcile in progress.
type interaction struct {
	m     *fsm.Machine
	world *sim.Cluster
	rec   *engine.Reconciliation
	ref   adapters.Ref   // the object reconciled
	refs  []adapters.Ref // every object the script put in the world
	last  *engine.Report
}

func (e *interaction) handle(t *testing.T, d *datadriven.TestData) string {
	switch d.Cmd {
	case "load":
		return e.load(t, d)
	case "object":
		return e.object(t, d)
	case "step":
		e.begin(t, d)
		return e.ready()
	case "deliver":
		return e.deliver(t, d)
	case "reconcile":
		e.begin(t, d)
		rep := engine.Drive(context.Background(), e.world, e.rec, nil)
		e.last = &rep
		var b strings.Builder
		for _, tr := range rep.Transitions {
			fmt.Fprintf(&b, "fired %q: %s → %s%s\n", tr.Transition, tr.From, tr.To, reasonText(tr.Reason))
		}
		b.WriteString(e.reportText(&rep))
		return b.String()
	case "rest":
		if e.last == nil {
			t.Fatalf("%s: rest: no reconcile has ended", d.Pos)
		}
		return restText(e.last)
	case "world":
		ref := e.ref
		if d.HasArg("ref") {
			ref = e.parseRef(t, d)
		}
		obj, ok := e.world.Object(ref)
		if !ok {
			return "absent\n"
		}
		// As a client that drops managedFields reads it.
		obj = maps.Clone(obj)
		md := maps.Clone(obj["metadata"].(map[string]any))
		delete(md, "managedFields")
		obj["metadata"] = md
		out, _ := yaml.Marshal(obj)
		return string(out)
	}
	t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
	return ""
}

var interactionStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// load compiles the machine of the input.
func (e *interaction) load(t *testing.T, d *datadriven.TestData) string {
	f, diags := rules.Parse([]byte(d.Input), "test.hcl")
	if !diags.HasErrors() {
		ms, more := fsm.Compile(f)
		diags = append(diags, more...)
		if len(ms) == 1 {
			e.m = ms[0]
		}
	}
	if diags.HasErrors() {
		var b strings.Builder
		for _, dg := range diags {
			b.WriteString(rules.DiagnosticLine(dg) + "\n")
		}
		return b.String()
	}
	// The world reads objects without managedFields, as the controller's
	// informers hold them; built-in kinds are served as kube-apiserver
	// serves them, other kinds generically.
	e.world = sim.New(sim.NewClock(interactionStart), sim.WithoutManagedFields())
	builtin := sim.BuiltinKinds()
	for _, r := range e.m.Resources {
		if builtin[r.Kind] != r.APIVersion {
			e.world.RegisterKind(r.APIVersion, r.Kind, adapters.Scope(r.Scope), sim.KindOptions{HasStatus: true})
		}
	}
	e.rec, e.last, e.ref, e.refs = nil, nil, adapters.Ref{}, nil
	return "ok\n"
}

// object puts the input object in the world.
func (e *interaction) object(t *testing.T, d *datadriven.TestData) string {
	if e.world == nil {
		t.Fatalf("%s: object before load", d.Pos)
	}
	var obj map[string]any
	if err := yaml.Unmarshal([]byte(d.Input), &obj); err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	if err := e.world.Apply(obj); err != nil {
		return "error: " + err.Error() + "\n"
	}
	ref := sim.RefOf(obj)
	e.refs = append(e.refs, ref)
	if e.ref == (adapters.Ref{}) && e.drives(ref) {
		e.ref = ref
	}
	return "ok\n"
}

func (e *interaction) drives(ref adapters.Ref) bool {
	for _, r := range e.m.Resources {
		if r.APIVersion == ref.APIVersion && r.Kind == ref.Kind {
			return true
		}
	}
	return false
}

func (e *interaction) parseRef(t *testing.T, d *datadriven.TestData) adapters.Ref {
	var s string
	d.ScanArgs(t, "ref", &s)
	parts := strings.Split(s, "/")
	for _, r := range e.refs {
		switch {
		case len(parts) == 3 && r.Kind == parts[0] && r.Namespace == parts[1] && r.Name == parts[2],
			len(parts) == 2 && r.Kind == parts[0] && r.Namespace == "" && r.Name == parts[1]:
			return r
		}
	}
	// An object the reconcile made itself: look for it by kind among the
	// kinds the world serves.
	if len(parts) == 3 {
		for _, av := range []string{"v1", "apps/v1", "events.k8s.io/v1"} {
			r := adapters.Ref{APIVersion: av, Kind: parts[0], Namespace: parts[1], Name: parts[2]}
			if _, ok := e.world.Object(r); ok {
				return r
			}
		}
	}
	t.Fatalf("%s: no object %s in the world", d.Pos, s)
	return adapters.Ref{}
}

// begin starts a reconcile.
func (e *interaction) begin(t *testing.T, d *datadriven.TestData) {
	if e.m == nil {
		t.Fatalf("%s: %s before load", d.Pos, d.Cmd)
	}
	at := time.Duration(0)
	if d.HasArg("at") {
		var s string
		d.ScanArgs(t, "at", &s)
		var err error
		if at, err = time.ParseDuration(s); err != nil {
			t.Fatalf("%s: at: %v", d.Pos, err)
		}
	}
	if d.HasArg("ref") {
		e.ref = e.parseRef(t, d)
	}
	now := interactionStart.Add(at)
	e.world.Clock().Set(now)
	e.rec = engine.Start(e.m, e.ref, now, engine.Options{Certify: true, Steps: true})
	e.last = nil
}

// deliver answers the reconcile's need.
func (e *interaction) deliver(t *testing.T, d *datadriven.TestData) string {
	if e.rec == nil {
		t.Fatalf("%s: deliver before step", d.Pos)
	}
	rd := e.rec.Ready()
	var outcome, message string
	if d.HasArg("outcome") {
		d.ScanArgs(t, "outcome", &outcome)
	}
	if d.HasArg("message") {
		d.ScanArgs(t, "message", &message)
	}
	ctx := context.Background()
	switch {
	case rd.Done != nil:
		t.Fatalf("%s: deliver after done", d.Pos)
	case rd.Reads != nil:
		obs := make([]engine.Observation, len(rd.Reads))
		for i, q := range rd.Reads {
			if outcome != "" {
				obs[i] = engine.Observation{Outcome: adapters.Outcome(outcome), Message: message, Scope: e.world.Scope(ctx, q.Ref.APIVersion, q.Ref.Kind)}
				continue
			}
			obs[i] = engine.Observe(ctx, e.world, q)
		}
		e.rec.Deliver(engine.Delivery{Observations: obs})
	default:
		res := adapters.Result{Outcome: adapters.Outcome(outcome), Message: message}
		if outcome == "" {
			res = e.world.Do(ctx, *rd.Request)
		}
		e.rec.Deliver(engine.Delivery{Result: res})
	}
	return e.ready()
}

// ready prints what the reconcile did since the last Ready and what it
// needs now.
func (e *interaction) ready() string {
	rd := e.rec.Ready()
	var b strings.Builder
	for _, en := range rd.Trace {
		switch {
		case en.Decision != nil:
			b.WriteString(stepText(en.Decision, en.Snapshot.Now))
		case en.Fired != nil:
			fmt.Fprintf(&b, "fired %q: %s → %s%s", en.Fired.Transition, en.Fired.From, en.Fired.To, reasonText(en.Fired.Reason))
			if en.Fired.Message != "" {
				fmt.Fprintf(&b, ": %s", en.Fired.Message)
			}
			if en.Fired.Wait {
				fmt.Fprintf(&b, " wait until %s", since(en.Fired.Wake))
			}
			b.WriteString("\n")
		case en.Unchanged != nil:
			fmt.Fprintf(&b, "unchanged %q: a rest\n", en.Unchanged.Transition)
		case en.Problem != nil:
			fmt.Fprintf(&b, "problem %s: %s\n", en.Problem.Reason, en.Problem.Message)
		}
	}
	switch {
	case rd.Reads != nil:
		for _, q := range rd.Reads {
			verb := "get"
			switch {
			case q.ScopeOnly:
				verb = "scope of"
			case q.List:
				verb = "list"
			}
			what := q.Ref.String()
			if q.List {
				what = q.Ref.Kind
				if q.Ref.Namespace != "" {
					what += "/" + q.Ref.Namespace
				}
				if q.LabelSelector != "" {
					what += " selector " + q.LabelSelector
				}
			}
			fmt.Fprintf(&b, "need read %s: %s %s\n", q.Name, verb, what)
		}
	case rd.Request != nil:
		b.WriteString("need request " + requestText(*rd.Request) + "\n")
	case rd.Done != nil:
		e.last = rd.Done
		b.WriteString(e.reportText(rd.Done))
	}
	return b.String()
}

func stepText(d *engine.Decision, now time.Time) string {
	var guards []string
	for _, g := range d.Guards {
		v := fmt.Sprint(g.Value)
		if g.Err != nil {
			v = "error"
		}
		guards = append(guards, fmt.Sprintf("%q=%s", g.Transition, v))
	}
	s := "step from " + d.From
	if len(guards) > 0 {
		s += " (" + strings.Join(guards, " ") + ")"
	}
	switch {
	case d.Problem != nil:
		s += ": problem " + d.Problem.Reason
	case d.Transition != nil:
		s += ": fires " + fmt.Sprintf("%q", d.Transition.Name)
	case d.Wake.IsZero():
		s += ": rests"
	default:
		s += ": rests until " + since(d.Wake)
	}
	return s + "\n"
}

func requestText(r adapters.Request) string {
	s := string(r.Verb)
	if r.Subresource != "" {
		s += " " + r.Subresource
	}
	s += " " + r.Ref.String()
	var opts []string
	if r.PatchType != "" {
		opts = append(opts, string(r.PatchType))
	}
	if r.DryRun {
		opts = append(opts, "dry-run")
	}
	if r.Identity != "" {
		opts = append(opts, "as "+r.Identity)
	}
	if len(opts) > 0 {
		s += " (" + strings.Join(opts, ", ") + ")"
	}
	if b, err := r.Payload(); err == nil && b != nil {
		s += " " + string(b)
	}
	return s
}

func (e *interaction) reportText(rep *engine.Report) string {
	var parts []string
	switch {
	case rep.Gone:
		parts = append(parts, "gone")
	case rep.Err != nil:
		parts = append(parts, "error: "+rep.Err.Error())
	}
	parts = append(parts, fmt.Sprintf("transitions=%d", len(rep.Transitions)))
	if rep.Problem != nil {
		parts = append(parts, "problem="+rep.Problem.Reason)
	}
	if !rep.Wake.IsZero() {
		parts = append(parts, "wake="+since(rep.Wake))
	}
	inStatus := e.m.Source.MemoryIn == "status"
	switch {
	case rep.StatusWritten && inStatus:
		parts = append(parts, "status written")
	case rep.StatusWritten:
		parts = append(parts, "memory written")
	}
	s := "done: " + strings.Join(parts, " ") + "\n"
	if obj, ok := e.world.Object(e.ref); ok && rep.StatusWritten && inStatus {
		st, _ := obj["status"].(map[string]any)
		keys := make([]string, 0, len(st))
		for k := range st {
			if k != "conditions" {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			s += fmt.Sprintf("  status.%s = %v\n", k, st[k])
		}
	}
	return s
}

func restText(rep *engine.Report) string {
	c := rep.Certificate
	if c == nil {
		return "not certified\n"
	}
	var b strings.Builder
	until := "forever"
	if !c.Until.IsZero() {
		until = since(c.Until)
	}
	fmt.Fprintf(&b, "rest until %s, recheck every %s", until, c.Every)
	if c.Jitter > 0 {
		fmt.Fprintf(&b, " with up to %s of jitter", c.Jitter)
	}
	b.WriteString("\n")
	for _, rd := range c.Reads {
		switch {
		case rd.Skip:
			fmt.Fprintf(&b, "  read %s: skipped\n", rd.Name)
		case rd.List:
			blind := ""
			if rd.StatusBlind {
				blind = " (status-blind)"
			}
			fmt.Fprintf(&b, "  read %s: list %s/%s%s\n", rd.Name, rd.Ref.Kind, rd.Ref.Namespace, blind)
		default:
			fmt.Fprintf(&b, "  read %s: get %s\n", rd.Name, rd.Ref)
		}
	}
	return b.String()
}

func since(t time.Time) string { return "+" + t.Sub(interactionStart).String() }

func reasonText(r string) string {
	if r == "" {
		return ""
	}
	return " reason " + r
}
