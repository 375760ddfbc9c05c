# AP-05 AP-29: a daily UTC window that wraps midnight, 23:00-01:00. The
# scenario starts at 22:50: nothing before 23:00, prod at 23:00; edge is
# Ready at 00:30 (after midnight, still inside) and starts at once; lab is
# Ready at 01:30 (outside) and waits until the window opens again at 23:00
# the next day.
scenario "a window across midnight" {
  rules   = ["executor.hcl"]
  start   = "2026-01-01T22:50:00Z"
  run_for = "1d1h"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-wrap.yaml", "fleet-wrap.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # The release check keeps the lists fresh (it runs every six hours).
  every "6h" {
    patch "IchorInstallation/ichor-system/ichor" {
      status = { upgradeTargets = { checkedAt = "2026-01-02T06:00:00Z" } }
    }
  }
  at "1h40m" {
    patch "TalosCluster/fleet/edge" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }] }
    }
  }
  at "2h40m" {
    patch "TalosCluster/fleet/lab" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }] }
    }
  }

  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "OutsideWindow"
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
  expect "1h40m" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "2h40m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "OutsideWindow"
  }
  expect "1d0h9m" {
    object = "TalosOperation/fleet/lab-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "1d0h10m" {
    object = "TalosOperation/fleet/lab-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
}
