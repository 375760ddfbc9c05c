# What a patch request's outcome leads to. gone-between: the target is read,
# then its (dry-run) patch is answered NotFound: Pending, TargetNotFound,
# lastAttemptTime recorded, and the next attempt requeueInterval (5m) later,
# not a quick retry. unsupported-patch: its patch is answered that the kind
# is not served: Error, UnsupportedTarget, lastAttemptTime recorded. The
# reapply annotation on unsupported-patch at 1m is not accepted at first
# (patching the annotation away fails): Error, ReapplyNotAccepted, tried
# again requeueInterval later; at 6m it is accepted and the new cycle
# applies the patch. target-later waits for its ConfigMap, created at 2m,
# and patches it at its next look, at 5m.
scenario "patch outcomes NotFound and unsupported, and a reapply not accepted" {
  rules   = ["objectpatch"]
  run_for = "30m"
  objects = ["namespace.yaml", "deployment.yaml", "patch-outcomes.yaml"]

  fault {
    verb     = "patch"
    kind     = "Deployment"
    at_calls = [1]
    outcome  = "not_found"
  }
  fault {
    verb     = "patch"
    kind     = "ServiceAccount"
    at_calls = [1]
    outcome  = "unsupported"
  }

  expect "0s" {
    object = "ObjectPatch/patches-demo/gone-between"
    state  = "Pending"
    reason = "TargetNotFound"
    fields = { "status.lastAttemptTime" = "2026-01-01T00:00:00Z", "status.retryCount" = 0 }
  }
  expect "4m59s" {
    object = "ObjectPatch/patches-demo/gone-between"
    state  = "Pending"
    reason = "TargetNotFound"
  }
  expect "4m59s" {
    writes {
      verb  = "patch"
      kind  = "Deployment"
      count = 1
    }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/gone-between"
    state  = "Applied"
    fields = { "status.lastAttemptTime" = "2026-01-01T00:05:00Z" }
  }

  expect "0s" {
    object = "ObjectPatch/patches-demo/unsupported-patch"
    state  = "Error"
    reason = "UnsupportedTarget"
    fields = { "status.lastAttemptTime" = "2026-01-01T00:00:00Z" }
  }

  at "1m" {
    patch "ObjectPatch/patches-demo/unsupported-patch" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
    # The third patch of an ObjectPatch from now: after the scenario's own
    # and the engine's status write that accepts the cycle, the engine's
    # patch that clears the annotation.
    fault {
      verb     = "patch"
      kind     = "ObjectPatch"
      at_calls = [3]
      outcome  = "transient"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/unsupported-patch"
    state  = "Error"
    reason = "ReapplyNotAccepted"
  }
  expect "5m59s" {
    object = "ObjectPatch/patches-demo/unsupported-patch"
    state  = "Error"
    reason = "ReapplyNotAccepted"
    fields = { "metadata.annotations.automation\\.kubex\\.ai/apply-patch" = "true" }
  }
  expect "6m" {
    object = "ObjectPatch/patches-demo/unsupported-patch"
    state  = "Applied"
    fields = { "metadata.annotations.automation\\.kubex\\.ai/apply-patch" = null }
  }
  expect "6m" {
    object = "ServiceAccount/patches-demo/runner"
    fields = { "metadata.labels.tier" = "web" }
  }

  # Without drift there is no streak to end: 25 minutes after it was
  # applied, gone-between still has no message (no streak ended).
  expect "30m" {
    object = "ObjectPatch/patches-demo/gone-between"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.message" = null, "status.driftRetryCount" = 0 }
  }

  # target-later's ConfigMap appears at 2m; the patch looks for it every
  # requeueInterval (5m), so it is patched at 5m, not before.
  at "2m" {
    create = ["later-configmap.yaml"]
  }
  expect "4m59s" {
    object = "ObjectPatch/patches-demo/target-later"
    state  = "Pending"
    reason = "TargetNotFound"
  }
  expect "4m59s" {
    object = "ConfigMap/patches-demo/later"
    fields = { "data.mode" = "old" }
  }
  expect "5m" {
    object = "ConfigMap/patches-demo/later"
    fields = { "data.mode" = "new" }
  }
}
