# AP-30 (guard 4): release lists that do not say when they were checked
# (status.upgradeTargets without checkedAt) cannot be known to be younger
# than 48 hours: nothing starts, reason ReleaseListsMissing, until the
# release check writes checkedAt at 2m30s; that write wakes the patcher and
# the patch starts then.
scenario "guard 4: release lists without checkedAt" {
  rules   = ["executor.hcl"]
  run_for = "5m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-unchecked.yaml", "prod.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "2m30s" {
    as = "ichor-release-check"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-01-01T00:02:30Z" } }
    }
  }

  expect "2m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "ReleaseListsMissing"
  }
  expect "2m" {
    writes {
      kind  = "TalosOperation"
      count = 0
    }
  }
  expect "3m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
}
