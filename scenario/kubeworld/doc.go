// Package kubeworld lets a scenario run against a real Kubernetes API
// server: a scenario.Cluster that carries requests out through
// adapters/kube and logs each with the scenario's virtual time, so one
// scenario file gives one trace on both the simulator and a real server.
//
// Time stays virtual: the scenario runner advances its clock from event to
// event and the engine writes virtual timestamps into status; only the
// server's own fields (creationTimestamp, resourceVersion) are real. Staging
// denials, faults and admission hooks needs the simulator.
package kubeworld
