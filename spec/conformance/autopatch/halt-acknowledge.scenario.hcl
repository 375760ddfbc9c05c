# AP-49 AP-50 AP-52 AP-53 AP-54 AP-56 AP-57 AP-58 AP-60 AP-61 AP-64 AP-68:
# halt and resume. prod's automatic Talos operation fails at 2m (Paused):
# the next tick halts everything (condition, haltedOperation, Warning
# Event); edge, Ready at 5m, does not start while halted. alice writes
# spec.autoPatch.acknowledgedHalt at 20m (kubectl patch, the equivalent of
# `ichor settings set autoPatch.acknowledgeHalt=fleet/prod-...`): the halt
# ends, edge starts, prod stays held by its paused operation. edge's
# operation fails at 22m: a new halt, which the old acknowledgement does
# not clear. A person resumes it at 30m (`ichor operation resume`, here the
# annotation); it completes at 40m and the halt ends. The patcher never
# retries prod's operation and never removes the acknowledgement.
scenario "halt, acknowledgement, a second halt, completion" {
  rules   = ["executor.hcl"]
  run_for = "45m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-halt.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "node cp-1 did not come back after the upgrade" } } }
    }
  }
  at "5m" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/edge" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }] }
    }
  }
  at "20m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/prod-autopatch-talos-v1-10-5" } } }
    }
  }
  at "22m" {
    patch "TalosOperation/fleet/edge-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "etcd member did not rejoin" } } }
    }
  }
  at "30m" {
    as = "bob"
    patch "TalosOperation/fleet/edge-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "ichor.maesh.dev/resume" = "true" } } }
    }
  }

  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "AutoPatchHalted"
    fields = {
      "status.autoPatch.haltedOperation"           = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.announced"                 = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.blocked"                   = null
      "status.conditions[AutoPatchHalted].status"  = "True"
      "status.conditions[AutoPatchHalted].reason"  = "AutoPatchHalted"
      "status.conditions[AutoPatchHalted].message" = "automatic operation fleet/prod-autopatch-talos-v1-10-5 is paused: node cp-1 did not come back after the upgrade"
    }
  }
  expect "3m" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.prod-autopatch-talos-v1-10-5"
    fields = {
      "type"   = "Warning"
      "reason" = "AutoPatchHalted"
      "note"   = "automatic operation fleet/prod-autopatch-talos-v1-10-5 is paused: node cp-1 did not come back after the upgrade"
    }
  }
  # Halted: edge is Ready from 5m, yet nothing starts anywhere.
  expect "19m" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "19m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  # Acknowledged: edge starts; prod's paused operation still holds prod.
  expect "20m" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "20m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.blocked"                  = "fleet/edge OperationUnfinished, fleet/prod OperationUnfinished"
      "status.autoPatch.haltedOperation"          = null
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
  # A later halt names another operation: the old acknowledgement stays and
  # does not clear it.
  expect "23m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/edge-autopatch-talos-v1-10-5"
      "spec.autoPatch.acknowledgedHalt"  = "fleet/prod-autopatch-talos-v1-10-5"
    }
  }
  expect "39m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  # The halting operation completed (a person resumed it): the halt ends.
  expect "40m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.haltedOperation" = null
      "spec.autoPatch.acknowledgedHalt"  = "fleet/prod-autopatch-talos-v1-10-5"
    }
  }
  # Never retried: one operation per cluster, prod's still Paused.
  expect "45m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Paused" }
  }
  expect "45m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 2
    }
    writes {
      kind     = "IchorInstallation"
      identity = "statecraft"
      verb     = "update"
      count    = 0
    }
    writes {
      kind     = "IchorInstallation"
      identity = "statecraft"
      verb     = "patch"
      count    = 0
    }
    writes {
      verb     = "create"
      kind     = "Event"
      identity = "statecraft"
      count    = 4
    }
  }
}
