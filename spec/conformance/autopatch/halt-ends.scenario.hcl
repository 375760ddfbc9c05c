# AP-65 AP-66 AP-67: the other ends of a halt. prod's automatic Talos
# operation fails at 2m; a person deletes it at 9m30s: the halt ends at the
# next tick and the Kubernetes patch (the next component) starts. It fails
# at 12m: halted again. A manual CNI operation on another cluster (edge)
# completes at 15m, a manual reboot of prod (not an upgrade) at 17m: they
# clear nothing. A manual Kubernetes upgrade of
# prod, started at 20m, completes at 25m: the halt ends. Neither end is an
# acknowledgement: status.autoPatch.acknowledged stays empty (the operation
# halted at 12m stays Paused, not acknowledged).
scenario "halt ends by deletion and by a later manual upgrade" {
  rules   = ["executor.hcl"]
  run_for = "30m"
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
  at "9m30s" {
    as     = "alice"
    delete = ["TalosOperation/fleet/prod-autopatch-talos-v1-10-5"]
  }
  at "12m" {
    patch "TalosOperation/fleet/prod-autopatch-kubernetes-v1-32-6" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "kube-apiserver did not become healthy" } } }
    }
  }
  at "14m" {
    as     = "alice"
    create = ["edge-manual-cni.yaml"]
  }
  at "16m" {
    as     = "alice"
    create = ["prod-manual-reboot.yaml"]
  }
  at "20m" {
    as     = "alice"
    create = ["prod-manual-kubernetes.yaml"]
  }

  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5" }
  }
  # A halt that ends without an acknowledgement leaves none on record.
  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.lastOperation" = "fleet/prod-autopatch-kubernetes-v1-32-6"
      "status.autoPatch.acknowledged"  = []
    }
  }
  expect "13m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-kubernetes-v1-32-6" }
  }
  expect "19m" {
    object = "TalosOperation/fleet/edge-manual-cni"
    fields = { "status.phase" = "Completed" }
  }
  expect "19m" {
    object = "TalosOperation/fleet/prod-manual-reboot"
    fields = { "status.phase" = "Completed" }
  }
  expect "19m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-kubernetes-v1-32-6" }
  }
  expect "24m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  expect "25m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.haltedOperation"          = null
      "status.conditions[AutoPatchHalted].status" = "False"
      "status.autoPatch.acknowledged"             = []
    }
  }
  # The paused automatic operation was never retried or resumed by the
  # patcher.
  expect "30m" {
    object = "TalosOperation/fleet/prod-autopatch-kubernetes-v1-32-6"
    fields = { "status.phase" = "Paused" }
  }
  expect "30m" {
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 2
    }
    writes {
      kind     = "TalosOperation"
      identity = "statecraft"
      verb     = "patch"
      count    = 0
    }
  }
}
