# AP-48 AP-66 AP-67: a half-start's halt ends, like a paused operation's,
# when a later manual upgrade of its cluster completes. As half-start,
# prod's version is written at 0s and its operation cannot be created in
# three tries: halted at 20s (the halt's time). A manual Talos upgrade of
# prod that completed before the scenario started clears nothing; another
# manual Talos upgrade of prod (a kind of manual operation halt-ends and
# halt-ends-cni do not show), started at 1m, completes at 6m and ends the
# halt at the next tick (6m20s).
scenario "half-start: the halt ends by a later manual upgrade" {
  rules   = ["executor.hcl"]
  run_for = "8m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml", "prod-manual-talos-done.yaml"]

  # Ticks on the minute (see tick-jitter).
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # The API server fails the live creates (the first matching call is the
  # dry run).
  fault {
    verb     = "create"
    kind     = "TalosOperation"
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    at_calls = [2, 3, 4]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  at "1m" {
    as     = "alice"
    create = ["prod-manual-talos-late.yaml"]
  }

  expect "20s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "OperationNotCreated"
    fields = {
      "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.haltedCluster"   = "fleet/prod"
    }
  }
  expect "6m" {
    object = "TalosOperation/fleet/prod-manual-talos-late"
    fields = { "status.phase" = "Completed" }
  }
  expect "6m19s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "OperationNotCreated"
  }
  expect "6m20s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.haltedOperation"          = null
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
}
