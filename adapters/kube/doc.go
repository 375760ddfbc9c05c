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
// It never decides lifecycle behaviour: which request to send, what an
// outcome means and when to retry belong to the engine and the rule files.
// Informers, the workqueue and the controller loop that feeds the engine are
// not here; they come later in a separate package that builds on this one.
// Starting a local API server for tests is internal/controlplane's job.
package kube
