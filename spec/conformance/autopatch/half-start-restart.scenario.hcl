# AP-39 AP-41 AP-48 (the start finished by the reconcile after): the
# version written and the operation created, but the status write that
# records it fails (the API server times out), so the next reconcile finds
# the start still in progress (Starting) with its version written and its
# operation there. It finishes the start without writing anything again:
# the version is not sent a second time (written once), the create answered
# AlreadyExists is the operation it decided on (not a failed create, not
# another operation of the cluster holding it), so it records the start
# (AutoPatchStarted, lastOperation, guard 7's record) and never halts.
scenario "half-start: the start's record lost, finished by the next reconcile" {
  rules   = ["executor.hcl"]
  run_for = "3m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "prod.yaml"]

  # Ticks on the minute (see tick-jitter).
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # The second status write (a merge patch of the status subresource): the
  # one after the version and the operation.
  fault {
    verb     = "patch"
    kind     = "IchorInstallation"
    at_calls = [2]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = {
      "status.autoPatch.lastOperation"            = "fleet/prod-autopatch-talos-v1-10-5"
      "status.autoPatch.starting"                 = null
      "status.autoPatch.haltedOperation"          = null
      "status.conditions[AutoPatchHalted].status" = "False"
    }
  }
  expect "3m" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
  expect "3m" {
    writes {
      verb  = "update"
      kind  = "TalosCluster"
      count = 1
    }
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      count   = 2
    }
    writes {
      verb    = "create"
      kind    = "TalosOperation"
      dry_run = false
      outcome = "conflict"
      count   = 1
    }
  }
}
