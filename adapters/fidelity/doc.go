// Package fidelity measures how faithfully the simulated cluster
// (adapters/sim) answers as kube-apiserver does (adapters/kube against the
// local control plane of internal/controlplane).
//
// It owns the differential test of issue 22: a seeded generator of request
// sequences over ConfigMaps, Secrets, Namespaces, Deployments, Jobs, Leases,
// Events (events.k8s.io/v1) and every CRD in spec/crds (gen.go, kinds.go);
// running each sequence on both APIs, the server in a fresh namespace and the
// simulator freshly built by NewSim (run.go); normalising what legitimately
// differs between the two (uids, timestamps, resourceVersion values but not
// whether they changed, managedFields times, generated names) and
// classifying every disagreement (compare.go); shrinking a disagreement to
// the fewest requests that still show it (shrink.go); and the per-class
// agreement table, the allowlist of explained disagreements and the
// thresholds `make test` holds (report.go, allowlist.go, testdata/).
//
// It measures and never changes what it measures: it imports adapters/sim
// and adapters/kube as any client does. The real server is the reference:
// where the two differ, the simulator is wrong. FIDELITY.md at the
// repository root records the figures and the command that gives them.
package fidelity
