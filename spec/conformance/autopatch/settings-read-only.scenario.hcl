# AP-09: --settings-read-only ignores the whole spec.autoPatch settings
# group: spec.autoPatch.enabled is true, the flag --auto-patch is false, and
# the effective setting is off; nothing is read or started.
scenario "settings read-only ignores spec.autoPatch" {
  rules   = ["executor.hcl"]
  run_for = "10m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  rule "autopatch" {
    params = { settings_read_only = true, tick_jitter = "0s" } # ticks on the minute (see tick-jitter)
  }

  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    fields = {
      "spec.autoPatch.enabled"     = true
      "status.effective.autoPatch" = false
    }
  }
  expect "10m" {
    reads {
      kind  = "TalosOperation"
      count = 0
    }
    writes {
      kind  = "TalosCluster"
      count = 0
    }
  }
}
