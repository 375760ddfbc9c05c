package controller_test

// The fault schedules of issue 18 on kube-apiserver. Each schedule runs one
// of three fixed worlds (faultWorlds): ObjectPatches (created, applied, one
// deleted, one edited, one losing a claim, one waiting for a target that
// appears later) against the shipped ObjectPatch policy; a
// ClusterObjectDeployment whose template changes (revision 2 takes over
// from revision 1) against the shipped rollout policies; or the automatic
// patcher over three clusters, one of whose operations pauses and halts it
// (faults_ap_e2e_test.go); with one fault: a crash of the engine
// after its k-th write (a new engine starts at once), informers held N
// events behind, watch events delayed, dropped or duplicated,
// kube-apiserver restarted after the k-th write with etcd kept, two
// elected replicas whose leader crashes after the k-th write, or two shards
// of which the one that made the k-th write crashes and the other takes
// every object. The schedules are generated from the fault-free run (its
// write count gives the write indices), not picked by hand.
//
// After the world's script ends the watch faults stop, and a checker
// asserts the safety properties on what the server received (every request
// of every engine process is recorded):
//   - no write to a patch's target after the patch was deleted;
//   - no write of a patch that lost its claim reaches the target;
//   - retry budget is spent only on failed target writes (never for a
//     read error, a crash or a restart);
//   - each revision created once, each revision number held by one
//     revision (never two revisions for one template);
//   - never two operations on one cluster, never a failed operation
//     retried, nothing started while halted, never a version written that
//     the patcher did not record deciding;
//   - convergence within faultConverge: every object in its expected state
//     with its spec observed (no status update lost, no object stuck);
//   - a quiet world stays quiet: once converged, no write for
//     faultQuiet, and no object reconciled more often than the wake-ups
//     its own reconciles asked for.
//
// go test -run TestFaultSchedulesOnKube runs a seeded sample; with
// -args -faults.all (make faults) every schedule; -faults.worlds and
// -faults.kinds pick some. RELIABILITY.md records the figures.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/statecraft/statecraft/adapters"
	"github.com/statecraft/statecraft/controller"
	"github.com/statecraft/statecraft/engine"
	"github.com/statecraft/statecraft/fsm"
	"github.com/statecraft/statecraft/internal/controlplane"
	"github.com/statecraft/statecraft/rules"
)

var (
	faultsAll    = flag.Bool("faults.all", false, "TestFaultSchedulesOnKube: run every schedule (make faults), not a seeded sample")
	faultsSeed   = flag.Uint64("faults.seed", 18, "TestFaultSchedulesOnKube: the seed of the sample and of the watch faults")
	faultsKinds  = flag.String("faults.kinds", "", "TestFaultSchedulesOnKube: only the schedules of these fault kinds (comma-separated: crash, apiserver-restart, failover, shard-reassignment, stale, delay, drop, duplicate); empty: all")
	faultsWorlds = flag.String("faults.worlds", "op,cod,ap", "TestFaultSchedulesOnKube: the worlds to run, of op (ObjectPatches), cod (a ClusterObjectDeployment) and ap (the automatic patcher)")
)

const (
	faultConverge = 30 * time.Second // bound on convergence after the faults stop
	faultQuiet    = 4 * time.Second  // the quiet window checked after convergence
	// faultInformerSettle: the quiet window begins once every informer
	// has a watch open and none has listed, begun or ended a watch for
	// this long.
	faultInformerSettle = 1500 * time.Millisecond
	faultLabel          = "faults.statecraft.dev/value"
)

type faultKind string

const (
	faultNone      faultKind = "none"
	faultCrash     faultKind = "crash"
	faultStale     faultKind = "stale"
	faultDelay     faultKind = "delay"
	faultDrop      faultKind = "drop"
	faultDuplicate faultKind = "duplicate"
	faultRestart   faultKind = "apiserver-restart"
	faultFailover  faultKind = "failover"
	faultShard     faultKind = "shard-reassignment"
)

// faultSchedule is one run: a fault and its write index (crash, restart,
// failover, shard) or events held (stale).
type faultSchedule struct {
	kind faultKind
	at   int
	n    int
}

func (s faultSchedule) String() string {
	switch s.kind {
	case faultCrash, faultRestart, faultFailover, faultShard:
		return fmt.Sprintf("%s@%d", s.kind, s.at)
	case faultStale:
		return fmt.Sprintf("%s-%d", s.kind, s.n)
	}
	return string(s.kind)
}

func (s faultSchedule) atWrite() bool {
	return s.kind == faultCrash || s.kind == faultRestart || s.kind == faultFailover || s.kind == faultShard
}

// faultSchedules generates the schedules of a world whose fault-free run
// made writes counted writes: every write index for each write-indexed
// fault, each stale depth and each watch fault; without all, a sample drawn
// with seed (three crash points, one of each other write-indexed fault, one
// stale depth, each watch fault).
func faultSchedules(writes int, all bool, seed uint64) []faultSchedule {
	var out []faultSchedule
	indexed := []faultKind{faultCrash, faultRestart, faultFailover, faultShard}
	rng := rand.New(rand.NewPCG(seed, 1))
	for _, k := range indexed {
		idx := make([]int, writes)
		for i := range idx {
			idx[i] = i + 1
		}
		if !all {
			rng.Shuffle(len(idx), func(i, j int) { idx[i], idx[j] = idx[j], idx[i] })
			keep := 1
			if k == faultCrash {
				keep = 3
			}
			idx = idx[:min(keep, len(idx))]
			sort.Ints(idx)
		}
		for _, i := range idx {
			out = append(out, faultSchedule{kind: k, at: i})
		}
	}
	depths := []int{1, 3, 10}
	if !all {
		depths = []int{depths[rng.IntN(len(depths))]}
	}
	for _, n := range depths {
		out = append(out, faultSchedule{kind: faultStale, n: n})
	}
	for _, k := range []faultKind{faultDelay, faultDrop, faultDuplicate} {
		out = append(out, faultSchedule{kind: k})
	}
	return out
}

// faultProc is one engine process of a schedule.
type faultProc struct {
	name   string
	dead   atomic.Bool
	ctrl   *controller.Controller
	cancel context.CancelFunc
	done   chan struct{}
}

type reconcileRecord struct {
	proc     string
	ref      adapters.Ref
	at, wake time.Time
	err      error
}

// faultRun is the state of one schedule.
type faultRun struct {
	t     *testing.T
	cp    *controlplane.ControlPlane
	ctx   context.Context
	kc    kubernetes.Interface
	dyn   dynamic.Interface
	ns    string
	sched faultSchedule
	net   *faultNet
	// world is the world the schedule runs; machines drive it.
	world    *faultWorld
	machines []*fsm.Machine

	mu         sync.Mutex
	procs      []*faultProc
	reconciles []reconcileRecord
	deletedAt  map[string]time.Time // patch name → when its delete returned
	// The write-indexed fault: over (under mu) once the run is converged
	// and the fault may no longer fire; fired and faultEnd (when its
	// effect ended: the crash, or kube-apiserver serving again) under mu;
	// restarting while kube-apiserver is down.
	over       bool
	fired      bool
	down       bool
	faultEnd   time.Time
	restarting sync.WaitGroup
	problems   []string // the world's own failures (not the engine's)
	// acknowledgedAt: when the automatic patcher world acknowledged its
	// halt.
	acknowledgedAt time.Time
}

func (r *faultRun) problem(format string, args ...any) {
	r.mu.Lock()
	r.problems = append(r.problems, fmt.Sprintf(format, args...))
	r.mu.Unlock()
}

// reconcileCounter records each reconcile of a process (object, time,
// wake-up asked for, error) for the quiet-world check.
type reconcileCounter struct {
	r    *faultRun
	proc string
}

func (c reconcileCounter) Reconciling(_ *fsm.Machine, ref adapters.Ref, now time.Time) controller.ReconcileObserver {
	return &reconcileEnd{c: c, ref: ref, at: now}
}

// reconcileEnd sees one reconcile and records only its end.
type reconcileEnd struct {
	engine.NopTracer // its Transition and Problem do nothing

	c   reconcileCounter
	ref adapters.Ref
	at  time.Time
}

func (*reconcileEnd) Step(time.Time, adapters.Ref, *fsm.Machine, engine.Snapshot, *engine.Decision) {}
func (*reconcileEnd) Request(adapters.Request, adapters.Result)                                     {}
func (e *reconcileEnd) Done(rep engine.Report) {
	r := e.c.r
	r.mu.Lock()
	r.reconciles = append(r.reconciles, reconcileRecord{proc: e.c.proc, ref: e.ref, at: e.at, wake: rep.Wake, err: rep.Err})
	r.mu.Unlock()
}

// startProc starts an engine process whose every request goes through the
// schedule's network; elected, it runs under leader election; shards > 1
// makes it shard shard of shards.
func (r *faultRun) startProc(name string, elected bool, shard, shards int) *faultProc {
	p := &faultProc{name: name, done: make(chan struct{})}
	cfg := rest.CopyConfig(r.cp.Config)
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return procRT{net: r.net, proc: name, dead: &p.dead, next: rt}
	}
	opts := controller.Options{Workers: 2, Shard: shard, Shards: shards, Observer: reconcileCounter{r, name}}
	if r.world.namespaced {
		opts.Namespace = r.ns
	}
	p.ctrl = newController(r.t, cfg, opts, r.machines...)
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go func() {
		defer close(p.done)
		if elected {
			_ = p.ctrl.RunElected(ctx, controller.LeaderElection{Namespace: r.ns, Name: "statecraft", Identity: name,
				LeaseDuration: 2 * time.Second, RenewDeadline: 1500 * time.Millisecond, RetryPeriod: 500 * time.Millisecond})
		} else {
			_ = p.ctrl.Run(ctx)
		}
	}()
	r.mu.Lock()
	r.procs = append(r.procs, p)
	r.mu.Unlock()
	return p
}

func (r *faultRun) proc(name string) *faultProc {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.procs {
		if p.name == name {
			return p
		}
	}
	return nil
}

// crash stops a process at once: nothing it sends reaches the server any
// more (a lease it holds is not released), and its goroutines end.
func (r *faultRun) crash(p *faultProc) {
	p.dead.Store(true)
	p.cancel()
}

// arm starts the schedule's processes and fault.
func (r *faultRun) arm() {
	s := r.sched
	switch s.kind {
	case faultStale, faultDelay, faultDrop, faultDuplicate:
		r.net.mode = map[faultKind]watchMode{faultStale: watchStale, faultDelay: watchDelay, faultDrop: watchDrop, faultDuplicate: watchDuplicate}[s.kind]
		r.net.n = s.n
		r.net.on.Store(true)
	}
	r.net.onWrite = func(n int, proc string) {
		r.mu.Lock()
		if !s.atWrite() || n != s.at || r.fired || r.over {
			r.mu.Unlock()
			return
		}
		r.fired = true
		if s.kind == faultRestart {
			r.restarting.Add(1)
			r.down = true
		} else {
			defer r.endFault()
		}
		r.mu.Unlock()
		switch s.kind {
		case faultCrash:
			r.net.inject("engine crashed after a write")
			r.crash(r.proc(proc))
			r.startProc(proc+"'", false, 0, 0)
		case faultRestart:
			r.net.inject("kube-apiserver restarted")
			go func() {
				defer r.restarting.Done()
				defer r.endFault()
				// A graceful stop that times out (kube-apiserver drains
				// its requests for up to 30s) ends in a kill: stopped
				// either way.
				if err := r.cp.StopAPIServer(); err != nil && !strings.Contains(err.Error(), "timeout waiting for process kube-apiserver to stop") {
					r.problem("stop kube-apiserver: %v", err)
					return
				}
				time.Sleep(500 * time.Millisecond)
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				if err := r.cp.StartAPIServer(ctx); err != nil {
					r.problem("start kube-apiserver: %v", err)
				}
			}()
		case faultFailover:
			r.net.inject("leader crashed after a write")
			r.crash(r.proc(proc))
		case faultShard:
			r.net.inject("shard crashed after a write, its objects reassigned")
			for _, name := range []string{"shard-0", "shard-1"} {
				if q := r.proc(name); q != nil && !q.dead.Load() {
					r.crash(q)
				}
			}
			r.startProc("shard-all", false, 0, 1)
		}
	}
	switch s.kind {
	case faultFailover:
		r.startProc("replica-a", true, 0, 0)
		r.startProc("replica-b", true, 0, 0)
	case faultShard:
		r.startProc("shard-0", false, 0, 2)
		r.startProc("shard-1", false, 1, 2)
	default:
		r.startProc("engine", false, 0, 0)
	}
}

// endFault records that the fault's effect is over now.
func (r *faultRun) endFault() {
	r.mu.Lock()
	r.down = false
	r.faultEnd = time.Now()
	r.mu.Unlock()
}

// retry runs an admin request of the world until it succeeds (the API
// server may be restarting) or a minute passes.
func (r *faultRun) retry(what string, fn func() error) {
	deadline := time.Now().Add(time.Minute)
	for {
		err := fn()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			r.problem("%s: %v", what, err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (r *faultRun) createCM(name string) {
	r.retry("create ConfigMap "+name, func() error {
		_, err := r.kc.CoreV1().ConfigMaps(r.ns).Create(r.ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

// createOP creates a patch labelling target with value; requeue, when
// set, is its requeueInterval.
func (r *faultRun) createOP(name, target, value, requeue string) {
	spec := map[string]any{
		"targetRef": map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "name": target},
		"patch":     map[string]any{"metadata": map[string]any{"labels": map[string]any{faultLabel: value}}},
	}
	if requeue != "" {
		spec["requeueInterval"] = requeue
	}
	r.retry("create ObjectPatch "+name, func() error {
		_, err := r.dyn.Resource(opGVR).Namespace(r.ns).Create(r.ctx, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "rightsizing.kubex.ai/v1alpha1", "kind": "ObjectPatch",
			"metadata": map[string]any{"name": name, "namespace": r.ns},
			"spec":     spec,
		}}, metav1.CreateOptions{})
		if apierrors.IsAlreadyExists(err) {
			return nil
		}
		return err
	})
}

func (r *faultRun) opStatus(name string) (map[string]any, int64, error) {
	u, err := r.dyn.Resource(opGVR).Namespace(r.ns).Get(r.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, 0, err
	}
	st, _, _ := unstructured.NestedMap(u.Object, "status")
	return st, u.GetGeneration(), nil
}

// opWorld is the ObjectPatch world's script: fixed, the same for every
// schedule.
func (r *faultRun) opWorld() {
	for _, t := range []string{"t0", "t1", "t2"} {
		r.createCM(t)
	}
	r.createOP("p0", "t0", "one", "")
	r.createOP("p1", "t1", "one", "")
	r.createOP("p2", "t2", "one", "")
	// Until the three are applied (or 10s: under a fault they may not be
	// yet, which the script does not wait for).
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		applied := 0
		for _, p := range []string{"p0", "p1", "p2"} {
			if st, _, err := r.opStatus(p); err == nil && st["state"] == "Applied" {
				applied++
			}
		}
		if applied == 3 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.retry("delete ObjectPatch p2", func() error {
		err := r.dyn.Resource(opGVR).Namespace(r.ns).Delete(r.ctx, "p2", metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	})
	r.mu.Lock()
	r.deletedAt["p2"] = time.Now()
	r.mu.Unlock()
	r.retry("edit ObjectPatch p1", func() error {
		_, err := r.dyn.Resource(opGVR).Namespace(r.ns).Patch(r.ctx, "p1", types.MergePatchType,
			[]byte(`{"spec":{"patch":{"metadata":{"labels":{"`+faultLabel+`":"two"}}}}}`), metav1.PatchOptions{})
		return err
	})
	// p4 claims p0's label on t0, later: it loses the claim.
	time.Sleep(1100 * time.Millisecond) // a later creationTimestamp (1s resolution)
	r.createOP("p4", "t0", "loser", "")
	// p3's target appears later: found at its next observation (targets
	// are not watched), every 2s.
	r.createOP("p3", "t3", "one", "2s")
	time.Sleep(300 * time.Millisecond)
	r.createCM("t3")
	time.Sleep(500 * time.Millisecond)
}

// opConverged says whether the ObjectPatch world is in its expected final
// state, and what it is when not.
func (r *faultRun) opConverged() (bool, string) {
	want := map[string]struct{ state, target, value string }{
		"p0": {"Applied", "t0", "one"},
		"p1": {"Applied", "t1", "two"},
		"p3": {"Applied", "t3", "one"},
		"p4": {"Error", "", ""},
	}
	var bad []string
	for _, name := range []string{"p0", "p1", "p3", "p4"} {
		w := want[name]
		st, gen, err := r.opStatus(name)
		if err != nil {
			bad = append(bad, name+": "+err.Error())
			continue
		}
		og, _ := st["observedGeneration"].(int64)
		if st["state"] != w.state || og != gen {
			bad = append(bad, fmt.Sprintf("%s: state %v reason %v observedGeneration %d of %d", name, st["state"], st["reason"], og, gen))
		}
		if name == "p4" && st["reason"] != "TargetAlreadyClaimed" {
			bad = append(bad, fmt.Sprintf("p4: reason %v, want TargetAlreadyClaimed", st["reason"]))
		}
		if w.target != "" {
			cm, err := r.kc.CoreV1().ConfigMaps(r.ns).Get(r.ctx, w.target, metav1.GetOptions{})
			if err != nil || cm.Labels[faultLabel] != w.value {
				bad = append(bad, fmt.Sprintf("%s: target %s label %q (%v), want %q", name, w.target, labelOf(cm), err, w.value))
			}
		}
	}
	if _, _, err := r.opStatus("p2"); !apierrors.IsNotFound(err) {
		bad = append(bad, fmt.Sprintf("p2: %v, want deleted", err))
	}
	return len(bad) == 0, strings.Join(bad, "; ")
}

func labelOf(cm *corev1.ConfigMap) string {
	if cm == nil {
		return ""
	}
	return cm.Labels[faultLabel]
}

// faultResult is what one schedule found.
type faultResult struct {
	writes     int
	injected   map[string]int
	violations []string
	converged  time.Duration
}

// runFaultSchedule runs one schedule in a namespace of its own.
func runFaultSchedule(t *testing.T, cp *controlplane.ControlPlane, world *faultWorld, machines []*fsm.Machine, s faultSchedule, idx int) faultResult {
	ns := fmt.Sprintf("faults-%s-%03d-%s", world.name, idx, strings.NewReplacer("@", "-at-").Replace(s.String()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := &faultRun{t: t, cp: cp, ctx: ctx, kc: kubernetes.NewForConfigOrDie(cp.Config), dyn: dynamic.NewForConfigOrDie(cp.Config),
		ns: ns, sched: s, deletedAt: map[string]time.Time{}, world: world, machines: machines}
	r.net = newFaultNet(*faultsSeed+uint64(idx), func(rec reqRecord) bool { return ownWrite(ns, rec) })
	r.retry("create namespace", func() error {
		_, err := r.kc.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
		return err
	})
	r.arm()
	defer func() {
		r.mu.Lock()
		procs := slices.Clone(r.procs)
		r.mu.Unlock()
		for _, p := range procs {
			p.cancel()
			select {
			case <-p.done:
			case <-time.After(waitUp):
				t.Errorf("%s: process %s did not stop", s, p.name)
			}
		}
	}()

	world.script(r)
	// The watch faults stop; a write-indexed fault not yet fired may still
	// fire (after a late write) until the run is seen converged, and the
	// bound counts from the end of its effect.
	r.net.on.Store(false)
	scriptEnd := time.Now()

	var res faultResult
	for round := 0; ; round++ {
		var last string
		ok := false
		from := scriptEnd
		for {
			r.mu.Lock()
			from = scriptEnd
			if r.faultEnd.After(from) {
				from = r.faultEnd
			}
			down := r.down
			r.mu.Unlock()
			if !down && time.Since(from) > faultConverge {
				break
			}
			if ok, last = world.converged(r); ok && !down {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		res.converged = time.Since(from)
		seen := time.Now()
		r.mu.Lock()
		r.over = true
		r.mu.Unlock()
		r.restarting.Wait()
		r.mu.Lock()
		again := r.faultEnd.After(seen)
		r.mu.Unlock()
		if !ok {
			res.violations = append(res.violations, fmt.Sprintf("not converged %s after the faults stopped: %s", faultConverge, last))
		}
		if !ok || !again || round > 0 {
			break
		}
		// The fault fired as convergence was seen: see it again.
	}
	r.mu.Lock()
	fired := r.fired
	r.mu.Unlock()
	if s.atWrite() && !fired {
		r.net.inject("not reached (fewer writes)")
	}

	// A quiet world: nothing changes; after a settling second, and once
	// the informers are caught up, nothing is written and nothing
	// reconciled beyond its own wake-ups.
	time.Sleep(time.Second)
	r.net.waitInformersSettled(faultInformerSettle, faultConverge)
	quietFrom := time.Now()
	time.Sleep(faultQuiet)
	quietTo := time.Now()

	recs := r.net.records()
	r.mu.Lock()
	reconciles := slices.Clone(r.reconciles)
	r.mu.Unlock()
	res.violations = append(res.violations, checkQuiet(ns, recs, reconciles, quietFrom, quietTo)...)
	res.violations = append(res.violations, world.check(r, recs)...)
	if world.cleanup != nil {
		world.cleanup(r)
	}
	r.mu.Lock()
	problems := slices.Clone(r.problems)
	r.mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s: the world failed: %s", s, p)
	}
	res.writes = r.net.writeCount()
	r.net.mu.Lock()
	res.injected = maps2(r.net.injected)
	r.net.mu.Unlock()
	return res
}

func maps2(m map[string]int) map[string]int {
	out := make(map[string]int, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// checkOP checks the ObjectPatch world's safety properties on what the
// server received and on the patches' final retryCount.
func (r *faultRun) checkOP(recs []reqRecord) []string {
	r.mu.Lock()
	deletedAt := r.deletedAt["p2"]
	r.mu.Unlock()
	retries := map[string]int64{}
	for _, name := range []string{"p0", "p1", "p3", "p4"} {
		if st, _, err := r.opStatus(name); err == nil {
			retries[name], _ = st["retryCount"].(int64)
		}
	}
	return checkOPRecords(r.ns, recs, deletedAt, retries)
}

// checkOPRecords: p2's target not written after p2's delete (deletedAt),
// p4's losing claim never written, and each patch's final retryCount
// (retries) no more than the failed writes of its target.
func checkOPRecords(ns string, recs []reqRecord, deletedAt time.Time, retries map[string]int64) []string {
	var v []string
	cmPath := func(name string) string { return "/api/v1/namespaces/" + ns + "/configmaps/" + name }
	failedTargetWrites := map[string]int{}
	for _, rec := range recs {
		if !rec.write() {
			continue
		}
		// A deleted patch's target is not written after the delete.
		if rec.Path == cmPath("t2") && !deletedAt.IsZero() && rec.At.After(deletedAt) {
			v = append(v, fmt.Sprintf("%s wrote t2 (%s, status %d) %s after its patch p2 was deleted", rec.Proc, rec.Method, rec.Status, rec.At.Sub(deletedAt).Round(time.Millisecond)))
		}
		// The claim's loser never reaches the target.
		if rec.Path == cmPath("t0") && strings.Contains(string(rec.Body), "loser") {
			v = append(v, fmt.Sprintf("%s wrote the losing claim of p4 to t0 (%s, status %d)", rec.Proc, rec.Method, rec.Status))
		}
		if strings.HasPrefix(rec.Path, "/api/v1/namespaces/"+ns+"/configmaps/") && (rec.Status == 0 || rec.Status >= 300) {
			failedTargetWrites[strings.TrimPrefix(rec.Path, "/api/v1/namespaces/"+ns+"/configmaps/")]++
		}
	}
	// Retry budget is spent only on failed target writes.
	for _, name := range []string{"p0", "p1", "p3", "p4"} {
		target := map[string]string{"p0": "t0", "p1": "t1", "p3": "t3", "p4": "t0"}[name]
		rc := retries[name]
		if int(rc) > failedTargetWrites[target] {
			v = append(v, fmt.Sprintf("%s: retryCount %d with %d failed writes of its target %s: budget spent on something else", name, rc, failedTargetWrites[target], target))
		}
	}
	return v
}

// ownWrite tells the writes of a schedule's own objects: those of its
// namespace ns and, in the ClusterObjectDeployment world, the deployment
// named ns and its revisions ns-N (a create names them in its body only),
// not Events or Leases. Other schedules' objects are not counted or
// checked.
func ownWrite(ns string, rec reqRecord) bool {
	return (strings.Contains(rec.Path, ns) || strings.Contains(string(rec.Body), `"name":"`+ns)) && !isEventOrLease(rec.Path)
}

// checkQuiet checks a quiet world: once converged, no write of the
// schedule's objects (paths naming ns) in [quietFrom, quietTo), and every
// reconcile of one of them in it asked for by a wake-up of the same object
// (due from a second before the window on) or by the start of the process
// (its first reconcile of the object).
func checkQuiet(ns string, recs []reqRecord, reconciles []reconcileRecord, quietFrom, quietTo time.Time) []string {
	var v []string
	for _, rec := range recs {
		if rec.write() && !rec.At.Before(quietFrom) && rec.At.Before(quietTo) && ownWrite(ns, rec) {
			v = append(v, fmt.Sprintf("%s wrote %s %s in the quiet window", rec.Proc, rec.Method, rec.Path))
		}
	}
	byRef := map[adapters.Ref][]reconcileRecord{}
	for _, rc := range reconciles {
		if strings.Contains(rc.ref.Namespace, ns) || strings.Contains(rc.ref.Name, ns) {
			byRef[rc.ref] = append(byRef[rc.ref], rc)
		}
	}
	refs := make([]adapters.Ref, 0, len(byRef))
	for ref := range byRef {
		refs = append(refs, ref)
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].String() < refs[j].String() })
	for _, ref := range refs {
		in, asked := 0, 0
		seenBy := map[string]bool{}
		var unasked []reconcileRecord
		for _, rc := range byRef[ref] {
			// A process's first reconcile of an object is its start's
			// (the informers' initial list), as after a failover that
			// ends in the window: asked for by the start.
			first := !seenBy[rc.proc]
			seenBy[rc.proc] = true
			if !rc.at.Before(quietFrom) && rc.at.Before(quietTo) && !first {
				in++
				unasked = append(unasked, rc)
			}
			if !rc.wake.IsZero() && !rc.wake.Before(quietFrom.Add(-time.Second)) && rc.wake.Before(quietTo) {
				asked++
			}
		}
		if in > asked {
			v = append(v, fmt.Sprintf("%s reconciled %d times in the quiet %s, its wake-ups asked for %d; before each, its process read: %s", ref, in, faultQuiet, asked, readsBefore(recs, unasked)))
		}
	}
	return v
}

// readsBefore lists the reads (lists and watches: the informers) each
// process made in the 3 s before each of the reconciles, for a violation's
// message: what the process learned just before it.
func readsBefore(recs []reqRecord, rcs []reconcileRecord) string {
	var out []string
	for _, rc := range rcs {
		for _, rec := range recs {
			if rec.Proc == rc.proc && rec.Method == http.MethodGet && !rec.At.After(rc.at) && rc.at.Sub(rec.At) < 3*time.Second {
				out = append(out, fmt.Sprintf("%s -%s %s?%s (%d)", rc.proc, rc.at.Sub(rec.At).Round(time.Millisecond), rec.Path, rec.Query, rec.Status))
			}
		}
	}
	if len(out) == 0 {
		return "nothing"
	}
	return strings.Join(out, ", ")
}

// TestFaultSchedulesOnKube runs the generated fault schedules on a
// kube-apiserver of its own (restarted by some schedules) and fails on any
// violation. It logs every schedule and a summary: schedules run, faults
// injected, violations.
func TestFaultSchedulesOnKube(t *testing.T) {
	controlplane.SkipOrFail(t)
	// client-go logs every refused request of a crashed process and of
	// a stopped API server: thousands of lines that say nothing here.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	t.Cleanup(func() { klog.LogToStderr(true) })
	root, err := controlplane.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cp := controlplane.StartForTest(t, controlplane.Options{
		CRDDirs:        []string{filepath.Join(root, "spec", "crds")},
		KubeconfigPath: filepath.Join(dir, "kubeconfig"),
	})

	injected := map[string]int{}
	violations, run, baseWrites := 0, 0, map[string]int{}
	for _, name := range strings.Split(*faultsWorlds, ",") {
		i := slices.IndexFunc(faultWorlds, func(w faultWorld) bool { return w.name == name })
		if i < 0 {
			t.Fatalf("-faults.worlds: unknown world %q", name)
		}
		world := &faultWorlds[i]
		ms := shippedMachines(t, world.tune, world.policies...)
		base := runFaultSchedule(t, cp, world, ms, faultSchedule{kind: faultNone}, 0)
		t.Logf("%s schedule none: %d writes, converged %s after the script, violations %d", name, base.writes, base.converged.Round(time.Millisecond), len(base.violations))
		for _, v := range base.violations {
			t.Errorf("%s none: %s", name, v)
		}
		violations += len(base.violations)
		baseWrites[name] = base.writes
		if base.writes == 0 {
			t.Fatalf("%s: the fault-free run made no write: nothing to schedule", name)
		}
		schedules := faultSchedules(base.writes, *faultsAll, *faultsSeed)
		if *faultsKinds != "" {
			keep := strings.Split(*faultsKinds, ",")
			schedules = slices.DeleteFunc(schedules, func(s faultSchedule) bool { return !slices.Contains(keep, string(s.kind)) })
		}
		run += len(schedules)
		for i, s := range schedules {
			res := runFaultSchedule(t, cp, world, ms, s, i+1)
			for k, n := range res.injected {
				injected[k] += n
			}
			violations += len(res.violations)
			t.Logf("%s schedule %s: %d writes, faults %v, converged %s after the faults stopped, violations %d",
				name, s, res.writes, res.injected, res.converged.Round(time.Millisecond), len(res.violations))
			for _, v := range res.violations {
				t.Errorf("%s %s: %s", name, s, v)
			}
		}
	}
	kinds := make([]string, 0, len(injected))
	total := 0
	for k, n := range injected {
		kinds = append(kinds, fmt.Sprintf("%s: %d", k, n))
		if k != "not reached (fewer writes)" {
			total += n
		}
	}
	sort.Strings(kinds)
	t.Logf("fault schedules on kube-apiserver: %d schedules run (and the fault-free ones: writes %v), %d faults injected (%s), %d violations",
		run, baseWrites, total, strings.Join(kinds, ", "), violations)
}

// faultWorld is one world of the schedules: the policies that drive it, a
// fixed script, its expected final state and its own safety properties
// (the quiet world is checked for all).
type faultWorld struct {
	name       string
	policies   []string
	tune       func(*rules.Machine) // nil: the policies as shipped
	namespaced bool                 // the engine drives only the schedule's namespace
	script     func(*faultRun)
	converged  func(*faultRun) (bool, string)
	check      func(*faultRun, []reqRecord) []string
	cleanup    func(*faultRun) // nil: the world's objects may stay
}

var faultWorlds = []faultWorld{
	{name: "op", policies: []string{"objectpatch"}, namespaced: true,
		script: (*faultRun).opWorld, converged: (*faultRun).opConverged, check: (*faultRun).checkOP},
	{name: "cod", policies: []string{"clusterobjectdeployment", "clusterobjectset"},
		script: (*faultRun).codWorld, converged: (*faultRun).codConverged, check: (*faultRun).checkCOD},
	{name: "ap", policies: []string{"autopatch"}, tune: apTune, namespaced: true,
		script: (*faultRun).apWorld, converged: (*faultRun).apConverged, check: (*faultRun).checkAP, cleanup: (*faultRun).apCleanup},
}

// The ClusterObjectDeployment world: the deployment ns applies a ConfigMap
// into namespace ns; once it is progressed (or after 10s) its template
// changes, making revision 2, which takes the ConfigMap over.
func (r *faultRun) codWorld() {
	r.applyCOD("A")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if u, err := r.dyn.Resource(codGVR).Get(r.ctx, r.ns, metav1.GetOptions{}); err == nil {
			if st, _, _ := unstructured.NestedString(u.Object, "status", "state"); st == "Progressed" {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	r.applyCOD("B")
	time.Sleep(time.Second)
}

func (r *faultRun) codTemplate(message string) map[string]any {
	return map[string]any{"spec": map[string]any{"phases": []any{map[string]any{
		"name": "configuration",
		"objects": []any{map[string]any{"type": "InlineManifest", "inlineManifest": map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap",
			"metadata": map[string]any{"name": "settings", "namespace": r.ns},
			"data":     map[string]any{"message": message},
		}}},
	}}}}
}

// applyCOD creates the deployment with template message, or sets its
// template to message.
func (r *faultRun) applyCOD(message string) {
	r.retry("ClusterObjectDeployment template "+message, func() error {
		u, err := r.dyn.Resource(codGVR).Get(r.ctx, r.ns, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			_, err = r.dyn.Resource(codGVR).Create(r.ctx, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "olm.operatorframework.io/v1", "kind": "ClusterObjectDeployment",
				"metadata": map[string]any{"name": r.ns},
				"spec":     map[string]any{"template": r.codTemplate(message)},
			}}, metav1.CreateOptions{})
			return err
		}
		if err != nil {
			return err
		}
		if err := unstructured.SetNestedField(u.Object, r.codTemplate(message), "spec", "template"); err != nil {
			return err
		}
		_, err = r.dyn.Resource(codGVR).Update(r.ctx, u, metav1.UpdateOptions{})
		return err
	})
}

// codConverged: the deployment progressed at revision 2 with its spec
// observed, reporting revision 2 and its template's hash, revision 2 Ready, revision 1
// archived, the ConfigMap holding revision 2's data.
func (r *faultRun) codConverged() (bool, string) {
	var bad []string
	u, err := r.dyn.Resource(codGVR).Get(r.ctx, r.ns, metav1.GetOptions{})
	if err != nil {
		return false, err.Error()
	}
	st, _, _ := unstructured.NestedMap(u.Object, "status")
	og, _ := st["observedGeneration"].(int64)
	if st["state"] != "Progressed" || og != u.GetGeneration() {
		bad = append(bad, fmt.Sprintf("deployment: state %v reason %v observedGeneration %d of %d", st["state"], st["reason"], og, u.GetGeneration()))
	}
	if s2, err := r.dyn.Resource(cosGVR).Get(r.ctx, r.ns+"-2", metav1.GetOptions{}); err != nil {
		bad = append(bad, "revision 2: "+err.Error())
	} else {
		if state, _, _ := unstructured.NestedString(s2.Object, "status", "state"); state != "Ready" {
			bad = append(bad, "revision 2: state "+state)
		}
		// The deployment reports the template revision 2 was made from.
		if hash := s2.GetLabels()["olm.operatorframework.io/template-hash"]; st["templateHash"] != hash || st["latestRevision"] != int64(2) {
			bad = append(bad, fmt.Sprintf("deployment: templateHash %v latestRevision %v, revision 2's template hash %q", st["templateHash"], st["latestRevision"], hash))
		}
	}
	if s1, err := r.dyn.Resource(cosGVR).Get(r.ctx, r.ns+"-1", metav1.GetOptions{}); err != nil {
		bad = append(bad, "revision 1: "+err.Error())
	} else {
		// Archived in its spec, and its teardown finished (COS state
		// Archived): a revision still tearing down still has work to do.
		lc, _, _ := unstructured.NestedString(s1.Object, "spec", "lifecycleState")
		state, _, _ := unstructured.NestedString(s1.Object, "status", "state")
		if lc != "Archived" || state != "Archived" {
			bad = append(bad, "revision 1: lifecycleState "+lc+", state "+state)
		}
	}
	cm, err := r.kc.CoreV1().ConfigMaps(r.ns).Get(r.ctx, "settings", metav1.GetOptions{})
	if err != nil || cm.Data["message"] != "B" {
		bad = append(bad, fmt.Sprintf("ConfigMap settings: %v %v", cm.Data, err))
	}
	return len(bad) == 0, strings.Join(bad, "; ")
}

// checkCOD: never two revisions for one template, never a revision number
// allocated twice: the deployment's revisions are exactly ns-1 and ns-2,
// with revision numbers 1 and 2, each created once.
func (r *faultRun) checkCOD(recs []reqRecord) []string {
	var v []string
	created := map[string]int{}
	for _, rec := range recs {
		if rec.write() && rec.Method == http.MethodPost && rec.Status == http.StatusCreated && strings.HasSuffix(rec.Path, "/clusterobjectsets") {
			var obj struct {
				Metadata struct{ Name string } `json:"metadata"`
			}
			if json.Unmarshal(rec.Body, &obj) == nil && strings.HasPrefix(obj.Metadata.Name, r.ns+"-") {
				created[obj.Metadata.Name]++
			}
		}
	}
	for name, n := range created {
		if n > 1 || (name != r.ns+"-1" && name != r.ns+"-2") {
			v = append(v, fmt.Sprintf("revision %s created %d times", name, n))
		}
	}
	list, err := r.dyn.Resource(cosGVR).List(r.ctx, metav1.ListOptions{})
	if err != nil {
		return append(v, "list revisions: "+err.Error())
	}
	numbers := map[int64][]string{}
	for _, it := range list.Items {
		if !strings.HasPrefix(it.GetName(), r.ns+"-") {
			continue
		}
		n, _, _ := unstructured.NestedInt64(it.Object, "spec", "revision")
		numbers[n] = append(numbers[n], it.GetName())
	}
	for n, names := range numbers {
		if len(names) > 1 || n < 1 || n > 2 {
			v = append(v, fmt.Sprintf("revision number %d allocated to %v", n, names))
		}
	}
	if len(numbers) != 2 {
		v = append(v, fmt.Sprintf("revisions %v, want exactly revision numbers 1 and 2 (one per template)", numbers))
	}
	return v
}
