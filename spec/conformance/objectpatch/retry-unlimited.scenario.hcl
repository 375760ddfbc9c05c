# OP-49, OP-89, OP-90: retryAmount 0 retries transient patch errors without
# limit (the delay grows to its 5m cap); the budget is independent of
# drift.retryAmount (1 here); the successful cycle resets retryCount to 0.
scenario "retryAmount 0 retries indefinitely" {
  rules   = ["objectpatch"]
  run_for = "2h"
  objects = ["namespace.yaml", "deployment.yaml", "unlimited-retry-patch.yaml"]

  fault {
    verb    = "patch"
    kind    = "Deployment"
    outcome = "transient"
    rate    = 1
  }
  expect "59m" {
    object = "ObjectPatch/patches-demo/unlimited"
    state  = "Pending"
    reason = "Retrying"
    fields = {
      "status.retryCount" = 16
      "status.outcome"    = null
    }
  }
  at "1h" {
    clear_faults = true
  }
  expect "1h6m" {
    object = "ObjectPatch/patches-demo/unlimited"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.retryCount"      = 0
      "status.driftRetryCount" = 0
    }
  }
}
