# AP-48 AP-58 AP-60: a half-start of the same patch decided again is a
# halt of its own. prod's automatic Talos operation fails at 2m and halts
# the patcher; alice acknowledges it at 5m. bob deletes the paused
# operation at 6m and puts prod's version back; the 6m tick decides the
# same patch again, under a name of its own (the start's time, 1767225960,
# as a suffix: the old name is the acknowledged one), writes the version,
# and the API server fails the operation's three creates. That halt,
# OperationNotCreated, names the new operation: the old acknowledgement
# does not end it, and its Warning Event is a new one. alice acknowledges it
# at 10m. Before the fix the new start took the old name, the
# acknowledgement ended the halt the moment it began, and the Warning
# Event's create was answered AlreadyExists.
scenario "half-start of the same patch decided again" {
  rules   = ["executor.hcl"]
  run_for = "11m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-halt.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # Calls 1 and 2 are the first start's dry run and create, 3 the second
  # start's dry run.
  fault {
    verb     = "create"
    kind     = "TalosOperation"
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    at_calls = [4, 5, 6]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  at "2m" {
    patch "TalosOperation/fleet/prod-autopatch-talos-v1-10-5" {
      merge = { metadata = { annotations = { "sim.ichor.maesh.dev/fail" = "node cp-1 did not come back" } } }
    }
  }
  at "5m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/prod-autopatch-talos-v1-10-5" } } }
    }
  }
  at "6m" {
    as     = "bob"
    delete = ["TalosOperation/fleet/prod-autopatch-talos-v1-10-5"]
    patch "TalosCluster/fleet/prod" {
      merge = { spec = { talosVersion = "v1.10.2" } }
    }
  }
  at "10m" {
    as = "alice"
    patch "IchorInstallation/ichor-system/ichor" {
      merge = { spec = { autoPatch = { acknowledgedHalt = "fleet/prod-autopatch-talos-v1-10-5-1767225960" } } }
    }
  }

  expect "6m20s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
    reason = "OperationNotCreated"
    fields = {
      "status.message"                   = "the version of fleet/prod was written but fleet/prod-autopatch-talos-v1-10-5-1767225960 could not be created in 3 tries: etcdserver: request timed out"
      "status.autoPatch.haltedOperation" = "fleet/prod-autopatch-talos-v1-10-5-1767225960"
      "status.autoPatch.announced"       = "fleet/prod-autopatch-talos-v1-10-5-1767225960"
      "spec.autoPatch.acknowledgedHalt"  = "fleet/prod-autopatch-talos-v1-10-5"
    }
  }
  expect "6m20s" {
    object = "TalosCluster/fleet/prod"
    fields = { "spec.talosVersion" = "v1.10.5" }
  }
  expect "6m20s" {
    object = "Event/ichor-system/ichor.autopatchhalted.fleet.prod-autopatch-talos-v1-10-5-1767225960"
    fields = {
      "type"   = "Warning"
      "reason" = "AutoPatchHalted"
    }
  }
  expect "9m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Halted"
  }
  expect "10m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    fields = { "status.autoPatch.haltedOperation" = null }
  }
  expect "11m" {
    writes {
      verb     = "create"
      kind     = "Event"
      identity = "statecraft"
      count    = 3
    }
  }
}
