package kube

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/statecraft/statecraft/adapters"
)

// Event types, as Kubernetes spells them.
const (
	EventNormal  = corev1.EventTypeNormal
	EventWarning = corev1.EventTypeWarning
)

var eventsResource = schema.GroupVersionResource{Version: "v1", Resource: "events"}

// Events records Kubernetes Events (core/v1) on objects, as the client's own
// identity. Each call creates one Event synchronously; it does not aggregate
// repeated events into a count as client-go's recorder does.
type Events struct {
	client    *Client
	component string
	now       func() time.Time
}

// NewEvents returns an Events that reports as component (for instance
// "statecraft"); now supplies event timestamps (nil means time.Now).
func NewEvents(c *Client, component string, now func() time.Time) *Events {
	if now == nil {
		now = time.Now
	}
	if component == "" {
		component = DefaultFieldManager
	}
	return &Events{client: c, component: component, now: now}
}

// Record creates an Event of eventType (EventNormal or EventWarning) with
// reason and message about obj, an object as returned by Client.Do. The
// Event goes to the object's namespace, or to "default" for a cluster-scoped
// object. The result is classified like any other request.
func (e *Events) Record(ctx context.Context, obj map[string]any, eventType, reason, message string) adapters.Result {
	u := &unstructured.Unstructured{Object: obj}
	if u.GetName() == "" || u.GetKind() == "" {
		return reject(adapters.Invalid, "event %s: the object has no kind or name", reason)
	}
	if eventType != EventNormal && eventType != EventWarning {
		return reject(adapters.Invalid, "event %s: type %q is neither %s nor %s", reason, eventType, EventNormal, EventWarning)
	}
	ns := u.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	now := e.now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			Name:      fmt.Sprintf("%s.%x", u.GetName(), now.UnixNano()),
			Namespace: ns,
		},
		InvolvedObject: corev1.ObjectReference{
			APIVersion:      u.GetAPIVersion(),
			Kind:            u.GetKind(),
			Namespace:       u.GetNamespace(),
			Name:            u.GetName(),
			UID:             u.GetUID(),
			ResourceVersion: u.GetResourceVersion(),
		},
		Reason:              reason,
		Message:             message,
		Type:                eventType,
		Source:              corev1.EventSource{Component: e.component},
		ReportingController: e.component,
		ReportingInstance:   e.component,
		Action:              reason,
		FirstTimestamp:      metav1.NewTime(now),
		LastTimestamp:       metav1.NewTime(now),
		Count:               1,
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ev)
	if err != nil {
		return reject(adapters.Invalid, "event %s: %v", reason, err)
	}
	out := &unstructured.Unstructured{Object: content}
	out.SetAPIVersion("v1")
	out.SetKind("Event")
	created, err := e.client.dynamic.Resource(eventsResource).Namespace(ns).Create(ctx, out, metav1.CreateOptions{})
	if err != nil {
		return fail(err)
	}
	return adapters.Result{Outcome: adapters.OK, Object: created.Object}
}
