# OP-65, OP-66: the repair happens at the deadline it announced, whatever
# the requeueInterval. Checked every 3 minutes, the patch finds the drift
# made at 1m at 3m; the repair is due 5 minutes later, at 8m (not at 6m or
# 9m, the next checks).
scenario "a drift is repaired at its deadline" {
  rules   = ["objectpatch"]
  run_for = "12m"
  objects = ["namespace.yaml", "deployment.yaml", "drift-deadline-patch.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone" } } }
    }
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/deadline"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.nextDriftRetryTime" = "2026-01-01T00:08:00Z"
      "status.message"            = "the target no longer matches the patch; repair 1 is due at 2026-01-01T00:08:00Z"
    }
  }
  expect "7m59s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone" }
  }
  expect "8m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  expect "8m" {
    object = "ObjectPatch/patches-demo/deadline"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 1, "status.nextDriftRetryTime" = null }
  }
}
