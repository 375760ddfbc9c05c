# AP-82: the webhook checks the step again. While the admission webhook
# refuses the version write (here staged as a reject of TalosCluster
# updates), nothing is created, and the decision is taken again each minute
# from what the cluster holds; once the webhook admits the write, the
# patch starts. A refused dry run of the operation writes nothing at all.
scenario "admission refuses the version write, then the dry run" {
  rules   = ["executor.hcl"]
  run_for = "6m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  reject {
    verb    = "update"
    kind    = "TalosCluster"
    message = "ichor-auto-patch may only move spec.talosVersion or spec.kubernetesVersion to a newer patch of the same minor"
  }
  at "1m30s" {
    clear_admission = true
    reject {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = "only"
      message = "compatibility webhook: Talos v1.10.5 is not compatible with Kubernetes v1.32.3"
    }
  }
  at "3m30s" {
    clear_admission = true
  }

  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "VersionNotWritten"
    state  = "Active"
    fields = { "status.message" = "admission webhook \"scenario reject\" denied the request: ichor-auto-patch may only move spec.talosVersion or spec.kubernetesVersion to a newer patch of the same minor" }
  }
  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    fields = { "status.autoPatch.starting" = null }
  }
  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "StartRefused"
  }
  # The decision is taken again each minute, refused or not: dry runs at
  # 0s, 1m, 2m (refused) and 3m (refused).
  expect "3m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = true
      count   = 4
    }
  }
  expect "3m" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "3m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 0
    }
  }
  expect "4m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
}
