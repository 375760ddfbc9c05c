# AP-49 AP-51 AP-59: a halt ended by deletion, then the same patch decided
# again. prod's automatic Talos operation fails at 2m and halts the
# patcher; nobody acknowledges it. bob deletes it at 5m and puts prod's
# version back: the halt ends (HaltedOperationDeleted) and the 5m tick
# decides the same patch again, under a name of its own (the earlier halt
# announced the old one: the start's time, 1767225900, as a suffix). It
# fails at 7m: a new halt, announced with a Warning Event of its own.
# Under the old name the second halt would name what
# status.autoPatch.announced already held, and go unannounced.
scenario "a halt ended by deletion, the same patch decided again" {
  rules   = ["executor.hcl"]
  run_for = "9m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-halt.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "node cp-1 did not come back" } } }
    }
  }
  at "5m" {
    as     = "bob"
    delete = ["TalosOperation/fleet/prod-autopatch-talos-v1-10-5"]
    patch "TalosCluster/fleet/prod" {
      merge = { spec = { talosVersion = "v1.10.2" } }
    }
  }
  at "7m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5-1767225900" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "node cp-1 did not come back again" } } }
    }
  }

  expect "4m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.autoPatch.announced"      = "fleet/prod-autopatch-talos-v1-10-5"
      "spec.autoPatch.acknowledgedHalt" = null
    }
  }
  expect "5m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5-1767225900"
    fields = { "status.phase" = "Running" }
  }
  expect "6m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
  }
  expect "8m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5-1767225900"
      "status.autoPatch.announced"       = "fleet/prod-autopatch-talos-v1-10-5-1767225900"
    }
  }
  expect "8m" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.prod-autopatch-talos-v1-10-5-1767225900"
    fields = { "type" = "Warning", "reason" = "AutoPatchHalted" }
  }
}
