# AP-58 AP-60 AP-61 AP-68: two halts, each acknowledged, stay acknowledged.
# The first tick starts automatic Talos operations on alpha and beta; both
# fail at 2m (Paused). The next tick halts on alpha's. alice acknowledges it
# at 5m: that halt ends, and beta's paused operation halts the patcher
# again, naming beta's. alice acknowledges beta's at 8m: that halt ends too,
# and alpha's stays acknowledged although acknowledgedHalt now names beta's
# (the seed: "a later halt names another operation"; an acknowledgement
# ends its halt for good). Nothing halts again: the machine remembers the
# acknowledged halts in status.autoPatch.acknowledged while their
# operations stay paused. The paused operations still hold alpha and beta
# (guard 5), and when gamma becomes Ready at 12m its operation starts.
# Before the fix, acknowledging beta's halt halted the patcher again on
# alpha's, and it stayed halted until an operation was resumed or deleted.
scenario "two halts, both acknowledged" {
  rules   = ["executor.hcl"]
  run_for = "20m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-two-halts.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m" {
    patch "TalosOperation/fleet/alpha-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "node cp-1 did not come back" } } }
    }
    patch "TalosOperation/fleet/beta-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "etcd member did not rejoin" } } }
    }
  }
  at "5m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/alpha-autopatch-talos-v1-10-5" } } }
    }
  }
  at "8m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/beta-autopatch-talos-v1-10-5" } } }
    }
  }
  at "12m" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/gamma" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }] }
    }
  }

  expect "0s" {
    object = "TalosOperation/fleet/alpha-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "0s" {
    object = "TalosOperation/fleet/beta-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.autoPatch.haltedOperation"          = "fleet/alpha-autopatch-talos-v1-10-5"
      "status.conditions[AutoPatchHalted].status" = "True"
    }
  }
  # The first acknowledgement ends the halt on alpha's operation; beta's
  # halts the patcher at once.
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/beta-autopatch-talos-v1-10-5"
      "status.autoPatch.acknowledged"    = ["fleet/alpha-autopatch-talos-v1-10-5"]
    }
  }
  expect "5m" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.beta-autopatch-talos-v1-10-5"
    fields = { "type" = "Warning", "reason" = "AutoPatchHalted" }
  }
  expect "7m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  # The second acknowledgement ends the second halt; the first stays
  # acknowledged.
  expect "8m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.haltedOperation"          = null
      "status.autoPatch.acknowledged"             = ["fleet/alpha-autopatch-talos-v1-10-5", "fleet/beta-autopatch-talos-v1-10-5"]
      "status.conditions[AutoPatchHalted].status" = "False"
      "spec.autoPatch.acknowledgedHalt"           = "fleet/beta-autopatch-talos-v1-10-5"
    }
  }
  expect "11m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = { "status.autoPatch.blocked" = "fleet/alpha OperationUnfinished, fleet/beta OperationUnfinished, fleet/gamma MachinesNotReady" }
  }
  # Not halted: gamma starts once Ready; alpha and beta stay held by their
  # paused operations, which the patcher never retries.
  expect "12m" {
    object = "TalosOperation/fleet/gamma-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "20m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
  }
  expect "20m" {
    object = "TalosOperation/fleet/alpha-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Paused" }
  }
  expect "20m" {
    object = "TalosOperation/fleet/beta-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Paused" }
  }
  expect "20m" {
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 3
    }
  }
  expect "20m" {
    writes {
      verb  = "create"
      kind  = "Event"
      count = 5
    }
  }
}
