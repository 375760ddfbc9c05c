# AP-09: --settings-read-only ignores the whole spec.autoPatch settings
# group: spec.autoPatch.enabled is true, the flag --auto-patch is false, and
# the effective setting is off; nothing is read or started. Its components
# (talos) and window (02:00-05:00) are ignored too: the effective ones are
# the flags' (unset: all three, any time).
scenario "settings read-only ignores spec.autoPatch" {
  rules   = ["executor.hcl"]
  run_for = "10m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-read-only.yaml", "prod.yaml"]

  rule "autopatch" {
    params = { settings_read_only = true, tick_jitter = "0s" } # ticks on the minute (see tick-jitter)
  }

  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    fields = {
      "spec.autoPatch.enabled"               = true
      "status.effective.autoPatch"           = false
      "status.effective.autoPatchComponents" = ["talos", "cilium", "kubernetes"]
      "status.effective.autoPatchWindow"     = ""
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
