# OP-52, OP-53, OP-54: an applied target that disappears gives NeedsUpdate,
# TargetMissing; when it reappears it is patched again. A deletion and
# recreation between two checks is not detected as missing (the recreated
# object is merely seen as drifted).
scenario "applied target disappears and returns" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "report-only-patch.yaml"]

  at "6m" {
    delete = ["Deployment/patches-demo/application"]
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "NeedsUpdate"
    reason = "TargetMissing"
    fields = {
      "status.outcome"                  = "Failure"
      "status.conditions[Ready].status" = "False"
    }
  }
  at "17m" {
    create = ["deployment.yaml"]
  }
  expect "21m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.lastAppliedTime" = "2026-01-01T00:20:00Z" }
  }
  expect "21m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  # Deleted at 22m and recreated at 23m, between the 20m and 25m checks.
  at "22m" {
    delete = ["Deployment/patches-demo/application"]
  }
  at "23m" {
    create = ["deployment.yaml"]
  }
  expect "26m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "NeedsUpdate"
    reason = "Drifted"
  }
}
