# OP-87, OP-69, OP-72, OP-66: target read errors are no verdict on drift.
# spec.drift with its defaults (retryInterval 5m, stabilizationWindow 15m).
# The label drifts at 1m, found at 5m: repair due at 10m. Every get of the
# target fails from 9m to 12m: at the deadline the patch cannot tell
# whether the target still differs, so it neither repairs nor gives up: it
# stays NeedsUpdate, Drifted, its deadline kept, until a read succeeds
# (12m), then repairs. Repaired at 12m, the streak (driftRetryCount 1) ends
# after clean observations through stabilizationWindow: the 27m one fails
# (reads fail from 26m to 28m), which is not a clean observation, so the
# count stays 1 until the next clean one, at 32m.
scenario "drift: target read errors are not observations" {
  rules   = ["objectpatch"]
  run_for = "35m"
  objects = ["namespace.yaml", "deployment.yaml", "drift-defaults-patch.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  at "9m" {
    fault {
      verb    = "get"
      kind    = "Deployment"
      outcome = "transient"
      rate    = 1
    }
  }
  expect "11m59s" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.driftRetryCount"    = 1
      "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z"
      "status.retryCount"         = 0
    }
  }
  expect "11m59s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone-else" }
  }
  at "12m" {
    clear_faults = true
  }
  expect "12m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.driftRetryCount"    = 1
      "status.nextDriftRetryTime" = null
      "status.lastAppliedTime"    = "2026-01-01T00:12:00Z"
    }
  }
  expect "12m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  at "26m" {
    fault {
      verb    = "get"
      kind    = "Deployment"
      outcome = "transient"
      rate    = 1
    }
  }
  at "28m" {
    clear_faults = true
  }
  expect "31m59s" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 1 }
  }
  expect "32m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 0 }
  }
}
