// Package controlplane starts and stops a local Kubernetes control plane (etcd
// and kube-apiserver, and on request the controllers that make it a cluster:
// kube-controller-manager, kube-scheduler and kwok with one fake node) for
// tests, benchmarks and `statecraft dev`.
//
// It owns: finding the binaries that hack/controlplane.mk builds into bin/
// (or $STATECRAFT_BIN), running etcd and kube-apiserver through
// controller-runtime's envtest and the controllers itself, installing CRDs
// from directories, writing an admin kubeconfig that kubectl can use, and
// making sure nothing it started outlives the process that started it (a
// parent-death signal on each controller, and a janitor process that kills
// what is left and removes the temporary folders when that process dies
// without stopping it, SIGKILL included). It returns a *rest.Config and
// nothing more: talking to the API server is adapters/kube's job, deciding
// what to do is the engine's.
package controlplane
