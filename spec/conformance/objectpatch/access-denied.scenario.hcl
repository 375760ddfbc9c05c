# OP-97, OP-105, OP-106: without get on the target the patch gives Error,
# TargetAccessDenied, Ready=False (Forbidden); an Unauthorized patch request
# gives the same. Restoring access alone starts nothing; the reapply
# annotation or a spec edit starts a new cycle.
scenario "target access denied" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "report-only-patch.yaml", "access-denied-extra.yaml"]

  deny {
    verb = "get"
    kind = "Deployment"
  }
  deny {
    verb   = "patch"
    kind   = "ConfigMap"
    status = "Unauthorized"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Error"
    reason = "TargetAccessDenied"
    fields = {
      "status.outcome"                  = "Failure"
      "status.conditions[Ready].status" = "False"
      "status.conditions[Ready].reason" = "TargetAccessDenied"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/settings-patch"
    state  = "Error"
    reason = "TargetAccessDenied"
    fields = { "status.lastAttemptTime" = "2026-01-01T00:00:00Z" }
  }
  at "10m" {
    allow_all = true
  }
  expect "20m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Error"
    reason = "TargetAccessDenied"
  }
  expect "20m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      count    = 0
    }
  }
  at "21m" {
    patch "ObjectPatch/patches-demo/report-only" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "22m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
  }
  at "23m" {
    patch "ObjectPatch/patches-demo/settings-patch" {
      merge = { spec = { patch = { data = { mode = "fastest" } } } }
    }
  }
  expect "24m" {
    object = "ObjectPatch/patches-demo/settings-patch"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.observedGeneration" = 2 }
  }
  expect "24m" {
    object = "ConfigMap/patches-demo/settings"
    fields = { "data.mode" = "fastest" }
  }
}
