# AP-49 AP-67: only a later manual upgrade of the same cluster keeps a
# paused automatic operation from halting. prod's automatic Talos operation
# is created at 0s. A manual Talos upgrade of prod completed before the
# scenario started (created at 0s too: not later); a manual CNI upgrade of
# edge, started at 30s, completes at 1m30s (later, but another cluster).
# prod's operation fails at 2m and the 3m tick halts the patcher on it;
# neither manual upgrade ends the halt (still halted at the 4m and 5m
# ticks: the halt's time is its operation's creation, and prod's completed
# manual upgrade is not later than that).
scenario "a manual upgrade of another cluster does not prevent a halt" {
  rules   = ["executor.hcl"]
  run_for = "5m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-halt-ends.yaml", "prod-manual-talos-done.yaml"]

  # Ticks on the minute (see tick-jitter).
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  at "30s" {
    as     = "alice"
    create = ["edge-manual-cni.yaml"]
  }
  at "2m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "upgrade of cp-1 timed out" } } }
    }
  }

  expect "1m30s" {
    object = "TalosOperation/fleet/edge-manual-cni"
    fields = { "status.phase" = "Completed" }
  }
  expect "2m59s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
  }
  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "AutoPatchHalted"
    fields = {
      "status.autoPatch.haltedOperation"          = "fleet/prod-autopatch-talos-v1-10-5"
      "status.conditions[AutoPatchHalted].status" = "True"
    }
  }
  expect "5m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    fields = { "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5" }
  }
}
