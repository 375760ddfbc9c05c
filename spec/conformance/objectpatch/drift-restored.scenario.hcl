# OP-70, OP-71, OP-72, OP-73, OP-82: another actor restores the target before
# the repair deadline: at the deadline no patch request is sent, the deadline
# is cleared and the count kept. Three clean five-minute observations
# through the 15m stabilization window then reset the count.
scenario "drift restored by another actor, then stabilization" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "deployment-patch.yaml"]

  at "7m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.driftRetryCount"    = 1
      "status.nextDriftRetryTime" = "2026-01-01T00:15:00Z"
    }
  }
  at "12m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "kubex" } } }
    }
  }
  expect "16m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.driftRetryCount"            = 1
      "status.nextDriftRetryTime"         = null
      "status.lastAppliedTime"            = "2026-01-01T00:00:00Z"
      "status.conditions[Drifted].status" = "False"
    }
  }
  # Only the first apply was ever sent.
  expect "16m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      count    = 2
    }
  }
  # Clean observations at 20m and 25m: still in the window.
  expect "29m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = {
      "status.driftRetryCount"    = 1
      "status.nextDriftRetryTime" = null
    }
  }
  # The third clean observation, at 30m, ends the streak.
  expect "31m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.driftRetryCount"    = 0
      "status.nextDriftRetryTime" = null
    }
  }
  # A new drift starts a new streak: first delay 5m again.
  at "33m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "36m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    fields = {
      "status.driftRetryCount"    = 1
      "status.nextDriftRetryTime" = "2026-01-01T00:40:00Z"
    }
  }
}
