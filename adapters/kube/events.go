package kube

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	"github.com/statecraft/statecraft/adapters"
)

// Event types, as Kubernetes spells them.
const (
	EventNormal  = corev1.EventTypeNormal
	EventWarning = corev1.EventTypeWarning
)

// Events records Kubernetes Events (core/v1) on objects, as the client's own
// identity, through client-go's event broadcaster (tools/record): recording
// never waits for the API server; repeats of an event are aggregated into
// one Event whose count grows (a PATCH, not a new object), similar events
// with different messages are combined after ten in ten minutes, and a
// token bucket per object limits how fast Events are written (a burst of
// 25, then one every five minutes), as every Kubernetes controller's
// recorder does. Shutdown stops it.
type Events struct {
	broadcaster record.EventBroadcaster
	recorder    record.EventRecorder
}

// NewEvents returns an Events that reports as component (for instance
// "statecraft"); now, when not nil, is the clock of the aggregation and the
// rate limit (nil means the wall clock; the Events' own timestamps are
// always the wall clock's, as client-go's recorder takes them).
func NewEvents(c *Client, component string, now func() time.Time) *Events {
	if component == "" {
		component = DefaultFieldManager
	}
	opts := record.CorrelatorOptions{}
	if now != nil {
		opts.Clock = passiveClock(now)
	}
	b := record.NewBroadcaster(record.WithCorrelatorOptions(opts))
	if kc, err := kubernetes.NewForConfig(c.Config()); err == nil {
		b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kc.CoreV1().Events("")})
	}
	return &Events{
		broadcaster: b,
		recorder:    b.NewRecorder(runtime.NewScheme(), corev1.EventSource{Component: component}),
	}
}

// passiveClock is a clock.PassiveClock reading a now function.
type passiveClock func() time.Time

func (c passiveClock) Now() time.Time                  { return c() }
func (c passiveClock) Since(t time.Time) time.Duration { return c().Sub(t) }

var _ clock.PassiveClock = passiveClock(nil)

// Record queues an Event of eventType (EventNormal or EventWarning) with
// reason and message about obj, an object as returned by Client.Do. The
// Event goes to the object's namespace, or to "default" for a cluster-scoped
// object. The result is Invalid for an object without kind or name or an
// unknown type, else OK: the Event is written later, or dropped by the rate
// limit.
func (e *Events) Record(_ context.Context, obj map[string]any, eventType, reason, message string) adapters.Result {
	u := &unstructured.Unstructured{Object: obj}
	if u.GetName() == "" || u.GetKind() == "" {
		return reject(adapters.Invalid, "event %s: the object has no kind or name", reason)
	}
	if eventType != EventNormal && eventType != EventWarning {
		return reject(adapters.Invalid, "event %s: type %q is neither %s nor %s", reason, eventType, EventNormal, EventWarning)
	}
	e.recorder.Event(u, eventType, reason, message)
	return adapters.Result{Outcome: adapters.OK}
}

// Shutdown stops the broadcaster; Events recorded afterwards are dropped.
func (e *Events) Shutdown() {
	if e != nil {
		e.broadcaster.Shutdown()
	}
}
