# AP-49 AP-61: an acknowledgement written ahead, then the same patch decided
# again. edge's automatic operation is Paused when the patcher starts, and
# spec.autoPatch.acknowledgedHalt already names it: it never halts (as in
# halt-staged), so no halt announced it and none is remembered. bob deletes
# it at 2m and puts edge's version back: the 2m tick decides the same patch
# again, under a name of its own (the old one is the acknowledged one: the
# start's time, 1767225720, as a suffix). It fails at 4m and halts the
# patcher. Under the old name the acknowledgement would keep it from ever
# halting.
scenario "an acknowledgement written ahead, the same patch decided again" {
  rules   = ["executor.hcl"]
  run_for = "6m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-acknowledged.yaml", "fleet-acknowledged-ahead.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m" {
    as     = "bob"
    delete = ["TalosOperation/fleet/edge-autopatch-talos-v1-10-5"]
    patch "TalosCluster/fleet/edge" {
      merge = { spec = { talosVersion = "v1.10.2" } }
    }
  }
  at "4m" {
    patch "TalosOperation/fleet/edge-autopatch-talos-v1-10-5-1767225720" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "etcd member did not rejoin again" } } }
    }
  }

  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.announced"    = null
      "status.autoPatch.acknowledged" = null
    }
  }
  expect "2m" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5-1767225720"
    fields = { "status.phase" = "Running" }
  }
  expect "4m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
  }
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/edge-autopatch-talos-v1-10-5-1767225720" }
  }
}
