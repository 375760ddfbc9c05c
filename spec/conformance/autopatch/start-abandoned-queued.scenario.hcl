# AP-31 AP-23: as start-abandoned-busy, with the other operation of the
# cluster Pending (queued by the executor, no phase written yet) instead of Running: guard 5
# counts a pending operation as unfinished, at the decision and again
# before the version is written, so the start is abandoned at 10s.
scenario "start abandoned: another operation of the cluster, pending, after the decision" {
  rules   = ["executor.hcl"]
  run_for = "1m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  # Ticks on the minute (see tick-jitter).
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # The second list of clusters: the reconcile after the decision.
  fault {
    verb     = "list"
    kind     = "TalosCluster"
    at_calls = [2]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  at "5s" {
    as     = "alice"
    create = ["prod-manual-queued.yaml"]
  }

  expect "5s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Starting"
    reason = "StartDecided"
  }
  expect "10s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.starting" = null
      "status.autoPatch.blocked"  = "fleet/prod OperationUnfinished"
    }
  }
  expect "10s" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"      = "v1.10.2"
      "spec.kubernetesVersion" = "v1.32.3"
    }
  }
  expect "10s" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "10s" {
    object = "TalosOperation/fleet/prod-manual-kubernetes"
    # Queued: no phase written yet, which is Pending (the phase's default).
    fields = { "status.phase" = null }
  }
  expect "1m" {
    writes {
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 0
    }
  }
}
