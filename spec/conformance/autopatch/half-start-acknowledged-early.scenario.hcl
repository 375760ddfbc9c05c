# AP-48 AP-53 AP-58: a half-start acknowledged before it halts. prod's start
# writes the version and the API server fails the operation's creates; at
# 15s, between the second and the third try, alice writes the name the
# start recorded (status.autoPatch.starting) into
# spec.autoPatch.acknowledgedHalt. Her write wakes the patcher, whose third
# try fails at once: the patcher halts, announces the halt with its Warning Event (the half-start is not
# left unseen, section 4), and the acknowledgement, which names the halted
# operation, ends it in the same reconcile.
scenario "half-start acknowledged before the halt" {
  rules   = ["executor.hcl"]
  run_for = "30s"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-halt.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # Call 1 is the dry run.
  fault {
    verb     = "create"
    kind     = "TalosOperation"
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    at_calls = [2, 3, 4]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  at "15s" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/prod-autopatch-talos-v1-10-5" } } }
    }
  }

  expect "14s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Starting"
    fields = { "status.autoPatch.starting.operation.metadata.name" = "prod-autopatch-talos-v1-10-5" }
  }
  expect "15s" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.prod-autopatch-talos-v1-10-5"
    fields = {
      "type"   = "Warning"
      "reason" = "AutoPatchHalted"
      "note"   = "the version of fleet/prod was written but fleet/prod-autopatch-talos-v1-10-5 could not be created in 3 tries: etcdserver: request timed out"
    }
  }
  expect "15s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = {
      "status.autoPatch.haltedOperation"          = null
      "status.autoPatch.announced"                = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.acknowledged"             = ["fleet/prod-autopatch-talos-v1-10-5"]
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
}
