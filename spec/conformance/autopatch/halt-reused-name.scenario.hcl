# AP-58 AP-60: an old acknowledgement does not clear a later halt, even of
# the same patch decided again. prod's automatic Talos operation fails at
# 2m and halts the patcher; alice acknowledges it at 5m. bob deletes the
# paused operation at 6m and puts prod's version back: the 6m tick decides
# the same patch again. Its operation is not named as the acknowledged one
# (the seed: "a later halt names another operation, so an old
# acknowledgement does not clear it"): the name gets the start's time,
# 1767225960 (2026-01-01T00:06:00Z in Unix seconds). It fails at 9m and
# halts the patcher, with a Warning Event of its own, until alice
# acknowledges it too at 14m. Before the fix the new operation took the old
# name, which spec.autoPatch.acknowledgedHalt still named, and its failure
# never halted anything.
scenario "a halt of the same patch decided again" {
  rules   = ["executor.hcl"]
  run_for = "16m"
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
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/prod-autopatch-talos-v1-10-5" } } }
    }
  }
  at "6m" {
    as     = "bob"
    delete = ["TalosOperation/fleet/prod-autopatch-talos-v1-10-5"]
    patch "TalosCluster/fleet/prod" {
      merge = { spec = { talosVersion = "v1.10.2" } }
    }
  }
  at "9m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5-1767225960" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "node cp-1 did not come back again" } } }
    }
  }
  at "14m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/prod-autopatch-talos-v1-10-5-1767225960" } } }
    }
  }

  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = { "status.autoPatch.acknowledged" = ["fleet/prod-autopatch-talos-v1-10-5"] }
  }
  expect "7m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "7m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5-1767225960"
    fields = {
      "spec.targetVersion" = "v1.10.5"
      "status.phase"       = "Running"
    }
  }
  expect "7m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = { "status.autoPatch.lastOperation" = "fleet/prod-autopatch-talos-v1-10-5-1767225960" }
  }
  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
  }
  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "AutoPatchHalted"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5-1767225960"
      "status.autoPatch.announced"       = "fleet/prod-autopatch-talos-v1-10-5-1767225960"
      "spec.autoPatch.acknowledgedHalt"  = "fleet/prod-autopatch-talos-v1-10-5"
    }
  }
  expect "10m" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.prod-autopatch-talos-v1-10-5-1767225960"
    fields = {
      "type"   = "Warning"
      "reason" = "AutoPatchHalted"
    }
  }
  expect "13m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  expect "14m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.haltedOperation" = null
      "status.autoPatch.acknowledged"    = ["fleet/prod-autopatch-talos-v1-10-5-1767225960"]
    }
  }
  expect "16m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 2
    }
    writes {
      verb     = "create"
      kind     = "Event"
      identity = "statecraft"
      count    = 4
    }
  }
}
