# AP-58 AP-60 AP-61: two acknowledged halts, then the first one's patch
# decided again. As in two-halts: alpha's and beta's automatic operations
# fail at 2m, alice acknowledges alpha's at 5m and beta's at 8m, and the
# machine remembers both in status.autoPatch.acknowledged. bob deletes
# alpha's paused operation at 10m and puts alpha's version back: the 10m
# tick decides the same patch again, under a name of its own (the old one
# is a remembered acknowledged halt, though acknowledgedHalt names beta's:
# the start's time, 1767226200, as a suffix). It fails at 12m and halts the
# patcher. Under the old name the remembered acknowledgement would keep it
# from ever halting.
scenario "two halts, the first one's patch decided again" {
  rules   = ["executor.hcl"]
  run_for = "14m"
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
  at "10m" {
    as     = "bob"
    delete = ["TalosOperation/fleet/alpha-autopatch-talos-v1-10-5"]
    patch "TalosCluster/fleet/alpha" {
      merge = { spec = { talosVersion = "v1.10.2" } }
    }
  }
  at "12m" {
    patch "TalosOperation/fleet/alpha-autopatch-talos-v1-10-5-1767226200" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "node cp-1 did not come back again" } } }
    }
  }

  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.acknowledged"   = ["fleet/alpha-autopatch-talos-v1-10-5", "fleet/beta-autopatch-talos-v1-10-5"]
      "status.autoPatch.announced"      = "fleet/beta-autopatch-talos-v1-10-5"
      "spec.autoPatch.acknowledgedHalt" = "fleet/beta-autopatch-talos-v1-10-5"
    }
  }
  expect "10m" {
    object = "TalosOperation/fleet/alpha-autopatch-talos-v1-10-5-1767226200"
    fields = { "status.phase" = "Running" }
  }
  expect "11m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
  }
  expect "13m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/alpha-autopatch-talos-v1-10-5-1767226200" }
  }
  expect "13m" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.alpha-autopatch-talos-v1-10-5-1767226200"
    fields = { "type" = "Warning", "reason" = "AutoPatchHalted" }
  }
}
