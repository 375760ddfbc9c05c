# AP-67: a manual CNI upgrade of the halted cluster ends the halt, as a
# manual Talos or Kubernetes upgrade does (the seed's kinds of manual
# operation: talos, kubernetes, cni). prod's automatic Talos operation fails
# at 2m: halted at the 3m tick. alice starts a CNI upgrade of prod at
# 3m30s; it completes at 4m30s and the next tick (5m) ends the halt. The other side is halt-ends: a
# manual CNI operation on another cluster, and a manual reboot of prod,
# clear nothing.
scenario "halt ends by a later manual CNI upgrade of its cluster" {
  rules   = ["executor.hcl"]
  run_for = "6m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-halt-ends.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "upgrade of cp-1 timed out" } } }
    }
  }
  at "3m30s" {
    as     = "alice"
    create = ["prod-manual-cni.yaml"]
  }

  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5" }
  }
  expect "4m30s" {
    object = "TalosOperation/fleet/prod-manual-cni"
    fields = { "status.phase" = "Completed" }
  }
  expect "4m59s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.haltedOperation"          = null
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
}
