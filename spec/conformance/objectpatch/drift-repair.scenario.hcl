# OP-61, OP-65, OP-66, OP-67, OP-68, OP-69, OP-71, OP-74, OP-75, OP-76, OP-81,
# OP-45, OP-62, OP-63: with spec.drift set but empty (defaults: retryInterval
# 5m, retryAmount 3, the seed example's values), each
# drift is counted and repaired at its deadline; the delays of one streak
# are 5, 10 and 20 minutes; a fourth drift exhausts the budget (Error,
# DriftRetryLimitExceeded, Drifted=True) and polling stops until the spec
# changes.
scenario "drift repair with backoff until the budget is spent" {
  rules   = ["objectpatch"]
  run_for = "3h"
  objects = ["namespace.yaml", "deployment.yaml", "drift-defaults-patch.yaml"]

  at "7m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  # Found at the 10m observation: first repair due 5m later.
  expect "11m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.outcome"                    = "Failure"
      "status.driftRetryCount"            = 1
      "status.nextDriftRetryTime"         = "2026-01-01T00:15:00Z"
      "status.conditions[Drifted].status" = "True"
    }
  }
  # OP-66: while a deadline is pending the target is not read at all: the
  # second streak's deadline is 10 minutes off, and the read count does not
  # move between just after the drift is found and just before the deadline.
  expect "20m30s" {
    reads {
      verb  = "get"
      kind  = "Deployment"
      count = 5
    }
  }
  expect "29m30s" {
    reads {
      verb  = "get"
      kind  = "Deployment"
      count = 5
    }
  }
  # Not repaired before the deadline.
  expect "14m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone-else" }
  }
  # Repaired at the deadline; deadline cleared, count kept.
  expect "16m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.driftRetryCount"            = 1
      "status.nextDriftRetryTime"         = null
      "status.lastAppliedTime"            = "2026-01-01T00:15:00Z"
      "status.conditions[Drifted].status" = "False"
    }
  }
  expect "16m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  # Drift again inside the stabilization window: same streak, 10m delay.
  at "17m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "21m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.driftRetryCount"    = 2
      "status.nextDriftRetryTime" = "2026-01-01T00:30:00Z"
    }
  }
  expect "31m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = {
      "status.driftRetryCount"    = 2
      "status.nextDriftRetryTime" = null
      "status.lastAppliedTime"    = "2026-01-01T00:30:00Z"
    }
  }
  # Third drift: 20m delay.
  at "32m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "36m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.driftRetryCount"    = 3
      "status.nextDriftRetryTime" = "2026-01-01T00:55:00Z"
    }
  }
  expect "56m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = {
      "status.driftRetryCount" = 3
      "status.lastAppliedTime" = "2026-01-01T00:55:00Z"
    }
  }
  # Fourth drift: the budget of 3 repairs is spent.
  at "57m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "61m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Error"
    reason = "DriftRetryLimitExceeded"
    fields = {
      "status.outcome"                    = "Failure"
      "status.driftRetryCount"            = 3
      "status.conditions[Drifted].status" = "True"
      "status.conditions[Ready].status"   = "False"
    }
  }
  # Polling stopped: no more repairs, no more status writes.
  expect "2h" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone-else" }
  }
  expect "2h" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 4
    }
    writes {
      verb  = "status"
      kind  = "ObjectPatch"
      count = 8
    }
  }
  # A spec edit starts a new cycle with a fresh drift budget.
  at "2h10m" {
    patch "ObjectPatch/patches-demo/deployment-patch" {
      merge = { spec = { requeueInterval = "10m" } }
    }
  }
  expect "2h11m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.observedGeneration" = 2
      "status.driftRetryCount"    = 0
      "status.lastAppliedTime"    = "2026-01-01T02:10:00Z"
    }
  }
}
