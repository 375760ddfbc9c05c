# OP-80, OP-88, OP-91, OP-92, OP-94: transient errors on patch requests
# consume retryAmount (default 3: four attempts in all); while retrying the
# patch is Pending, Retrying; exhaustion gives Error, RetryLimitExceeded and
# polling stops; the reapply annotation starts a new cycle.
scenario "transient patch errors exhaust the retry budget" {
  rules   = ["objectpatch"]
  run_for = "2h"
  objects = ["namespace.yaml", "deployment.yaml", "report-only-patch.yaml"]

  fault {
    verb    = "patch"
    kind    = "Deployment"
    outcome = "transient"
    rate    = 1
  }
  expect "5s" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Pending"
    reason = "Retrying"
    fields = {
      "status.retryCount"      = 1
      "status.outcome"         = null
      "status.lastAttemptTime" = "2026-01-01T00:00:00Z"
    }
  }
  expect "15s" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 2 }
  }
  expect "2m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Error"
    reason = "RetryLimitExceeded"
    fields = {
      "status.retryCount"               = 3
      "status.outcome"                  = "Failure"
      "status.conditions[Ready].status" = "False"
      "status.lastAttemptTime"          = "2026-01-01T00:01:10Z"
    }
  }
  expect "1h" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      count    = 4
    }
  }
  at "1h" {
    clear_faults = true
  }
  at "1h5m" {
    patch "ObjectPatch/patches-demo/report-only" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "1h6m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.retryCount"      = 0
      "status.lastAppliedTime" = "2026-01-01T01:05:00Z"
    }
  }
}
