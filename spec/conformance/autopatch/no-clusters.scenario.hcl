# AP-89: with no TalosCluster at all the patcher waits with reason
# NoClusters and reports no per-cluster verdict (status.autoPatch.blocked
# is absent: there is no cluster to name). prod is created at 1m30s (a
# create carries no status, so no machine of it is reported Ready): the
# next tick (2m) names it in status.autoPatch.blocked.
scenario "no clusters, then one" {
  rules   = ["executor.hcl"]
  run_for = "3m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml"]

  # Ticks on the minute (see tick-jitter).
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "1m30s" {
    create = ["prod.yaml"]
  }

  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "NoClusters"
    fields = {
      "status.autoPatch"                          = null
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
  expect "1m59s" {
    writes {
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 0
    }
  }
  expect "2m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "MachinesNotReady"
    fields = { "status.autoPatch.blocked" = "fleet/prod MachinesNotReady" }
  }
}
