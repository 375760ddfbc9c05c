# AP-33 AP-84 (guard 5's lock, the hold): each guard holds a cluster back
# on its own. prod's only obstacle is its cluster lock, edge's the hold on
# its one approved machine (a cluster of one approved machine opts out as a
# larger one does: hold). Nothing starts, and the reason is the first of
# the guards in the order the policy gives (ClusterLocked before
# MachinesHeld); once the lock is released at 3m prod starts, edge never.
scenario "guard 5 and the hold, each alone" {
  rules   = ["executor.hcl"]
  run_for = "5m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-alone.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "3m" {
    as = "ichor-executor"
    patch "Lease/fleet/prod-lock" {
      merge = { spec = { holderIdentity = null } }
    }
  }

  expect "2m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "ClusterLocked"
    fields = { "status.autoPatch.blocked" = "fleet/edge MachinesHeld, fleet/prod ClusterLocked" }
  }
  expect "2m" {
    writes {
      kind  = "TalosOperation"
      count = 0
    }
    writes {
      kind  = "TalosCluster"
      count = 0
    }
  }
  expect "3m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "OperationUnfinished"
    fields = { "status.autoPatch.blocked" = "fleet/edge MachinesHeld, fleet/prod OperationUnfinished" }
  }
  expect "5m" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    absent = true
  }
}
