# The seed example with spec.drift: another actor undoes the label three
# times; each repair waits 5, 10, then 20 minutes (the shipped policy).
# Compare with drift-streak-tuned.scenario.hcl.
scenario "drift streak with the shipped policy" {
  rules   = ["objectpatch"]
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
      "status.nextDriftRetryTime" = "2026-01-01T00:55:00Z"
    }
  }
}
