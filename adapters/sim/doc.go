// Package sim is an in-memory Kubernetes API server with a virtual clock. A
// Cluster implements adapters.API, so the engine runs lifecycles against it
// exactly as against a real API server, deterministically: no wall clock, no
// goroutines, no map order in anything it returns, explicit seeds.
//
// It answers as kube-apiserver 1.37 does because its write path is
// kube-apiserver's own code, used as libraries:
//
//   - Built-in kinds (Namespace, ConfigMap, Secret, Service,
//     ServiceAccount, Deployment, StatefulSet, DaemonSet,
//     Job, HorizontalPodAutoscaler, PodDisruptionBudget, Lease, ClusterRole,
//     events.k8s.io Event, CustomResourceDefinition) are decoded into
//     their Go types and defaulted by the scheme's codecs (k8s.io/kubernetes
//     legacyscheme, apiextensions-apiserver's scheme), then prepared and
//     validated by their registry strategies through rest.BeforeCreate
//     and rest.BeforeUpdate: status reset, generation only where the server
//     keeps one (not on ConfigMaps or Namespaces; a Deployment's follows its
//     spec and annotations), the Namespace label kubernetes.io/metadata.name,
//     the server's messages. A body the types cannot hold (a number in a
//     ConfigMap's data) is refused as the server refuses it. The answer is
//     the object as the server's storage reads it back, defaulted again
//     (a Job without labels gets its template's, selector labels
//     included). A create is validated before its name is found taken;
//     an update of a missing Lease or Event creates it, as their
//     strategies allow. Patches are applied by the server's json-patch
//     library (gopkg.in/evanphx/json-patch.v4).
//   - Custom resources are served from their CustomResourceDefinition,
//     compiled once per definition and version by apiextensions-apiserver's
//     code: structural schema pruning of unknown fields, metadata coercion,
//     defaulting, OpenAPI validation and x-kubernetes-validations rules,
//     transition rules (oldSelf) included, in the customresource
//     strategy. An update without resourceVersion is refused.
//     RegisterKind serves a kind as a custom resource whose definition keeps
//     every field.
//   - Field ownership is structured-merge-diff's through apimachinery's
//     managedfields.FieldManager: metadata.managedFields on every object,
//     server-side apply merging lists by the keys the schema declares
//     (containers by name, finalizers as a set), the library's conflicts,
//     an apply that changes only ownership a change.
//   - Label selectors are parsed by apimachinery's labels package, once.
//   - Deletion is the registry store's: finalizers hold an object
//     (deletionTimestamp set, the object in the answer), Foreground and
//     Orphan propagation add the foregroundDeletion and orphan
//     finalizers (without a propagation policy, the kind strategy's
//     default: Orphan for a batch/v1 Job; none at all for Events, whose
//     policy is Unsupported), a delete with nothing to wait for answers
//     with no object, and a write that removes the last finalizer of an
//     object being deleted deletes it and answers with the written object
//     at its old resourceVersion. A namespace's first delete only marks it
//     (the namespace registry's own Delete: no deletionGracePeriodSeconds);
//     a later one changes nothing while spec.finalizers holds it. The garbage collector and the namespace controller are
//     played as controllers with their own identities, ControllerDelay
//     (a second) after what they react to: RunControllers runs them when
//     NextControllerRun says (the scenario runner queues them), and a
//     request served later runs them first. Their requests are in the
//     request log. The collector looks owners up by kind and name and
//     compares uids, as kube's does: a dependent of an owner of a kind the
//     server does not serve is left alone.
//
// What it owns besides: uid, resourceVersion (one global counter) and
// creationTimestamp in virtual time; discovery (the built-in kinds,
// RegisterKind, and the kinds a stored CustomResourceDefinition serves);
// Get and List; optimistic concurrency; merge and JSON patches; dry-run of
// every write; the status subresource; RBAC denials (Deny); admission hooks
// that mutate or reject (AddAdmission); injected faults at given calls or at
// a seeded rate (InjectFault); impersonation (Request.Identity); and a request
// log (Records) with counting helpers.
//
// Speed. Two shortcuts answer the commonest writes of a long simulation
// without the full path, where they can be sure to answer as it does
// (TestShortcutsAgree compares them on random writes): a label patch of a
// stored object, and a custom resource's status write whose schema has no
// rules on the root or in the status. WithoutFieldManagement keeps no field
// ownership, for runs that can observe it through nothing (readers without
// managedFields, no server-side apply: the scenario runner uses it for
// scenarios whose machines never apply); WithoutManagedFields only hides
// them from readers, as the client-go adapter's WithoutManagedFields does.
//
// What it leaves to neighbours: the engine decides what a lifecycle does; the
// simulator answers requests and plays the two controllers, nothing else.
// Time moves only when whoever drives the Clock (a test, or the scenario
// runner) calls Set or Advance, and that driver also schedules the engine's
// wake-ups and the "other actors" who edit or delete objects at given times:
// those actors are just more Do calls with an Identity.
//
// What it still does not do, each deliberate:
//   - One version per kind: objects are stored per apiVersion, and nothing is
//     converted between versions (a CRD with two served versions serves two
//     separate sets of objects).
//   - No other controller: no Deployment rolls out, no Pod exists, no
//     status but what a client writes.
//   - Field ownership of CustomResourceDefinitions merges their lists
//     atomically (client-go carries no schema for them).
//   - The messages of a validation that finds several errors list them in
//     a fixed order (by field); the server lists them in its validators'
//     order, which for an object's fields is map order.
//   - Requests are checked in this order: RBAC, faults, discovery and scope,
//     decoding and the strategy's validation, admission (mutating, then
//     rejecting), storage; field ownership is computed on the prepared
//     object, where the server computes it before the strategy runs: the
//     entries differ in the fields a strategy sets or ignores (a Job's
//     generated selector and labels, a Namespace's spec.finalizers), and
//     a write that only sets such a field moves the resourceVersion on
//     the server, not here (FIDELITY.md).
//   - A dry-run create answers with a uid that the next real create gets.
//   - Apply (the staging helper) creates or replaces an object whole, its
//     status through the status subresource, without admission and
//     without requiring its namespace.
//   - Admission hooks and fault matchers run while the cluster is locked:
//     they must not call the Cluster.
package sim
