# AP-58 AP-60 AP-61 AP-64: the acknowledged halts the patcher remembers are
# those whose operations are still paused. As two-halts: automatic Talos
# operations on alpha and beta fail at 2m, the patcher halts on alpha's,
# alice acknowledges it at 5m and beta's halts the patcher. At 6m bob
# resumes alpha's operation (running again, no longer paused). alice
# acknowledges beta's halt at 8m: the halt ends and status.autoPatch.
# acknowledged holds beta's operation only (alpha's, running, is not
# paused any more, so it is forgotten; a new halt of it would need a new
# acknowledgement).
scenario "two halts, the first one's operation resumed before the second acknowledgement" {
  rules   = ["executor.hcl"]
  run_for = "10m"
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
  at "6m" {
    as = "bob"
    patch "TalosOperation/fleet/alpha-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "ichor.maesh.dev/resume" = "true" } } }
    }
  }
  at "8m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/beta-autopatch-talos-v1-10-5" } } }
    }
  }

  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/beta-autopatch-talos-v1-10-5"
      "status.autoPatch.acknowledged"    = ["fleet/alpha-autopatch-talos-v1-10-5"]
    }
  }
  expect "7m" {
    object = "TalosOperation/fleet/alpha-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "8m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.haltedOperation" = null
      "status.autoPatch.acknowledged"    = ["fleet/beta-autopatch-talos-v1-10-5"]
    }
  }
  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
  }
}
