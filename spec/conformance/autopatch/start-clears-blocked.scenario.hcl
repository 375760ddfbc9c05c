# AP-36 AP-48: status.autoPatch.blocked says why each cluster waits, and
# only while nothing starts. As guard-recent: at 0s both clusters were
# started recently (blocked names both); at 1m prod's start is decided and
# its first create fails, so the patcher waits in Starting for the retry
# (10s): blocked is cleared with the decision, not left naming the guard
# that no longer holds prod. The retry creates the operation.
scenario "a decided start clears autoPatch.blocked" {
  rules   = ["executor.hcl"]
  run_for = "2m"
  objects = ["namespaces.yaml", "../../crds/ichor.maesh.dev_talosclusters.yaml", "../../crds/ichor.maesh.dev_talosoperations.yaml", "installation-recent.yaml", "fleet-recent.yaml"]

  rule "autopatch" {
    params = { tick_jitter = "0s" }
  }

  # prod's first live create (the first matching call is its dry run).
  fault {
    verb     = "create"
    kind     = "TalosOperation"
    identity = "system:serviceaccount:ichor-system:ichor-auto-patch"
    at_calls = [2]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "0s" {
    object = "IchorInstallation/ichor-system/ichor"
    reason = "RecentlyStarted"
    fields = { "status.autoPatch.blocked" = "fleet/edge RecentlyStarted, fleet/prod RecentlyStarted" }
  }
  expect "1m" {
    object = "IchorInstallation/ichor-system/ichor"
    state  = "Starting"
    reason = "OperationNotCreated"
    fields = { "status.autoPatch.blocked" = null }
  }
  expect "1m10s" {
    object = "TalosOperation/fleet/prod-autopatch-talos-v1-10-5"
    fields = { "status.phase" = "Running" }
  }
}
