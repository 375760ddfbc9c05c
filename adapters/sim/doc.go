// Package sim is an in-memory Kubernetes API server with a virtual clock. A
// Cluster implements adapters.API, so the engine runs lifecycles against it
// exactly as against a real API server, deterministically: no wall clock, no
// goroutines, no map order in anything it returns, explicit seeds.
//
// What it owns: answering requests as the API server would. Objects are
// unstructured JSON with uid, resourceVersion (one global counter),
// generation and creationTimestamp; discovery (RegisterKind, and the kinds a
// stored CustomResourceDefinition serves); Get, List with label selectors,
// Create, Update with optimistic concurrency, merge, JSON and server-side
// apply patches with field ownership; dry-run of every write; the status
// subresource; deletion with finalizers, owner references and garbage
// collection (Background, Foreground, Orphan) and namespace deletion, run
// synchronously inside the request that triggers them; RBAC denials
// (Deny); admission hooks that mutate or reject (AddAdmission); injected
// faults at given calls or at a seeded rate (InjectFault); impersonation
// (Request.Identity); and a request log (Records) with counting helpers.
//
// What it leaves to neighbours: the engine decides what a lifecycle does; the
// simulator only answers requests and never acts on its own. Time moves only
// when whoever drives the Clock (a test, or the scenario runner in
// cmd/statecraft) calls Set or Advance, and that driver also schedules the
// engine's wake-ups and the "other actors" who edit or delete objects at
// given times: those actors are just more Do calls with an Identity.
//
// Simplifications, each deliberate:
//   - Generation starts at 1 and increments whenever anything outside
//     metadata and status changes, for every kind, and when
//     deletionTimestamp is set.
//   - A write that changes nothing stores nothing and keeps the
//     resourceVersion, as the real server does.
//   - Server-side apply tracks ownership per leaf field; lists are atomic (no
//     merge by key), and managed fields are kept beside the object
//     (ManagedFields), not in metadata.managedFields. Non-apply writes are
//     recorded as Update operations of Request.FieldManager, else of the
//     Identity, else of "statecraft".
//   - A dry-run create returns the object without uid and resourceVersion
//     and consumes no counter.
//   - List of a namespaced kind with an empty namespace lists all
//     namespaces; every other verb needs the namespace its kind's scope asks
//     for, and a mismatch is adapters.Unsupported.
//   - Requests are checked in this order: RBAC, faults, discovery and scope,
//     validation, admission (mutating, then rejecting), storage.
//   - Garbage collection follows owner references by uid and runs when an
//     owner is removed or starts a foreground deletion; a reference that is
//     already dangling when written is not collected until then. Only
//     dependents with blockOwnerDeletion hold a foreground deletion.
//   - Deleting a namespace deletes its content at once; the namespace goes
//     when the last finalizer-held object in it is gone.
//   - Storing a CustomResourceDefinition serves its served versions at once
//     and marks it Established; deleting it removes its custom resources.
//   - Admission hooks and fault matchers run while the cluster is locked:
//     they must not call the Cluster.
package sim
