# OP-56, OP-62, OP-64 (and defaults of OP-62, OP-63, OP-64): requeueInterval
# must be positive; drift.retryInterval positive and at most 24h;
# drift.stabilizationWindow positive. An invalid value is reported as
# InvalidSpec with the field named and the patch is not applied. An empty
# spec.drift takes the defaults (5m, 3, 15m).
scenario "invalid durations" {
  rules   = ["objectpatch"]
  run_for = "30m"
  objects = ["relaxed-crd.yaml", "namespace.yaml", "deployment.yaml", "invalid-params.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/zero-requeue"
    reason = "InvalidSpec"
    fields = { "status.message" = "spec.requeueInterval: 0s is not valid (value > duration('0s'))" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/long-drift-interval"
    reason = "InvalidSpec"
    fields = { "status.message" = "spec.drift.retryInterval: 25h0m0s is not valid (value > duration('0s') && value <= duration('24h'))" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/zero-drift-interval"
    reason = "InvalidSpec"
    fields = { "status.message" = "spec.drift.retryInterval: 0s is not valid (value > duration('0s') && value <= duration('24h'))" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/zero-window"
    reason = "InvalidSpec"
    fields = { "status.message" = "spec.drift.stabilizationWindow: 0s is not valid (value > duration('0s'))" }
  }
  expect "1m" {
    object = "Deployment/patches-demo/application"
    fields = {
      "metadata.labels.a" = null
      "metadata.labels.b" = null
      "metadata.labels.c" = null
      "metadata.labels.d" = null
      "metadata.labels.e" = "f"
    }
  }
  # Defaults: drift found at 10m, repair due 5m later (retryInterval 5m).
  at "7m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { e = "x" } } }
    }
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/drift-defaults"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.driftRetryCount"    = 1
      "status.nextDriftRetryTime" = "2026-01-01T00:15:00Z"
    }
  }
  # Stabilization ends three clean observations (15m) after the repair.
  expect "29m" {
    object = "ObjectPatch/patches-demo/drift-defaults"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 1 }
  }
  expect "30m" {
    object = "ObjectPatch/patches-demo/drift-defaults"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 0 }
  }
}
