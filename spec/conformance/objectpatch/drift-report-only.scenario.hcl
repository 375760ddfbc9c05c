# OP-58, OP-59, OP-60, OP-93, OP-94, OP-95, OP-96: without spec.drift, drift
# is reported (NeedsUpdate, Drifted, Drifted=True) and never repaired until
# the reapply annotation, which authorizes exactly one cycle and is cleared
# when accepted.
scenario "drift without spec.drift is reported, repaired only on reapply" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "report-only-patch.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
  }
  at "7m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  # The next observation (requeueInterval after the apply) sees the drift.
  expect "9m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = {
      "status.outcome"                    = "Failure"
      "status.proposal"                   = "FAILED"
      "status.conditions[Drifted].status" = "True"
      "status.conditions[Drifted].reason" = "Drifted"
      "status.conditions[Ready].status"   = "False"
      "status.driftRetryCount"            = 0
      "status.nextDriftRetryTime"         = null
    }
  }
  # No repair, however long it stays drifted.
  expect "30m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone-else" }
  }
  expect "30m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 1
    }
  }
  at "31m" {
    patch "ObjectPatch/patches-demo/report-only" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "32m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "metadata.annotations"              = null
      "status.conditions[Drifted].status" = "False"
      "status.lastAppliedTime"            = "2026-01-01T00:31:00Z"
    }
  }
  expect "32m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  # The annotation was used up: a second drift is reported, not repaired.
  at "33m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone-else" } } }
    }
  }
  expect "45m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "NeedsUpdate"
    reason = "Drifted"
  }
  # Setting the annotation again authorizes one more cycle.
  at "50m" {
    patch "ObjectPatch/patches-demo/report-only" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "51m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
    fields = { "metadata.annotations" = null }
  }
  expect "59m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 3
    }
    writes {
      verb     = "patch"
      kind     = "ObjectPatch"
      identity = "statecraft"
      count    = 2
    }
  }
}
