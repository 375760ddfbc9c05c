package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
)

// statecraft why KIND/[NS/]NAME on a live cluster: the object's state, the
// decisions the controller kept on it (controller.DecisionAnnotation), and
// a shadow step now: the candidate transitions, the clause that blocks
// each, and when a time-based one could pass.

// whyReport is what `statecraft why` prints (-o json|yaml as is).
type whyReport struct {
	Object   string `json:"object"`
	Machine  string `json:"machine"`
	MemoryIn string `json:"memoryIn"`
	State    string `json:"state"`
	Final    bool   `json:"final,omitempty"`
	Reason   string `json:"reason,omitempty"`
	Message  string `json:"message,omitempty"`
	// Decisions are the records the controller kept on the object, newest
	// first; DecisionsNote says why there are none, or that they were
	// unreadable.
	Decisions     []controller.DecisionRecord `json:"decisions"`
	DecisionsNote string                      `json:"decisionsNote,omitempty"`
	Now           whyNow                      `json:"now"`
}

// whyNow is the shadow step: decided from the cluster as it is now,
// nothing written.
type whyNow struct {
	At time.Time `json:"at"`
	// Fires is the transition that would fire now ("" when none); To its
	// state.
	Fires      string         `json:"fires,omitempty"`
	To         string         `json:"to,omitempty"`
	Because    []whyClause    `json:"because,omitempty"`
	Candidates []whyCandidate `json:"candidates"`
	// Problem is what the engine would report instead of stepping.
	Problem string `json:"problem,omitempty"`
	// Recheck is when the engine would look again, resting.
	Recheck *time.Time `json:"recheck,omitempty"`
}

type whyCandidate struct {
	Transition string      `json:"transition"`
	To         string      `json:"to"`
	Error      string      `json:"error,omitempty"`
	Blocked    []whyClause `json:"blockedBy,omitempty"`
	Opens      *time.Time  `json:"opens,omitempty"`
	OpensWhat  string      `json:"opensWhat,omitempty"`
}

type whyClause struct {
	Clause string   `json:"clause"`
	Value  string   `json:"value"`
	Reads  []string `json:"reads,omitempty"`
}

func whyCmd(stdout, stderr io.Writer) *cobra.Command {
	f := &runFlags{}
	var output string
	cmd := &cobra.Command{
		Use:   "why KIND/[NAMESPACE/]NAME",
		Short: "Why an object on a live cluster is in its state: its last decisions with their clause values, and what would move it now",
		Long: `Explain one object on a live cluster: its current state; the last decisions
the controller kept on it (statecraft run keeps them in the annotation
` + controller.DecisionAnnotation + `, --decision-records), each with the values of the
clauses that decided it and the clause that blocked each candidate tried
before; and a shadow step now (read from the cluster, nothing written): the
transition that would fire, or every candidate transition with the clause that
blocks it and when a time-based clause could next pass. KIND is the kind as
the machine names it (ObjectPatch, any case) or its resource name
(objectpatches).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			cfg, err := f.kube.restConfig()
			if err != nil {
				return err
			}
			f.contextName = f.kube.contextName()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := checkServer(ctx, cfg, f.contextName); err != nil {
				return err
			}
			client, err := kube.New(cfg, kube.Options{})
			if err != nil {
				return err
			}
			ms, err := servedMachines(ctx, cfg.Host, f.rules, f.params, client, f.logger(io.Discard), stderr)
			if err != nil {
				return err
			}
			rep, err := explainLive(ctx, client, ms, args[0], time.Now())
			if err != nil {
				return err
			}
			if output != "" {
				return writeStructured(stdout, output, rep)
			}
			rep.write(stdout)
			return nil
		},
	}
	f.kube.register(cmd)
	cmd.Flags().StringSliceVar(&f.rules, "rules", nil, "rule files or folders of *.hcl the controller runs (default: every shipped policy whose CRDs the server serves)")
	cmd.Flags().StringArrayVar(&f.params, "param", nil, "MACHINE.NAME=VALUE: a param default the controller runs with (repeatable)")
	outputFlag(cmd, &output)
	return cmd
}

// findObject resolves KIND/[NS/]NAME to a machine and a reference.
func findObject(client *kube.Client, ms []*fsm.Machine, arg string) (*fsm.Machine, adapters.Ref, error) {
	parts := strings.Split(arg, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[len(parts)-1] == "" {
		return nil, adapters.Ref{}, fmt.Errorf("%q: name the object as KIND/NAME or KIND/NAMESPACE/NAME, e.g. ObjectPatch/patches-demo/deployment-patch", arg)
	}
	kind := parts[0]
	var driven []string
	for _, m := range ms {
		for _, r := range m.Resources {
			driven = append(driven, r.Kind)
			match := strings.EqualFold(r.Kind, kind)
			if !match {
				if gv, err := schema.ParseGroupVersion(r.APIVersion); err == nil {
					if mapping, err := client.Mapper().RESTMapping(gv.WithKind(r.Kind).GroupKind(), gv.Version); err == nil {
						match = strings.EqualFold(mapping.Resource.Resource, kind)
					}
				}
			}
			if !match {
				continue
			}
			ref := adapters.Ref{APIVersion: r.APIVersion, Kind: r.Kind, Name: parts[len(parts)-1]}
			switch {
			case r.Scope == string(adapters.Namespaced) && len(parts) != 3:
				return nil, adapters.Ref{}, fmt.Errorf("%s is namespaced: name it as %s/NAMESPACE/NAME", r.Kind, r.Kind)
			case r.Scope == string(adapters.Cluster) && len(parts) != 2:
				return nil, adapters.Ref{}, fmt.Errorf("%s is cluster-scoped: name it as %s/NAME", r.Kind, r.Kind)
			case len(parts) == 3:
				ref.Namespace = parts[1]
			}
			return m, ref, nil
		}
	}
	return nil, adapters.Ref{}, fmt.Errorf("no loaded machine drives %q; the machines drive %s", kind, strings.Join(driven, ", "))
}

// readOnly serves the reads of a shadow step and refuses any write.
type readOnly struct{ adapters.API }

func (r readOnly) Do(ctx context.Context, req adapters.Request) adapters.Result {
	if req.Verb != adapters.Get && req.Verb != adapters.List {
		return adapters.Result{Outcome: adapters.Transient, Message: "not sent: statecraft why writes nothing"}
	}
	return r.API.Do(ctx, req)
}

// explainLive explains one object: its memory, its decision records, and
// the first step of a reconcile now, made on a read-only API and stopped
// before it would write anything.
func explainLive(ctx context.Context, api adapters.API, ms []*fsm.Machine, arg string, now time.Time) (*whyReport, error) {
	client, _ := api.(*kube.Client)
	m, ref, err := findObject(client, ms, arg)
	if err != nil {
		return nil, err
	}
	got := api.Do(ctx, adapters.Request{Verb: adapters.Get, Ref: ref})
	switch got.Outcome {
	case adapters.OK:
	case adapters.NotFound:
		return nil, fmt.Errorf("%s not found", ref)
	default:
		return nil, fmt.Errorf("get %s: %s: %s", ref, got.Outcome, got.Message)
	}
	rep := &whyReport{Object: ref.String(), Machine: m.Name, MemoryIn: m.Source.MemoryIn, Decisions: []controller.DecisionRecord{}}
	if rep.MemoryIn == "" {
		rep.MemoryIn = "status"
	}
	recs, err := controller.DecisionRecords(got.Object)
	switch {
	case err != nil:
		rep.DecisionsNote = err.Error()
	case len(recs) == 0:
		rep.DecisionsNote = "the controller kept no decision records on this object (statecraft run keeps them unless --decision-records=0)"
	}
	for i := len(recs) - 1; i >= 0; i-- {
		rep.Decisions = append(rep.Decisions, recs[i])
	}

	r := engine.Start(m, ref, now, engine.Options{Steps: true})
	ro := readOnly{api}
	var snap *engine.Snapshot
	var dec *engine.Decision
	var done *engine.Report
	for rd := r.Ready(); dec == nil; rd = r.Ready() {
		for _, e := range rd.Trace {
			if e.Decision != nil && dec == nil {
				snap, dec = e.Snapshot, e.Decision
			}
		}
		if dec != nil {
			break
		}
		switch {
		case rd.Done != nil:
			done = rd.Done
		case rd.Reads != nil:
			obs := make([]engine.Observation, len(rd.Reads))
			for i, q := range rd.Reads {
				obs[i] = engine.Observe(ctx, ro, q)
			}
			r.Deliver(engine.Delivery{Observations: obs})
			continue
		default:
			r.Deliver(engine.Delivery{Result: ro.Do(ctx, *rd.Request)})
			continue
		}
		break
	}
	rep.Now.At = now.UTC()
	switch {
	case done != nil && done.Gone:
		return nil, fmt.Errorf("%s not found", ref)
	case done != nil && done.Err != nil:
		return nil, done.Err
	case dec == nil:
		return nil, fmt.Errorf("%s: the engine decided nothing", ref)
	}
	mem := snap.Memory
	rep.State = dec.From
	if s := m.State(dec.From); s != nil {
		rep.Final = s.Final
	}
	rep.Reason, _ = mem["reason"].(string)
	rep.Message, _ = mem["message"].(string)
	if dec.Problem != nil {
		rep.Now.Problem = dec.Problem.Reason + ": " + dec.Problem.Message
	}
	if !dec.Wake.IsZero() {
		w := dec.Wake.UTC()
		rep.Now.Recheck = &w
	}
	for _, y := range engine.Explain(m, *snap, dec) {
		to := toState(m, y.Transition, dec.From)
		if y.Fired {
			rep.Now.Fires, rep.Now.To = y.Transition, to
			for _, c := range controller.Because(y) {
				rep.Now.Because = append(rep.Now.Because, whyClause(c))
			}
			continue
		}
		b := controller.Blocking(y)
		c := whyCandidate{Transition: y.Transition, To: to, Error: b.Error, Opens: b.Opens, OpensWhat: b.OpensWhat}
		for _, cl := range b.Clauses {
			c.Blocked = append(c.Blocked, whyClause(cl))
		}
		rep.Now.Candidates = append(rep.Now.Candidates, c)
	}
	if rep.Now.Candidates == nil {
		rep.Now.Candidates = []whyCandidate{}
	}
	return rep, nil
}

// toState is where a transition's success route leads from from.
func toState(m *fsm.Machine, name, from string) string {
	for _, t := range m.Candidates(from) {
		if t.Name == name && t.Done != nil && t.Done.To != "" {
			return t.Done.To
		}
	}
	return from
}

func (r *whyReport) write(w io.Writer) {
	fmt.Fprintf(w, "%s (machine %s, memory in %s)\n", r.Object, r.Machine, r.MemoryIn)
	state := r.State
	if r.Final {
		state += " (final)"
	}
	fmt.Fprintf(w, "state: %s", state)
	if r.Reason != "" {
		fmt.Fprintf(w, ", reason %s", r.Reason)
	}
	if r.Message != "" {
		fmt.Fprintf(w, ": %s", r.Message)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w)
	if len(r.Decisions) == 0 {
		fmt.Fprintf(w, "last decisions: none (%s)\n", r.DecisionsNote)
	} else {
		fmt.Fprintln(w, "last decisions (kept on the object by the controller, newest first):")
		if into := r.into(); into != nil {
			fmt.Fprintf(w, "  %s came by %q (%s → %s) at %s", r.State, into.Transition, into.From, into.To, into.At.Format(time.RFC3339))
			if into.Outcome != "" {
				fmt.Fprintf(w, ", on its action's outcome %s", into.Outcome)
			}
			if len(into.Because) > 0 {
				var cl []string
				for _, c := range into.Because {
					cl = append(cl, c.Clause+" = "+c.Value)
				}
				fmt.Fprintf(w, ", because %s", strings.Join(cl, " and "))
			}
			fmt.Fprintln(w)
		}
		for _, d := range r.Decisions {
			writeRecord(w, d)
		}
	}

	fmt.Fprintln(w)
	fmt.Fprintf(w, "now (a shadow step at %s: read from the cluster, nothing written):\n", r.Now.At.Format(time.RFC3339))
	switch {
	case r.Now.Problem != "":
		fmt.Fprintf(w, "  the engine reports a problem instead of stepping: %s\n", r.Now.Problem)
	case r.Now.Fires != "":
		fmt.Fprintf(w, "  %q would fire now, to %s:\n", r.Now.Fires, r.Now.To)
		for _, c := range r.Now.Because {
			fmt.Fprintf(w, "    ✓ %s = %s%s\n", c.Clause, c.Value, readsText(c.Reads))
		}
		if len(r.Now.Candidates) > 0 {
			fmt.Fprintln(w, "  the candidates before it did not:")
		}
	default:
		what := "it stays in " + r.State + " until one of these becomes true"
		if len(r.Now.Candidates) == 0 {
			what = "no transition leaves " + r.State
		}
		fmt.Fprintf(w, "  nothing fires: %s\n", what)
	}
	for _, c := range r.Now.Candidates {
		to := "→ " + c.To
		if c.To == r.State {
			to = "(stays in " + c.To + ")"
		}
		switch {
		case c.Error != "":
			fmt.Fprintf(w, "    ✗ %q %s: its guard fails: %s\n", c.Transition, to, c.Error)
		default:
			var parts []string
			for _, cl := range c.Blocked {
				parts = append(parts, cl.Clause+" = "+cl.Value+readsText(cl.Reads))
			}
			fmt.Fprintf(w, "    ✗ %q %s: %s\n", c.Transition, to, strings.Join(parts, "; "))
		}
		if c.Opens != nil {
			in := c.Opens.Sub(r.Now.At)
			if in <= 0 {
				fmt.Fprintf(w, "        %s could pass now\n", c.OpensWhat)
			} else {
				fmt.Fprintf(w, "        %s holds from %s (in %s)\n", c.OpensWhat, c.Opens.Format(time.RFC3339), shortDuration(in))
			}
		}
	}
	switch {
	case r.Now.Recheck != nil:
		fmt.Fprintf(w, "  the engine looks again at %s (the state's recheck), or when the object or what it reads changes\n", r.Now.Recheck.Format(time.RFC3339))
	case r.Now.Fires == "":
		fmt.Fprintf(w, "  %s has no recheck: the engine looks again only when the object or what it reads changes\n", r.State)
	}
}

// into is the newest record of the transition into the current state.
func (r *whyReport) into() *controller.DecisionRecord {
	for i := range r.Decisions {
		d := &r.Decisions[i]
		if !d.Problem && d.To == r.State && d.From != d.To {
			return d
		}
	}
	return nil
}

func writeRecord(w io.Writer, d controller.DecisionRecord) {
	at := d.At.Format(time.RFC3339)
	if d.Problem {
		fmt.Fprintf(w, "  %s  problem %s: %s\n", at, d.Reason, d.Message)
		return
	}
	fmt.Fprintf(w, "  %s  %s → %s by %q", at, d.From, d.To, d.Transition)
	if d.Reason != "" {
		fmt.Fprintf(w, " reason %s", d.Reason)
	}
	if d.Outcome != "" {
		fmt.Fprintf(w, " (%s)", d.Outcome)
	}
	if d.Wake != nil {
		fmt.Fprintf(w, " wait until %s", d.Wake.Format(time.RFC3339))
	}
	fmt.Fprintln(w)
	if d.Message != "" {
		fmt.Fprintf(w, "      message: %s\n", d.Message)
	}
	if d.Guard == "" {
		fmt.Fprintln(w, "      no guard")
	}
	for _, c := range d.Because {
		fmt.Fprintf(w, "      because ✓ %s = %s%s\n", c.Clause, c.Value, readsText(c.Reads))
	}
	for _, b := range d.Blocked {
		switch {
		case b.Error != "":
			fmt.Fprintf(w, "      not %q: its guard failed: %s\n", b.Transition, b.Error)
		case len(b.Clauses) > 0:
			var parts []string
			for _, c := range b.Clauses {
				parts = append(parts, c.Clause+" = "+c.Value)
			}
			fmt.Fprintf(w, "      not %q: %s\n", b.Transition, strings.Join(parts, "; "))
		}
	}
	for _, wr := range d.Writes {
		fmt.Fprintf(w, "      wrote: %s\n", wr)
	}
}
