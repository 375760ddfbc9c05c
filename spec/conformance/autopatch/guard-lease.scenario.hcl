# AP-33 (guard 5, the cluster lock): a Lease is held when it names a holder
# and has not run out (renewTime, else acquireTime, plus
# leaseDurationSeconds); one that names a holder and gives no duration is
# held until released. Each is the rule file's decision (`locked` in
# autopatch.hcl) over upgrade.leaseExpiry's fact. edge's Lease names no
# holder: edge starts at once. prod's runs out at 2m: prod is locked at
# 1m and starts at 2m. lab's has no duration: lab stays locked until the
# holder releases it at 10m (holderIdentity removed), and starts then.
scenario "guard 5: when a cluster Lease is held" {
  rules   = ["executor.hcl"]
  run_for = "12m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-lease.yaml"]

  # Ticks on the minute, so that guard timings read exactly; the shipped
  # jitter is shown by tick-jitter.scenario.hcl.
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "10m" {
    as = "ichor-executor"
    patch "Lease/fleet/lab-lock" {
      merge = { spec = { holderIdentity = null } }
    }
  }

  expect "0s" {
    object = "TalosOperation/fleet/edge-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "1m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    fields = { "status.autoPatch.blocked" = "fleet/edge OperationUnfinished, fleet/lab ClusterLocked, fleet/prod ClusterLocked" }
  }
  expect "2m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "9m59s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = { "status.autoPatch.blocked" = "fleet/edge OperationUnfinished, fleet/lab ClusterLocked, fleet/prod OperationUnfinished" }
  }
  expect "9m59s" {
    object = "TalosOperation/fleet/lab-autopatch-talos-v1-10-5"
    absent = true
  }
  expect "10m" {
    object = "TalosOperation/fleet/lab-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
}
