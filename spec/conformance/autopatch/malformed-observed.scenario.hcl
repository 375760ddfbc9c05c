# spec/bad-input.md, "Malformed objects of observed kinds": clusters whose
# versions are no versions, a machine that reports nothing, an operation
# of no cluster, Leases of no cluster, release lists with entries that are
# no versions. The patcher reads them without an evaluation error, starts
# nothing for them, and serves the healthy cluster (Talos v1.10.3 → v1.10.5, the only final
# patch listed; its Kubernetes v1.32.6 is newer than the listed "v1.32");
# run on kube-apiserver too (scenario/kubeworld), where the CRDs store
# every one of them.
scenario "malformed observed objects" {
  rules   = ["executor.hcl"]
  run_for = "15m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-malformed.yaml", "fleet-malformed.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  expect "0s" {
    object = "TalosCluster/fleet/healthy"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  # While healthy's operation runs; garbled's machine, not approved, reads
  # as not ready. (Later, on kube-apiserver, healthy reads as recently
  # started: the server sets creationTimestamp from its own clock, not the
  # scenario's, as in the start-guard scenarios.)
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = { "status.autoPatch.blocked" = "fleet/garbled MachinesNotReady, fleet/healthy OperationUnfinished" }
  }
  expect "15m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "MachinesNotReady"
  }
  expect "15m" {
    object = "TalosCluster/fleet/garbled"
    fields = {
      "spec.talosVersion"      = "latest"
      "spec.kubernetesVersion" = "1.32"
    }
  }
  expect "15m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 1
    }
  }
}
