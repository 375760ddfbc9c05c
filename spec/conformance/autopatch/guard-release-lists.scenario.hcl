# AP-30 AP-88 (guard 4): the release lists must exist and be younger
# than 48 hours. Checked exactly 48 hours ago: stale, nothing starts. The
# release check runs at 10m (its status write): Talos starts. The check is
# turned off at 15m and clears status.upgradeTargets: when the Talos
# operation completes at 20m the Kubernetes patch does not start.
scenario "guard 4: release lists present and fresh" {
  rules   = ["executor.hcl"]
  run_for = "30m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-stale.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "10m" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-01-01T00:10:00Z" } }
    }
  }
  at "15m" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = null }
    }
  }

  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "ReleaseListsStale"
  }
  expect "9m" {
    writes {
      kind  = "TalosOperation"
      count = 0
    }
  }
  expect "10m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "30m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "ReleaseListsMissing"
    fields = { "status.upgradeTargets" = null }
  }
  expect "30m" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.kubernetesVersion" = "v1.32.3" }
  }
  expect "30m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 1
    }
  }
}
