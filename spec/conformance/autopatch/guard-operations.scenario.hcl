# AP-31 AP-32 AP-33 AP-51 (guard 5): an unfinished operation of the cluster
# (Running, Paused or Pending) or its held Lease keeps the patcher away.
# edge's node shutdown resting in ShutDown does not count: edge starts at
# once. prod's manual reboot completes at 10m: prod starts then. lab's
# Lease expires at 15m: lab starts then. dev's manual operation stays
# Paused and qa's manual operation stays Pending: neither starts, and a
# manual pause halts nothing.
scenario "guard 5: unfinished operations and the cluster lock" {
  rules   = ["executor.hcl"]
  run_for = "20m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-busy.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  expect "0s" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = { "status.autoPatch.blocked" = "fleet/dev OperationUnfinished, fleet/edge OperationUnfinished, fleet/lab ClusterLocked, fleet/prod OperationUnfinished, fleet/qa OperationUnfinished" }
  }
  expect "9m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "10m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "14m" {
    object = "TalosOperation/fleet/lab-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "15m" {
    object = "TalosOperation/fleet/lab-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "20m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.conditions[AutoPatchHalted].status" = "False"
      "status.autoPatch.haltedOperation"          = null
    }
  }
  expect "20m" {
    object = "TalosCluster/fleet/dev"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "20m" {
    object = "TalosCluster/fleet/qa"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "20m" {
    object = "TalosOperation/fleet/qa-apply-config"
    fields = { "status.phase" = null }
  }
  expect "20m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 3
    }
  }
}
