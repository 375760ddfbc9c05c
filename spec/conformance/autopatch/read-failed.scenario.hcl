# AP-31 AP-33: a failed read is not an empty one. Neither cluster may start
# (edge runs an operation, prod's Lease is held). The list of Leases fails
# at the 1m tick and the list of operations at the 2m tick: each tick waits
# with reason ReadFailed and starts nothing, where an empty list would have
# freed prod (no lock seen) or edge (no operation seen). The 3m tick reads
# all three lists again and both clusters are held as before; the list of
# clusters fails at the 4m tick. Each ReadFailed names the list that failed.
scenario "a failed list holds every cluster back" {
  rules   = ["executor.hcl"]
  run_for = "4m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation.yaml", "fleet-read-failed.yaml"]

  # Ticks on the minute (see tick-jitter).
  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  fault {
    verb     = "list"
    kind     = "Lease"
    at_calls = [2]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }
  fault {
    verb     = "list"
    kind     = "TalosCluster"
    at_calls = [5]
    outcome  = "transient"
    message  = "etcdserver: leader changed"
  }
  fault {
    verb     = "list"
    kind     = "TalosOperation"
    at_calls = [3]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = { "status.autoPatch.blocked" = "fleet/edge OperationUnfinished, fleet/prod ClusterLocked" }
  }
  # The message names the list that failed and what the server said.
  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "ReadFailed"
    fields = {
      "status.autoPatch.blocked" = null
      "status.message"           = "the list of Leases failed (transient): etcdserver: request timed out"
    }
  }
  expect "2m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "ReadFailed"
    fields = { "status.message" = "the list of TalosOperations failed (transient): etcdserver: request timed out" }
  }
  expect "3m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "OperationUnfinished"
    fields = { "status.autoPatch.blocked" = "fleet/edge OperationUnfinished, fleet/prod ClusterLocked" }
  }
  expect "4m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Active"
    reason = "ReadFailed"
    fields = { "status.message" = "the list of TalosClusters failed (transient): etcdserver: leader changed" }
  }
  expect "4m" {
    writes {
      identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
      count    = 0
    }
  }
}
