// Package kube implements adapters.API on client-go against a real
// Kubernetes API server.
//
// It owns carrying requests out and classifying their results: a dynamic
// client per identity (impersonation through rest.ImpersonationConfig),
// discovery with a deferred, cached REST mapper that is refreshed once when a
// kind is not found, every adapters.Verb mapped onto the dynamic client (get,
// list by label selector, create, update, merge / JSON / server-side-apply
// patch with field manager and force, delete with a propagation policy, the
// status subresource, server-side dry-run), every error classified into an
// adapters.Outcome, and recording Kubernetes Events.
//
// Its dynamic clients decode responses and watch events in one pass
// straight into unstructured maps (codec.go: the values client-go's dynamic
// client would produce; whatever that decoder does not take exactly as
// client-go would goes to client-go's own), and WithoutManagedFields gives
// a client whose objects are decoded without metadata.managedFields.
//
// It never decides lifecycle behaviour: which request to send, what an
// outcome means and when to retry belong to the engine and the rule files.
// Informers, the workqueue and the controller loop that feeds the engine are
// in package controller, which builds on this one. Starting a
// local API server for tests is internal/controlplane's job.
package kube
