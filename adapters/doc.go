// Package adapters defines the one interface through which the engine reaches
// a Kubernetes API: an API that carries out Requests and answers with
// classified Results. It owns the vocabulary every adapter shares (Ref, Verb,
// PatchType, Outcome, Request, Result, Scope) and its contract: bodies and
// results are canonical JSON values (package jsonvalue), every failure is a
// classified Outcome, never a panic and never a silent drop.
//
// It leaves deciding to the engine, which never imports an adapter, and
// carrying requests out to the adapters: adapters/sim implements API in
// memory with a virtual clock; adapters/kube implements it on client-go
// against a real API server.
package adapters
