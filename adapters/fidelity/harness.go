package fidelity

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/jsonvalue"
)

// Harness runs sequences on one server and, for each run, on a simulator
// of its own.
type Harness struct {
	Server adapters.API
	// NewSim builds a fresh simulator for each run (NewSim by default).
	NewSim func() (adapters.API, error)
	// Allow lists the disagreements that are explained (nil: none are).
	Allow *Allowlist
	runs  int // tokens handed out
}

// Run is one sequence carried out on both sides.
type Run struct {
	Token  string
	Steps  []Step
	Obs    []Obs
	Checks []Check
	sides  [2]*side
}

// Run carries out steps on the server, in a fresh namespace, and on a
// fresh simulator, and classifies every answer.
func (h *Harness) Run(ctx context.Context, steps []Step) (*Run, error) {
	h.runs++
	token := fmt.Sprintf("fid%dx", h.runs)
	newSim := h.NewSim
	if newSim == nil {
		newSim = NewSim
	}
	simAPI, err := newSim()
	if err != nil {
		return nil, err
	}
	r := &Run{Token: token, Steps: steps, sides: [2]*side{newSide(h.Server, token), newSide(simAPI, token)}}
	r.Obs, err = execute(ctx, steps, r.sides)
	if err != nil {
		return nil, err
	}
	w := written{}
	diverged, divergedKind := map[string]bool{}, map[string]bool{}
	for _, o := range r.Obs {
		w.add(o.Step)
		key := objKey(o.Step.Kind, o.Step.Slot)
		down := diverged[key]
		if o.Step.Verb == adapters.List {
			down = divergedKind[o.Step.Kind]
		}
		for _, ref := range referenced(o.Step.Body) {
			down = down || diverged[ref]
		}
		checks := compare(o, w)
		for i, c := range checks {
			checks[i].Downstream = down
			if !c.Agree && c.Class == ClassDeletion && !down {
				// downstream when every object read back differently
				// already differed before
				checks[i].Downstream = true
				for _, p := range o.Probes {
					if probeState(p.Res[Server]) != probeState(p.Res[Sim]) && !diverged[p.Key] {
						checks[i].Downstream = false
					}
				}
			}
			if !c.Agree && c.Class == ClassOutcome {
				checks[i].Notes = []string{"server: " + r.result(Server, o.Step, o.Res[Server]), "sim: " + r.result(Sim, o.Step, o.Res[Sim])}
			}
			for j, n := range checks[i].Notes {
				checks[i].Notes[j] = strings.ReplaceAll(n, token, "$T")
			}
			if c.Agree || (c.Class != ClassOutcome && c.Class != ClassDeletion) {
				continue
			}
			diverged[key], divergedKind[o.Step.Kind] = true, true
			for _, p := range o.Probes {
				diverged[p.Key] = true
				divergedKind[strings.SplitN(p.Key, "/", 2)[0]] = true
			}
		}
		r.Checks = append(r.Checks, checks...)
	}
	return r, nil
}

// referenced lists the objects (Kind/slot) whose uids a body carries
// (owner references): an object that differs makes them differ too.
func referenced(v any) []string {
	var out []string
	switch t := v.(type) {
	case map[string]any:
		for _, k := range jsonvalue.SortedKeys(t) {
			out = append(out, referenced(t[k])...)
		}
	case []any:
		for _, e := range t {
			out = append(out, referenced(e)...)
		}
	case string:
		if rest, ok := strings.CutPrefix(t, "$uid:"); ok {
			out = append(out, rest)
		}
	}
	return out
}

// has reports whether the run shows a disagreement with this signature.
func (r *Run) has(signature string) bool {
	for _, c := range r.Checks {
		if !c.Agree && c.Signature == signature {
			return true
		}
	}
	return false
}

// clean renders a server's or simulator's message about step st with the
// run's token, uids and generated names replaced, so that reports are the
// same on every run.
func (r *Run) clean(i int, st Step, msg string) string {
	sd := r.sides[i]
	if st.Verb == adapters.Create && st.GenerateName {
		// a name generated for a create that failed is known only from
		// the message
		prefix := generatePrefix(kindByName(st.Kind), sd.token)
		re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `[a-z0-9]{5}\b`)
		msg = re.ReplaceAllString(msg, fmt.Sprintf("<gen:%d>", st.ID))
	}
	var olds []string
	repl := map[string]string{}
	for kn, g := range sd.genBy {
		_, n, _ := strings.Cut(kn, "/")
		olds = append(olds, n)
		repl[n] = "<" + g + ">"
	}
	for uid, label := range sd.uids {
		olds = append(olds, uid)
		repl[uid] = "<uid:" + label + ">"
	}
	sort.Slice(olds, func(a, b int) bool {
		if len(olds[a]) != len(olds[b]) {
			return len(olds[a]) > len(olds[b])
		}
		return olds[a] < olds[b]
	})
	for _, o := range olds {
		msg = strings.ReplaceAll(msg, o, repl[o])
	}
	msg = strings.ReplaceAll(msg, r.Token, "$T")
	msg = strings.Join(strings.Fields(msg), " ") // one line
	// an object quoted in a message carries the server's resourceVersion
	// and times
	msg = rvInMessage.ReplaceAllString(msg, "${1}<rv>")
	msg = timeInMessage.ReplaceAllString(msg, "<time>")
	if len(msg) > 400 {
		msg = msg[:400] + "…"
	}
	return msg
}

var (
	rvInMessage   = regexp.MustCompile(`(resourceVersion\\*"\s*:\s*\\*")[0-9]+`)
	timeInMessage = regexp.MustCompile(`[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?Z`)
)

// Result renders one side's answer to one step: the outcome and, when it
// is not ok, the message.
func (r *Run) result(i int, st Step, res adapters.Result) string {
	if res.Outcome == adapters.OK {
		return "ok"
	}
	return string(res.Outcome) + ": " + r.clean(i, st, res.Message)
}
