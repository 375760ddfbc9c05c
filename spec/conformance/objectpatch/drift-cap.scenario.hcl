# OP-63, OP-67: drift.retryAmount 0 allows unlimited automatic repairs; the
# delay doubles within a streak (10h, 20h) and is capped at 24 hours (not
# 40h, 80h).
scenario "drift repair delay capped at 24 hours, unlimited repairs" {
  rules   = ["objectpatch"]
  run_for = "2d12h"
  objects = ["namespace.yaml", "deployment.yaml", "drift-cap-patch.yaml"]

  # Another actor keeps undoing the label every 30 minutes.
  every "1h" {
    from = "30m"
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "1h1m" {
    object = "ObjectPatch/patches-demo/capped"
    state  = "NeedsUpdate"
    fields = {
      "status.driftRetryCount"    = 1
      "status.nextDriftRetryTime" = "2026-01-01T11:00:00Z"
    }
  }
  expect "12h1m" {
    object = "ObjectPatch/patches-demo/capped"
    state  = "NeedsUpdate"
    fields = {
      "status.driftRetryCount"    = 2
      "status.nextDriftRetryTime" = "2026-01-02T08:00:00Z"
    }
  }
  expect "1d9h1m" {
    object = "ObjectPatch/patches-demo/capped"
    state  = "NeedsUpdate"
    fields = {
      "status.driftRetryCount"    = 3
      "status.nextDriftRetryTime" = "2026-01-03T09:00:00Z"
    }
  }
  expect "2d10h1m" {
    object = "ObjectPatch/patches-demo/capped"
    state  = "NeedsUpdate"
    fields = {
      "status.driftRetryCount"    = 4
      "status.nextDriftRetryTime" = "2026-01-04T10:00:00Z"
    }
  }
}
