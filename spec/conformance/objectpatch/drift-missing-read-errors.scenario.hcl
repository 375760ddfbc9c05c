# OP-75, OP-87, OP-52, OP-53: DriftRetryLimitExceeded needs the target to
# have drifted again; a target that is missing, then unreadable, has not.
# drift.retryAmount 1: the label drifts at 1m, found at 5m, repaired at its
# 10m deadline, which spends the budget (driftRetryCount 1). The target is
# deleted at 12m: NeedsUpdate, TargetMissing at the 15m check. Every get
# fails from 16m to 22m: the 20m check reads nothing, and the patch stays
# NeedsUpdate, TargetMissing (not Error). The target is back at 22m: the
# 25m check starts a new apply cycle (OP-80: retryCount counts the
# retries of this cycle from 0), whose first patch request fails
# (transient): Pending, Retrying, retryCount 1; the retry 10s later
# applies it.
scenario "drift budget spent: a missing, unreadable target is not drift" {
  rules   = ["objectpatch"]
  run_for = "27m"
  objects = ["namespace.yaml", "deployment.yaml", "drift-once-patch.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 1 }
  }
  at "12m" {
    delete = ["Deployment/patches-demo/application"]
  }
  expect "15m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "TargetMissing"
    fields = { "status.driftRetryCount" = 1, "status.nextDriftRetryTime" = null }
  }
  at "16m" {
    fault {
      verb    = "get"
      kind    = "Deployment"
      outcome = "transient"
      rate    = 1
    }
  }
  expect "21m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "TargetMissing"
    fields = { "status.driftRetryCount" = 1 }
  }
  at "22m" {
    clear_faults = true
    create       = ["deployment.yaml"]
  }
  at "24m" {
    fault {
      verb     = "patch"
      kind     = "Deployment"
      outcome  = "transient"
      at_calls = [1]
    }
  }
  expect "25m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 1 }
  }
  expect "25m10s" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.retryCount" = 0 }
  }
  expect "25m10s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
}
