# AP-41: a start decided but not yet written is given up when the cluster
# changed in between. At 0s the patcher decides prod's Talos patch
# v1.10.2 → v1.10.5 (the dry run, state Starting); the list of clusters of
# the next reconcile fails, so the version is not written yet (Starting
# rechecks after create_retry_delay, 10s). At 5s a person sets prod's
# spec.talosVersion to v1.10.6, neither the version decided on nor the one
# it was decided from: at 10s the start is abandoned (VersionChanged), the
# person's edit is kept and no Talos operation is created. Kubernetes, the
# next component, starts in the same reconcile from the cluster as it now
# is.
scenario "start abandoned: the version changed after the decision" {
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
    as = "alice"
    patch "TalosCluster/fleet/prod" {
      merge = { spec = { talosVersion = "v1.10.6" } }
    }
  }

  expect "5s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Starting"
    reason = "StartDecided"
    fields = {
      "status.autoPatch.starting.from"            = "v1.10.2"
      "status.autoPatch.starting.to"              = "v1.10.5"
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
  expect "10s" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"      = "v1.10.6"
      "spec.kubernetesVersion" = "v1.32.6"
    }
  }
  expect "10s" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "10s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.lastOperation" = "fleet/prod-autopatch-kubernetes-v1-32-6"
      "status.autoPatch.starting"      = null
    }
  }
  # One version write (Kubernetes'), two operations dry-run (Talos and
  # Kubernetes), one created.
  expect "10s" {
    writes {
      verb     = "update"
      kind     = "TalosCluster"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 1
    }
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = true
      count    = 2
    }
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = false
      count    = 1
    }
  }
}
