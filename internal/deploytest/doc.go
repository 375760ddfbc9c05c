// Package deploytest checks the deployment artifacts: the plain manifests in
// examples/deploy and the Helm chart in charts/statecraft.
//
// Its tests render the chart through the Helm Go module (as `helm template`
// does) with default values and with each flag flipped, compare the objects
// with examples/deploy, check the RBAC the seed requires (rbac.create,
// rbac.objectPatches.*: separate ClusterRoles granting only get and patch on
// one resource each), check that the chart's and the examples' CRDs are the
// bytes of spec/crds, and apply the manifests to a real kube-apiserver
// (internal/controlplane) with server-side apply.
//
// `go test ./internal/deploytest -sync-crds` copies the ObjectPatch CRDs from
// spec/crds into charts/statecraft/crds and examples/deploy/crds.
package deploytest
