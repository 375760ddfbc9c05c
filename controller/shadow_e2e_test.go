package controller_test

// Shadow mode against a real kube-apiserver (issue 6, item 4): the
// controller with Options.Shadow, `statecraft plan` and `statecraft run
// --dry-run` decide for every ObjectPatch, print each transition and each
// write they would send with its JSON body, and write nothing: the target
// keeps its resourceVersion, labels, data and managedFields, the
// ObjectPatches get no status, and no Event is recorded.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/statecraft/statecraft/adapters/kube"
	"github.com/statecraft/statecraft/controller"
)

// lockedBuffer is a buffer a test may read while a controller writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// shadowPatch is the merge patch the shadow tests' ObjectPatch carries.
var shadowPatch = map[string]any{
	"metadata": map[string]any{"labels": map[string]any{"managed-by": "statecraft"}},
	"data":     map[string]any{"b": "2"},
}

// shadowSeen is what a shadow test found on the server before the
// controller ran: resourceVersions by object.
type shadowSeen struct {
	ns  string
	rvs map[string]string
}

// seedShadow creates in ns a ConfigMap "target" and two ObjectPatches:
// "target-patch" patching it, and "missing-patch" whose target does not
// exist; it returns their resourceVersions.
func seedShadow(e *env, ns string) shadowSeen {
	e.t.Helper()
	e.createCM(ns, "target", map[string]string{"a": "1"})
	e.mustCreateOP(ns, "target-patch", "target", map[string]any{"patch": shadowPatch})
	e.mustCreateOP(ns, "missing-patch", "missing", nil)
	seen := shadowSeen{ns: ns, rvs: map[string]string{"ConfigMap/target": e.cm(ns, "target").ResourceVersion}}
	for _, n := range []string{"target-patch", "missing-patch"} {
		u, err := e.op(ns, n)
		if err != nil {
			e.t.Fatal(err)
		}
		seen.rvs["ObjectPatch/"+n] = u.GetResourceVersion()
	}
	return seen
}

var (
	shadowTransition = regexp.MustCompile(`^(\S+): (\S+) → (\S+) by "([^"]*)" reason (\S*)$`)
	shadowWrite      = regexp.MustCompile(`^  would (\S+(?: status)?) (\S+) \((\w+)\): (.*?)(?: \(dry run: (\w+)\))?$`)
)

// shadowComplete reports whether out holds the status writes of both
// ObjectPatches, the last lines a decision prints.
func shadowComplete(out, ns string) bool {
	return strings.Contains(out, "would patch status ObjectPatch/"+ns+"/target-patch ") &&
		strings.Contains(out, "would patch status ObjectPatch/"+ns+"/missing-patch ")
}

// checkShadowOutput checks that out names the transitions the ObjectPatches
// of seedShadow would make and each write that would be sent, with its body;
// and names no other write.
func checkShadowOutput(t *testing.T, out, ns string) {
	t.Helper()
	var transitions []string
	targetWrite, statusWrites := -1, map[string]int{}
	for i, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		if m := shadowTransition.FindStringSubmatch(line); m != nil {
			transitions = append(transitions, fmt.Sprintf("%s %s→%s %s %s", m[1], m[2], m[3], m[4], m[5]))
			continue
		}
		m := shadowWrite.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		verb, ref, patchType, body, dry := m[1], m[2], m[3], m[4], m[5]
		var got map[string]any
		if err := json.Unmarshal([]byte(body), &got); err != nil {
			t.Errorf("line %d: the body is not JSON (%v): %q", i+1, err, line)
			continue
		}
		switch {
		case verb == "patch" && ref == "ConfigMap/"+ns+"/target":
			if patchType != "merge" || dry != "ok" {
				t.Errorf("line %d: want a merge patch whose server-side dry run is ok: %q", i+1, line)
			}
			if !reflect.DeepEqual(got, shadowPatch) {
				t.Errorf("line %d: the target patch's body is %s, want the ObjectPatch's patch %v", i+1, body, shadowPatch)
			}
			if targetWrite < 0 {
				targetWrite = i
			}
		case verb == "patch status" && strings.HasPrefix(ref, "ObjectPatch/"+ns+"/"):
			name := strings.TrimPrefix(ref, "ObjectPatch/"+ns+"/")
			st, _ := got["status"].(map[string]any)
			want := map[string]map[string]any{
				"target-patch":  {"state": "Applied", "reason": "Applied", "outcome": "Success", "observedGeneration": float64(1)},
				"missing-patch": {"state": "Pending", "reason": "TargetNotFound", "observedGeneration": float64(1)},
			}[name]
			if want == nil || patchType != "merge" || dry != "" {
				t.Errorf("line %d: an unexpected status write: %q", i+1, line)
				continue
			}
			for k, v := range want {
				if st[k] != v {
					t.Errorf("line %d: the status body has %s = %v, want %v: %s", i+1, k, st[k], v, body)
				}
			}
			if _, ok := statusWrites[name]; !ok {
				statusWrites[name] = i
			}
		default:
			t.Errorf("line %d: an unexpected write: %q", i+1, line)
		}
	}
	for _, want := range []string{
		"ObjectPatch/" + ns + "/target-patch Pending→Applied apply Applied",
		"ObjectPatch/" + ns + "/missing-patch Pending→Pending wait for target TargetNotFound",
	} {
		found := false
		for _, tr := range transitions {
			found = found || tr == want
		}
		if !found {
			t.Errorf("no transition %q printed; printed: %q", want, transitions)
		}
	}
	if targetWrite < 0 {
		t.Errorf("the patch of ConfigMap/%s/target is not printed", ns)
	}
	for _, n := range []string{"target-patch", "missing-patch"} {
		if _, ok := statusWrites[n]; !ok {
			t.Errorf("the status write of ObjectPatch/%s/%s is not printed", ns, n)
		}
	}
	if i, ok := statusWrites["target-patch"]; ok && targetWrite >= 0 && i < targetWrite {
		t.Errorf("the status write of target-patch (line %d) is printed before the target's patch (line %d)", i+1, targetWrite+1)
	}
	if t.Failed() {
		t.Logf("shadow output:\n%s", out)
	}
}

// checkNothingWritten checks that the objects of seedShadow are as they
// were: the target's resourceVersion, labels and data, no statecraft entry
// in any managedFields, no status on the ObjectPatches, no Event in ns.
func checkNothingWritten(t *testing.T, e *env, seen shadowSeen) {
	t.Helper()
	ns := seen.ns
	cm := e.cm(ns, "target")
	if cm.ResourceVersion != seen.rvs["ConfigMap/target"] {
		t.Errorf("the target was written: resourceVersion %s, was %s", cm.ResourceVersion, seen.rvs["ConfigMap/target"])
	}
	if !reflect.DeepEqual(cm.Labels, map[string]string{"app": "target"}) || !reflect.DeepEqual(cm.Data, map[string]string{"a": "1"}) {
		t.Errorf("the target changed: labels %v, data %v", cm.Labels, cm.Data)
	}
	for _, mf := range cm.ManagedFields {
		if mf.Manager == kube.DefaultFieldManager {
			t.Errorf("the target has a managedFields entry of %s: %+v", mf.Manager, mf)
		}
	}
	for _, n := range []string{"target-patch", "missing-patch"} {
		u, err := e.op(ns, n)
		if err != nil {
			t.Fatal(err)
		}
		if rv := u.GetResourceVersion(); rv != seen.rvs["ObjectPatch/"+n] {
			t.Errorf("ObjectPatch %s was written: resourceVersion %s, was %s", n, rv, seen.rvs["ObjectPatch/"+n])
		}
		if st, ok := u.Object["status"]; ok {
			t.Errorf("ObjectPatch %s has a status: %v", n, st)
		}
		for _, mf := range u.GetManagedFields() {
			if mf.Manager == kube.DefaultFieldManager {
				t.Errorf("ObjectPatch %s has a managedFields entry of %s: %+v", n, mf.Manager, mf)
			}
		}
	}
	evs, err := e.kc.CoreV1().Events(ns).List(e.ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range evs.Items {
		t.Errorf("an Event was recorded: %s %s on %s/%s by %s: %s", ev.Type, ev.Reason, ev.InvolvedObject.Kind, ev.InvolvedObject.Name, ev.Source.Component, ev.Message)
	}
}

// The controller in shadow mode, with an Event recorder configured (shadow
// mode must silence it), decides for both ObjectPatches, prints the
// transitions and writes, and writes nothing.
func TestShadowModeWritesNothing(t *testing.T) {
	ns := uniq("shadow")
	e := newEnv(t, ns)
	seen := seedShadow(e, ns)
	client, err := kube.New(e.cp.Config, kube.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out lockedBuffer
	r := start(t, e.cp.Config, controller.Options{Namespace: ns, Shadow: &out, Events: kube.NewEvents(client, "statecraft", time.Now)})
	eventually(t, "both ObjectPatches decided", func() (bool, string) {
		return shadowComplete(out.String(), ns) && r.ctrl.Idle(), out.String()
	})
	time.Sleep(time.Second) // give a stray write, Event or wake-up the time to happen
	r.stop(t)
	checkShadowOutput(t, out.String(), ns)
	checkNothingWritten(t, e, seen)
}

// `statecraft plan` against the API server through a kubeconfig decides
// once for every object, prints what it would do, and writes nothing.
func TestPlanCommandWritesNothing(t *testing.T) {
	ns := uniq("shadow-plan")
	e := newEnv(t, ns)
	seen := seedShadow(e, ns)
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(statecraftBinary(t), "plan", "--kubeconfig", e.cp.KubeconfigPath, "--namespace", ns, "--timeout", waitUp.String())
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("statecraft plan: %v\n%s\n%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	if !regexp.MustCompile(`(?m)^\d+ objects decided; nothing was written$`).MatchString(out) {
		t.Errorf("no closing line in:\n%s", out)
	}
	checkShadowOutput(t, out, ns)
	checkNothingWritten(t, e, seen)
}

// `statecraft run --dry-run` against the API server through a kubeconfig
// prints what it would do and writes nothing until it is interrupted.
func TestRunDryRunCommandWritesNothing(t *testing.T) {
	ns := uniq("shadow-run")
	e := newEnv(t, ns)
	seen := seedShadow(e, ns)
	var stdout, stderr lockedBuffer
	cmd := exec.Command(statecraftBinary(t), "run", "--dry-run", "--kubeconfig", e.cp.KubeconfigPath, "--namespace", ns)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	t.Cleanup(func() { cmd.Process.Kill() })
	eventually(t, "both ObjectPatches decided", func() (bool, string) {
		select {
		case err := <-done:
			t.Fatalf("statecraft run --dry-run returned early: %v\n%s\n%s", err, stdout.String(), stderr.String())
		default:
		}
		return shadowComplete(stdout.String(), ns), stdout.String()
	})
	time.Sleep(time.Second) // give a stray write, Event or wake-up the time to happen
	// The command stops on SIGINT as on Ctrl-C; it listens for it since before
	// the first decision was printed.
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("statecraft run --dry-run: %v\n%s", err, stderr.String())
		}
	case <-time.After(waitUp):
		t.Fatal("statecraft run --dry-run did not stop on SIGINT")
	}
	checkShadowOutput(t, stdout.String(), ns)
	checkNothingWritten(t, e, seen)
}

var statecraftBin struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// statecraftBinary builds cmd/statecraft once per test process and returns
// the binary's path: the CLI sits above the controller, so its commands are
// run as a user runs them.
func statecraftBinary(t *testing.T) string {
	t.Helper()
	statecraftBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "statecraft-bin-")
		if err != nil {
			statecraftBin.err = err
			return
		}
		statecraftBin.path = filepath.Join(dir, "statecraft")
		cmd := exec.Command("go", "build", "-o", statecraftBin.path, "github.com/statecraft/statecraft/cmd/statecraft")
		statecraftBin.out, statecraftBin.err = cmd.CombinedOutput()
	})
	if statecraftBin.err != nil {
		t.Fatalf("go build ./cmd/statecraft: %v\n%s", statecraftBin.err, statecraftBin.out)
	}
	return statecraftBin.path
}
