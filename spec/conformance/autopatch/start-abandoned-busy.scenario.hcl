# AP-31 AP-23: a start decided but not yet written is given up when another
# operation of the cluster appears in between. As start-abandoned: at 0s the
# patcher decides prod's Talos patch and the next reconcile's list of
# clusters fails (Starting rechecks after 10s). At 5s a person starts a
# manual Kubernetes upgrade of prod; prod's versions are unchanged, but
# guard 5 no longer holds: at 10s the start is abandoned, no version is
# written and no second operation is created on prod.
scenario "start abandoned: another operation of the cluster after the decision" {
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
    create = ["prod-manual-kubernetes.yaml"]
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
  expect "1m" {
    writes {
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 0
    }
  }
}
