# OP-124 after the patch was applied: a target whose API is no longer
# served is an UnsupportedTarget, from Applied and from NeedsUpdate alike.
# repairing's target drifts at 1m (found at 5m, repair due at 10m);
# resting is Applied. The ClusterAutoscaler API is removed at 6m: resting's
# next check, at 10m, and repairing's deadline, at 10m, report Error,
# UnsupportedTarget, repairing without its deadline.
scenario "the target's API is removed after apply" {
  rules   = ["objectpatch"]
  run_for = "15m"
  objects = ["clusterautoscaler-crd.yaml", "clusterautoscaler.yaml", "api-removed.yaml"]

  at "1m" {
    patch "ClusterAutoscaler/default" {
      merge = { metadata = { labels = { managed-by = "someone" } } }
    }
  }
  expect "5m" {
    object = "ClusterObjectPatch/repairing"
    state  = "NeedsUpdate"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  expect "5m" {
    object = "ClusterObjectPatch/resting"
    state  = "Applied"
  }
  at "6m" {
    delete = ["CustomResourceDefinition/clusterautoscalers.autoscaling.openshift.io"]
  }
  expect "10m" {
    object = "ClusterObjectPatch/resting"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
  expect "10m" {
    object = "ClusterObjectPatch/repairing"
    state  = "Error"
    reason = "UnsupportedTarget"
    fields = { "status.nextDriftRetryTime" = null }
  }
}
