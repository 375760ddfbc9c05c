package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"syscall"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	fieldpath "k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/statecraft/statecraft/adapters"
)

func statusErr(code int32, reason metav1.StatusReason, msg string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: code, Reason: reason, Message: msg}}
}

func TestClassify(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	gk := schema.GroupKind{Kind: "ConfigMap"}
	for _, tc := range []struct {
		name string
		err  error
		want adapters.Outcome
	}{
		{"nil", nil, adapters.OK},
		{"not found", apierrors.NewNotFound(gr, "x"), adapters.NotFound},
		{"forbidden", apierrors.NewForbidden(gr, "x", errors.New(`User "a" cannot get resource`)), adapters.Forbidden},
		{"unauthorized", apierrors.NewUnauthorized("who are you"), adapters.Forbidden},
		{"invalid", apierrors.NewInvalid(gk, "x", fieldpath.ErrorList{fieldpath.Required(fieldpath.NewPath("spec"), "")}), adapters.Invalid},
		{"bad request", apierrors.NewBadRequest("no"), adapters.Invalid},
		{"too large", apierrors.NewRequestEntityTooLargeError("big"), adapters.Invalid},
		{"unsupported media type", statusErr(http.StatusUnsupportedMediaType, metav1.StatusReasonUnsupportedMediaType, "x"), adapters.Invalid},
		{"webhook denial (400)", statusErr(400, "", `admission webhook "v.example.com" denied the request: no`), adapters.Invalid},
		{"webhook denial (403)", statusErr(403, metav1.StatusReasonForbidden, `admission webhook "v.example.com" denied the request: no`), adapters.Invalid},
		{"policy denial", apierrors.NewForbidden(gr, "x", errors.New(`ValidatingAdmissionPolicy 'p' with binding 'b' denied request: no`)), adapters.Invalid},
		{"quota", apierrors.NewForbidden(gr, "x", errors.New(`exceeded quota: q, requested: count/configmaps=1`)), adapters.Invalid},
		{"conflict", apierrors.NewConflict(gr, "x", errors.New("stale")), adapters.Conflict},
		{"already exists", apierrors.NewAlreadyExists(gr, "x"), adapters.Conflict},
		{"apply conflict", apierrors.NewApplyConflict(nil, "conflict"), adapters.Conflict},
		{"method not allowed", apierrors.NewMethodNotSupported(gr, "patch"), adapters.Unsupported},
		{"server timeout", apierrors.NewServerTimeout(gr, "get", 1), adapters.Transient},
		{"gateway timeout", apierrors.NewTimeoutError("slow", 1), adapters.Transient},
		{"too many requests", apierrors.NewTooManyRequests("slow down", 1), adapters.Transient},
		{"internal", apierrors.NewInternalError(errors.New("boom")), adapters.Transient},
		{"unavailable", apierrors.NewServiceUnavailable("down"), adapters.Transient},
		{"bad gateway", apierrors.NewGenericServerResponse(http.StatusBadGateway, "get", gr, "x", "", 0, true), adapters.Transient},
		{"expired", apierrors.NewResourceExpired("too old"), adapters.Transient},
		{"unknown 4xx", statusErr(418, "", "teapot"), adapters.Invalid},
		{"unknown 5xx", statusErr(599, "", "?"), adapters.Transient},
		{"no kind match", &meta.NoKindMatchError{GroupKind: gk, SearchedVersions: []string{"v9"}}, adapters.Unsupported},
		{"no resource match", &meta.NoResourceMatchError{PartialResource: schema.GroupVersionResource{Resource: "gizmos"}}, adapters.Unsupported},
		{"wrapped no kind match", fmt.Errorf("mapping: %w", &meta.NoKindMatchError{GroupKind: gk}), adapters.Unsupported},
		{"deadline", context.DeadlineExceeded, adapters.Transient},
		{"canceled", fmt.Errorf("get: %w", context.Canceled), adapters.Transient},
		{"connection refused", &url.Error{Op: "Get", URL: "https://x", Err: &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}}, adapters.Transient},
		{"connection reset", fmt.Errorf("read: %w", syscall.ECONNRESET), adapters.Transient},
		{"eof", io.ErrUnexpectedEOF, adapters.Transient},
		{"unknown", errors.New("something else"), adapters.Transient},
	} {
		if got := Classify(tc.err); got != tc.want {
			t.Errorf("%s: Classify(%v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
	}
}
