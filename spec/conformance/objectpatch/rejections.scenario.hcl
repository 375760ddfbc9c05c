# OP-127, OP-128, OP-129, OP-130: a dry-run refused by the API server gives
# PreflightRejected (nothing is sent live); a live patch refused gives
# LivePatchRejected; a patch accepted but whose result is not retained gives
# PatchNotApplied. After the cause is fixed, the reapply annotation or a spec
# edit starts another cycle.
scenario "API server rejections" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "rejections.yaml"]

  reject {
    verb    = "patch"
    kind    = "Deployment"
    message = "label managed-by is reserved"
    dry_run = "only"
  }
  reject {
    verb    = "patch"
    kind    = "StatefulSet"
    message = "statefulsets are frozen"
    dry_run = "never"
  }
  drop {
    verb = "patch"
    kind = "ConfigMap"
    path = "data.mode"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/preflight"
    state  = "Error"
    reason = "PreflightRejected"
    fields = {
      "status.outcome"                  = "Failure"
      "status.conditions[Ready].status" = "False"
      "status.message"                  = "admission webhook \"scenario reject\" denied the request: label managed-by is reserved"
      "status.lastAttemptTime"          = "2026-01-01T00:00:00Z"
    }
  }
  expect "1m" {
    writes {
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 0
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/live"
    state  = "Error"
    reason = "LivePatchRejected"
    fields = { "status.message" = "admission webhook \"scenario reject\" denied the request: statefulsets are frozen", "status.lastAttemptTime" = "2026-01-01T00:00:00Z" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/not-retained"
    state  = "Error"
    reason = "PatchNotApplied"
    fields = { "status.lastAppliedTime" = null, "status.lastAttemptTime" = "2026-01-01T00:00:00Z" }
  }
  # Terminal: nothing is retried.
  expect "30m" {
    writes {
      verb     = "patch"
      identity = "statecraft"
      count    = 5
    }
  }
  at "31m" {
    clear_admission = true
  }
  at "32m" {
    patch "ObjectPatch/patches-demo/preflight" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
    patch "ObjectPatch/patches-demo/live" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
    patch "ObjectPatch/patches-demo/not-retained" {
      merge = { spec = { patch = { data = { mode = "faster" } } } }
    }
  }
  expect "33m" {
    object = "ObjectPatch/patches-demo/preflight"
    state  = "Applied"
  }
  expect "33m" {
    object = "ObjectPatch/patches-demo/live"
    state  = "Applied"
  }
  expect "33m" {
    object = "ObjectPatch/patches-demo/not-retained"
    state  = "Applied"
  }
  expect "33m" {
    object = "ConfigMap/patches-demo/settings"
    fields = { "data.mode" = "faster" }
  }
}
