# AP-30 AP-88 (guard 4): the release lists must exist and be younger
# than 48 hours. Checked exactly 48 hours ago: stale, nothing starts. The
# release check's status write at 10m says it checked at 2025-12-30T00:11,
# 47 hours 59 minutes before: fresh, Talos starts (both sides of the
# boundary, a minute apart: a maximum age of 47 hours or of 24 hours keeps
# it stale and nothing starts; one of 49 hours starts at once). The check is
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
      status = { upgradeTargets = { checkedAt = "2025-12-30T00:11:00Z" } }
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
  expect "0s" {
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
  # At 11m the lists checked at 00:11 two days before are 48 hours old:
  # stale again.
  expect "11m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "ReleaseListsStale"
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
