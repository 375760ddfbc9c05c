# OP-80, OP-93: a new apply cycle starts from a clean slate. exhausted
# spends its retries (RetryLimitExceeded, retryCount 3); the reapply
# annotation at 5m starts a cycle whose first attempt fails again: Retrying
# with retryCount 1, not RetryLimitExceeded at once. edited waits to repair
# drift (found at 5m, due at 10m) when its spec is edited at 7m; the new
# cycle's first attempt fails: Retrying, retryCount 1, and no repair
# deadline left behind.
scenario "a new cycle resets the retry count and the drift deadline" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["namespace.yaml", "deployment.yaml", "new-cycle.yaml"]

  fault {
    verb    = "patch"
    kind    = "ServiceAccount"
    outcome = "transient"
    rate    = 1
  }
  expect "4m" {
    object = "ObjectPatch/patches-demo/exhausted"
    state  = "Error"
    reason = "RetryLimitExceeded"
    fields = { "status.retryCount" = 3 }
  }
  at "5m" {
    patch "ObjectPatch/patches-demo/exhausted" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/exhausted"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 1 }
  }

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone" } } }
    }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/edited"
    state  = "NeedsUpdate"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  at "7m" {
    fault {
      verb     = "patch"
      kind     = "Deployment"
      at_calls = [2]
      outcome  = "transient"
    }
    patch "ObjectPatch/patches-demo/edited" {
      merge = { spec = { patch = { metadata = { labels = { managed-by = "kubex", tier = "web" } } } } }
    }
  }
  expect "7m" {
    object = "ObjectPatch/patches-demo/edited"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 1, "status.nextDriftRetryTime" = null, "status.driftRetryCount" = 0 }
  }
}
