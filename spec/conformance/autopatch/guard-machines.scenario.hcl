# AP-34 AP-35 (guard 6): the cluster has approved machines and every one is
# Ready; a pending configuration change is not Ready. Each cluster starts in
# the minute its machines come right.
scenario "guard 6: approved machines, all Ready" {
  rules   = ["executor.hcl"]
  run_for = "16m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-machines.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "5m" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/prod" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }, { name = "worker-1", approved = true, ready = true }] }
    }
  }
  at "10m" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/edge" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true, configPending = false }] }
    }
  }
  at "15m" {
    as = "ichor-cluster-controller"
    patch "TalosCluster/fleet/lab" {
      status = { machines = [{ name = "cp-1", approved = true, ready = true }, { name = "spare-1", approved = false, ready = false }] }
    }
  }

  expect "4m" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "MachinesNotReady"
    fields = { "status.autoPatch.blocked" = "fleet/edge MachinesNotReady, fleet/lab MachinesNotReady, fleet/prod MachinesNotReady" }
  }
  expect "4m" {
    writes {
      kind  = "TalosOperation"
      count = 0
    }
  }
  expect "5m" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  expect "9m" {
    object = "TalosCluster/fleet/edge"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "10m" {
    object = "TalosCluster/fleet/edge"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  expect "14m" {
    object = "TalosCluster/fleet/lab"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "15m" {
    object = "TalosCluster/fleet/lab"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
}
