# AP-15 AP-16 (the "reported if it still arrives" half; the CRD's pattern
# and enum are tested in library/upgrade_test.go): a malformed
# window that got past the CRD is reported as InvalidSettings and nothing
# starts; a corrected window turns the patcher on; an unknown component is
# reported the same way and the patcher stops.
scenario "a malformed window is reported, never used" {
  rules   = ["executor.hcl"]
  run_for = "10m"
  objects = ["relaxed-installation-crd.yaml", "namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-badwindow.yaml", "prod.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "5m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { window = "00:00-23:59" } } }
    }
  }

  at "8m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { components = ["talos", "flannel"] } } }
    }
  }

  expect "4m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    reason = "InvalidSettings"
    fields = {
      "status.message"                   = "spec.autoPatch.window 25:00-02:00 is not a daily UTC window HH:MM-HH:MM"
      "status.effective.autoPatchWindow" = "25:00-02:00"
    }
  }
  # Off with its settings invalid, the patcher reads nothing but the
  # installation (AP-38).
  expect "4m" {
    writes {
      kind  = "TalosCluster"
      count = 0
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
  }
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = { "status.autoPatch.lastOperation" = "fleet/prod-autopatch-talos-v1-10-5" }
  }
  expect "8m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Off"
    reason = "InvalidSettings"
    fields = { "status.message" = "spec.autoPatch.components holds an unknown component: flannel" }
  }
  expect "10m" {
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 1
    }
  }
}
