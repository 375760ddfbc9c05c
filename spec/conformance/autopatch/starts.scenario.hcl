# AP-17 AP-18 AP-23 AP-24 AP-25 AP-39 AP-40 AP-42 AP-43 AP-44 AP-46 AP-47
# AP-69 AP-80 AP-81: a start, step by step. The dry run of the operation,
# the version written into the TalosCluster spec, the operation created,
# both writes as the delegated ServiceAccount, then the Normal Event
# AutoPatchStarted. Talos first (the newest final patch of its minor:
# v1.10.5, not v1.10.6-rc.1 nor the minor v1.11.0), then Kubernetes once
# the Talos operation completed, one component per decision.
scenario "start: talos then kubernetes, as ichor-auto-patch" {
  rules   = ["executor.hcl"]
  run_for = "30m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # The first decision: Talos only; the running operation then holds the
  # cluster (guard 5).
  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.lastOperation"            = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.started.fleet/prod"       = "2026-01-01T00:00:00Z"
      "status.autoPatch.blocked"                  = "fleet/prod OperationUnfinished"
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
  expect "0s" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"      = "v1.10.5"
      "spec.kubernetesVersion" = "v1.32.3"
      "spec.endpoint"          = "https://prod.fleet.example:6443"
      "spec.cni.preset"        = "cilium"
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = {
      "metadata.annotations.ichor\\.maesh\\.dev/auto-patch"   = "true"
      "metadata.annotations.ichor\\.maesh\\.dev/started-by"   = "ichor-auto-patch"
      "metadata.annotations.ichor\\.maesh\\.dev/from-version" = "v1.10.2"
      "spec.cluster"                                          = "prod"
      "spec.type"                                             = "talos"
      "spec.targetVersion"                                    = "v1.10.5"
      "status.phase"                                          = "Running"
    }
  }
  expect "0s" {
    object = "TalosOperation/fleet/prod-autopatch-kubernetes-v1-32-6"
    absent = true
  }
  expect "0s" {
    object = "Event/fleet/prod-autopatch-talos-v1-10-5.autopatchstarted"
    fields = {
      "type"           = "Normal"
      "reason"         = "AutoPatchStarted"
      "regarding.kind" = "TalosCluster"
      "regarding.name" = "prod"
      "related.name"   = "prod-autopatch-talos-v1-10-5"
    }
  }
  # Dry run first, then the version, then the operation: all three as
  # ichor-auto-patch; the engine's own account writes no TalosCluster.
  expect "0s" {
    writes {
      verb     = "create"
      kind     = "TalosOperation"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      dry_run  = true
      count    = 1
    }
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
      dry_run  = false
      count    = 1
    }
    writes {
      kind     = "TalosCluster"
      identity = "statecraft"
      count    = 0
    }
  }
  # While the Talos operation runs, nothing else starts on the cluster.
  expect "9m" {
    writes {
      kind    = "TalosOperation"
      verb    = "create"
      dry_run = false
      count   = 1
    }
  }
  # It completed at 10m; the same minute's decision picks Kubernetes.
  expect "10m" {
    object = "TalosCluster/fleet/prod"
    fields = {
      "spec.talosVersion"      = "v1.10.5"
      "spec.kubernetesVersion" = "v1.32.6"
    }
  }
  expect "10m" {
    object = "TalosOperation/fleet/prod-autopatch-kubernetes-v1-32-6"
    fields = {
      "spec.type"                                             = "kubernetes"
      "metadata.annotations.ichor\\.maesh\\.dev/from-version" = "v1.32.3"
      "metadata.annotations.ichor\\.maesh\\.dev/started-by"   = "ichor-auto-patch"
    }
  }
  # Both patches applied: nothing left to start.
  expect "30m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "NoCandidate"
    fields = {
      "status.autoPatch.lastOperation" = "fleet/prod-autopatch-kubernetes-v1-32-6"
      "status.autoPatch.blocked"       = "fleet/prod NoCandidate"
    }
  }
  expect "30m" {
    writes {
      verb     = "update"
      kind     = "TalosCluster"
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 2
    }
    writes {
      verb  = "patch"
      kind  = "TalosCluster"
      count = 0
    }
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
      count    = 2
    }
  }
}
