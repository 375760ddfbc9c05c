# AP-26: the patcher ticks every minute with jitter. The shipped policy
# rechecks every `tick` (1m) plus up to `tick_jitter` (6s), by an offset
# fixed by the installation's uid and the tick, so the ticks drift off the
# minute and are the same on every run (TestDeterministic runs the suite
# twice). The window opens at 02:00; the start comes at the first tick
# after it, not on the minute.
scenario "ticks every minute with jitter" {
  rules   = ["executor.hcl"]
  start   = "2026-01-01T01:50:00Z"
  run_for = "30m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-window.yaml", "prod.yaml"]

  rule "autopatch" {
    params = { auto_patch = true }
  }

  expect "10m" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.2" }
  }
  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OutsideWindow"
  }
  expect "12m" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  expect "12m" {
    object = "IchorInstallation/ichor-system/ichor"
    # Ten ticks after the start, 22s of jitter in all.
    fields = { "status.autoPatch.started.fleet/prod" = "2026-01-01T02:00:26Z" }
  }
  # The Talos operation completes at 02:10:26; the Kubernetes patch starts
  # at the tick after it, again off the minute.
  expect "30m" {
    object = "IchorInstallation/ichor-system/ichor"
    fields = {
      "status.autoPatch.started.fleet/prod" = "2026-01-01T02:10:48Z"
      "status.autoPatch.lastOperation"      = "fleet/prod-autopatch-kubernetes-v1-32-6"
    }
  }
}
