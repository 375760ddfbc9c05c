# AP-36 (guard 7): nothing started by the patcher on a cluster in the last
# two minutes, by the operations listed (edge: an automatic operation
# created at 0s) and by the patcher's own record (prod: started at -1m, no
# operation visible: reads that have not caught up). prod starts at 1m,
# edge at 2m.
scenario "guard 7: no second start within two minutes" {
  rules   = ["executor.hcl"]
  run_for = "3m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-recent.yaml", "fleet-recent.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "RecentlyStarted"
    fields = { "status.autoPatch.blocked" = "fleet/edge RecentlyStarted, fleet/prod RecentlyStarted" }
  }
  expect "0s" {
    writes {
      kind  = "TalosCluster"
      count = 0
    }
  }
  expect "1m" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    fields = { "status.autoPatch.blocked" = "fleet/edge RecentlyStarted, fleet/prod OperationUnfinished" }
  }
  expect "2m" {
    object = "TalosCluster/fleet/edge"
    fields = { "spec.kubernetesVersion" = "v1.32.6" }
  }
}
