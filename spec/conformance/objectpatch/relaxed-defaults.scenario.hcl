# OP-63, OP-64, OP-88 with no schema defaults (the relaxed CRD, as an older
# CRD would be): the policy's own defaults hold both ways, and a negative
# retryAmount or drift.retryAmount is InvalidSpec (0, unlimited, is valid:
# retry-unlimited, drift-cap).
# - default-retries: no retryAmount, every patch of its ServiceAccount
#   fails:
#   retryAmount 3, four attempts in all, then RetryLimitExceeded.
# - default-drift-budget: drift {} with requeueInterval 1m, its label
#   overwritten every 2 minutes: drift.retryAmount 3, three repairs (at 6m,
#   17m and 39m), and the fourth drift, found at 41m, is
#   DriftRetryLimitExceeded.
# - default-window: drift {} with requeueInterval 1m, one drift (edited at
#   1m30s, found at 2m), repaired at 7m: stabilizationWindow 15m, so
#   driftRetryCount is still 1 at the observation 14 minutes after the
#   repair and 0 at the one 15 minutes after.
scenario "param defaults without schema defaults" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["relaxed-crd.yaml", "namespace.yaml", "deployment.yaml", "relaxed-defaults.yaml"]

  fault {
    verb    = "patch"
    kind    = "ServiceAccount"
    outcome = "transient"
    rate    = 1
  }

  expect "1m" {
    object = "ObjectPatch/patches-demo/negative-retries"
    reason = "InvalidSpec"
    fields = { "status.message" = "spec.retryAmount: -1 is not valid (value >= 0)" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/negative-drift-retries"
    reason = "InvalidSpec"
    fields = { "status.message" = "spec.drift.retryAmount: -1 is not valid (value >= 0)" }
  }

  every "2m" {
    from = "1m"
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { tier = "edited" } } }
    }
  }
  at "1m30s" {
    patch "ConfigMap/patches-demo/cm-window" {
      merge = { data = { mode = "edited" } }
    }
  }

  expect "30m" {
    object = "ObjectPatch/patches-demo/default-retries"
    state  = "Error"
    reason = "RetryLimitExceeded"
    fields = { "status.retryCount" = 3 }
  }
  # Four attempts (each a dry run, refused), none after the last.
  expect "30m" {
    writes {
      verb  = "patch"
      kind  = "ServiceAccount"
      count = 4
    }
  }

  # Three repairs, then the budget is spent.
  expect "40m" {
    object = "ObjectPatch/patches-demo/default-drift-budget"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 3 }
  }
  expect "41m" {
    object = "ObjectPatch/patches-demo/default-drift-budget"
    state  = "Error"
    reason = "DriftRetryLimitExceeded"
    fields = { "status.driftRetryCount" = 3 }
  }
  expect "1h" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 4
    }
  }

  # Repaired at 7m; the streak ends 15 minutes later, not 14.
  expect "21m" {
    object = "ObjectPatch/patches-demo/default-window"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 1 }
  }
  expect "22m" {
    object = "ObjectPatch/patches-demo/default-window"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 0 }
  }
}
