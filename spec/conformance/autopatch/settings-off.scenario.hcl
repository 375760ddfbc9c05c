# AP-01 AP-02 AP-04 AP-06 AP-07 AP-10 AP-12 AP-38: off by default. With no
# spec.autoPatch and the chart's defaults (--auto-patch=false, all
# components, any time) nothing is read but the installation and nothing is
# written but status.effective. Turning it on (kubectl patch, the
# equivalent of `ichor settings set autoPatch.enabled=true`; components
# written as an empty list, which means all three) leaves a SettingsChanged
# Event and the next decision starts a patch.
scenario "off by default, then turned on" {
  rules   = ["executor.hcl"]
  run_for = "20m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-off.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "10m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { enabled = true, components = [] } } }
    }
  }

  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    fields = {
      "status.effective.autoPatch"                = false
      "status.effective.autoPatchComponents"      = ["talos", "cilium", "kubernetes"]
      "status.effective.autoPatchWindow"          = ""
      "status.conditions[AutoPatchHalted].status" = "False"
      "status.autoPatch"                          = null
    }
  }
  # The patcher ticks every minute while off (the installation read at 0s,
  # 1m, ... 9m: ten gets), and each tick returns after reading the settings:
  # no cluster, operation or Lease is listed, nothing is written but the
  # installation's status.
  expect "9m" {
    reads {
      verb  = "get"
      kind  = "IchorInstallation"
      count = 10
    }
    reads {
      kind  = "TalosCluster"
      count = 0
    }
    reads {
      kind  = "TalosOperation"
      count = 0
    }
    reads {
      kind  = "Lease"
      count = 0
    }
    writes {
      identity = "statecraft"
      kind     = "TalosOperation"
      count    = 0
    }
    writes {
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 0
    }
    writes {
      kind  = "Event"
      count = 0
    }
  }
  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.effective.autoPatch"           = true
      "status.effective.autoPatchComponents" = ["talos", "cilium", "kubernetes"]
      "status.autoPatch.lastOperation"       = "fleet/prod-autopatch-talos-v1-10-5"
    }
  }
  expect "10m" {
    writes {
      verb     = "create"
      kind     = "Event"
      identity = "statecraft"
      count    = 2
    }
  }
  expect "10m" {
    object = "Event/ichor-system/ichor.settingschanged.1767226200"
    fields = {
      "type"           = "Normal"
      "reason"         = "SettingsChanged"
      "regarding.kind" = "IchorInstallation"
      "note"           = "auto-patch: true, components: talos,cilium,kubernetes, window: any time"
    }
  }
}
