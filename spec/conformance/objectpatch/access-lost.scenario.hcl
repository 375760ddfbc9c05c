# OP-97, OP-105 after the patch was applied: a patch that can no longer read
# its target reports Error, TargetAccessDenied, from Applied and from
# NeedsUpdate alike. repairing drifts at 1m (found at 5m, repair due at
# 10m); from 9m its Deployment may not be read: at the deadline it is
# TargetAccessDenied, without the deadline (nextDriftRetryTime cleared).
# resting, Applied, may not read its ServiceAccount from 2m: its next
# check, at 5m, reports TargetAccessDenied. At 12m access is back and the
# reapply annotation starts a new cycle for repairing, with its drift
# count reset.
scenario "read access lost after apply" {
  rules   = ["objectpatch"]
  run_for = "20m"
  objects = ["namespace.yaml", "deployment.yaml", "access-lost.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone" } } }
    }
  }
  at "2m" {
    deny {
      verb = "get"
      kind = "ServiceAccount"
    }
  }
  expect "4m59s" {
    object = "ObjectPatch/patches-demo/resting"
    state  = "Applied"
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/resting"
    state  = "Error"
    reason = "TargetAccessDenied"
    fields = { "status.conditions[Ready].status" = "False", "status.proposal" = "FAILED" }
  }

  expect "5m" {
    object = "ObjectPatch/patches-demo/repairing"
    state  = "NeedsUpdate"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  at "9m" {
    deny {
      verb = "get"
      kind = "Deployment"
    }
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/repairing"
    state  = "Error"
    reason = "TargetAccessDenied"
    fields = { "status.nextDriftRetryTime" = null, "status.driftRetryCount" = 1 }
  }
  expect "11m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone" }
  }

  # Access comes back at 12m and repairing is given the reapply annotation:
  # a new cycle, with a new drift streak (driftRetryCount 0).
  at "12m" {
    allow_all = true
    patch "ObjectPatch/patches-demo/repairing" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "12m" {
    object = "ObjectPatch/patches-demo/repairing"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.driftRetryCount"                                   = 0
      "status.retryCount"                                        = 0
      "metadata.annotations.automation\\.kubex\\.ai/apply-patch" = null
    }
  }
  expect "12m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
}
