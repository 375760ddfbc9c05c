# The seed's first example, with the Deployment created only 12 minutes after
# the ObjectPatch: the patch waits in Pending (TargetNotFound), checks again
# every requeueInterval (5m), and applies once the target exists.
scenario "target appears after 12 minutes" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment-patch.yaml"]

  at "12m" {
    create = ["deployment.yaml"]
  }

  expect "1m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Pending"
    reason = "TargetNotFound"
    fields = {
      "status.outcome"                  = null
      "status.conditions[Ready].status" = "False"
    }
  }

  expect "16m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.outcome"                  = "Success"
      "status.observedGeneration"       = 1
      "status.lastAppliedTime"          = "2026-01-01T00:15:00Z"
      "status.conditions[Ready].status" = "True"
      "status.conditions[Ready].reason" = "Applied"
    }
  }

  expect "16m" {
    object = "Deployment/patches-demo/application"
    fields = {
      "metadata.labels.managed-by" = "kubex"
      "metadata.labels.app"        = "application"
    }
  }
}
