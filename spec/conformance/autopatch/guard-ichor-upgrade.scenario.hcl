# AP-28 (guard 2): no start while an Ichor upgrade is in progress
# (status.installedVersion is not spec.version); the installer finishing at
# 30m opens the gate and the patch starts in that minute.
scenario "guard 2: Ichor upgrade in progress" {
  rules   = ["executor.hcl"]
  run_for = "31m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-ichor-upgrading.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "30m" {
    as = "ichor-installer"
    patch "IchorInstallation/ichor-system/ichor" {
      status = { installedVersion = "1.4.0" }
    }
  }

  expect "29m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "IchorUpgradeInProgress"
    fields = { "status.message" = "status.installedVersion 1.3.9 is not spec.version 1.4.0" }
  }
  expect "29m" {
    writes {
      kind  = "TalosOperation"
      count = 0
    }
  }
  expect "30m" {
    object = "IchorInstallation/ichor-system/ichor"
    fields = { "status.autoPatch.lastOperation" = "fleet/prod-autopatch-talos-v1-10-5" }
  }
}
