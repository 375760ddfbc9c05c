# OP-93, OP-65, OP-82, OP-128: the reapply annotation ends a pending drift
# repair. spec.drift with its defaults: the label drifts at 1m, found at
# 5m, repair due at 10m. At 6m the annotation is set while admission
# refuses live patches of the Deployment: the new cycle ends in Error,
# LivePatchRejected, and nothing of the drift repair's deadline is left
# (a terminal Error has no next read).
scenario "reapply during a drift wait, then a rejected patch" {
  rules   = ["objectpatch"]
  run_for = "11m"
  objects = ["namespace.yaml", "deployment.yaml", "drift-defaults-patch.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  at "6m" {
    reject {
      verb    = "patch"
      kind    = "Deployment"
      dry_run = "never"
    }
    patch "ObjectPatch/patches-demo/deployment-patch" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "6m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Error"
    reason = "LivePatchRejected"
    fields = {
      "status.nextDriftRetryTime" = null
      "status.driftRetryCount"    = 0
    }
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Error"
    reason = "LivePatchRejected"
    fields = { "status.nextDriftRetryTime" = null }
  }
}
