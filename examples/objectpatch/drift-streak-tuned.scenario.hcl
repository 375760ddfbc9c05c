# The same world as drift-streak.scenario.hcl, run through a tuned copy of
# the policy (drift_backoff_cap = 10m). The traces are identical until the
# third drift: its repair waits 10 minutes (due at 45m) instead of 20 (55m).
scenario "drift streak, backoff capped at 10m (tuned policy)" {
  rule "objectpatch" {
    # A tuned policy: the drift repair delay is capped at 10 minutes
    # instead of 24 hours.
    params = { drift_backoff_cap = "10m" }
  }
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "deployment-patch.yaml"]

  at "7m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  at "17m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
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
      "status.nextDriftRetryTime" = "2026-01-01T00:45:00Z"
    }
  }
}
