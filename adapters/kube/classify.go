package kube

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/statecraft/statecraft/adapters"
)

// Classify maps an error returned by client-go (or by discovery, or by the
// transport) onto the outcome vocabulary of the rule language. A nil error is
// adapters.OK. Every error has an outcome: an error this function does not
// recognise is Transient, so that it is retried with backoff rather than
// dropped.
func Classify(err error) adapters.Outcome {
	if err == nil {
		return adapters.OK
	}
	// The REST mapper does not know the kind or version.
	if meta.IsNoMatchError(err) {
		return adapters.Unsupported
	}
	// A context that ends is the caller's own deadline: retry later.
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return adapters.Transient
	}

	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return classifyStatus(err, status)
	}
	if isNetworkError(err) {
		return adapters.Transient
	}
	return adapters.Transient
}

// classifyStatus classifies an error that carries a metav1.Status from the
// API server.
func classifyStatus(err error, status apierrors.APIStatus) adapters.Outcome {
	// An admission denial is a rejection of the request's content, not of the
	// caller: Invalid, whatever HTTP code the webhook or policy chose.
	if isAdmissionDenial(err) {
		return adapters.Invalid
	}
	switch {
	case apierrors.IsNotFound(err):
		return adapters.NotFound
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err):
		return adapters.Forbidden
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err),
		apierrors.IsRequestEntityTooLargeError(err),
		apierrors.IsNotAcceptable(err), apierrors.IsUnsupportedMediaType(err):
		return adapters.Invalid
	case apierrors.IsConflict(err), apierrors.IsAlreadyExists(err):
		return adapters.Conflict
	case apierrors.IsMethodNotSupported(err):
		return adapters.Unsupported
	case apierrors.IsServerTimeout(err), apierrors.IsTimeout(err),
		apierrors.IsTooManyRequests(err), apierrors.IsInternalError(err),
		apierrors.IsServiceUnavailable(err), apierrors.IsUnexpectedServerError(err),
		apierrors.IsResourceExpired(err), apierrors.IsGone(err):
		return adapters.Transient
	}
	code := status.Status().Code
	switch {
	case code >= 500:
		return adapters.Transient
	case code == http.StatusNotFound:
		return adapters.NotFound
	case code >= 400:
		return adapters.Invalid
	}
	return adapters.Transient
}

// isAdmissionDenial reports whether err is a denial by an admission webhook,
// a ValidatingAdmissionPolicy or a quota.
func isAdmissionDenial(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "admission webhook") && strings.Contains(msg, "denied the request") ||
		strings.Contains(msg, "ValidatingAdmissionPolicy") && strings.Contains(msg, "denied request") ||
		strings.Contains(msg, "exceeded quota")
}

// isNetworkError reports whether err is a failure to reach the server or a
// connection dropped mid-request.
func isNetworkError(err error) bool {
	var netErr net.Error
	var urlErr *url.Error
	var opErr *net.OpError
	switch {
	case errors.As(err, &netErr), errors.As(err, &urlErr), errors.As(err, &opErr):
		return true
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.EPIPE):
		return true
	}
	return false
}
