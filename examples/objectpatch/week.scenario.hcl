# A week in the life of the seed's deployment-patch (spec.drift on: repairs
# wait 5m, 10m, 20m; three clean 5-minute checks end a streak):
#   day 0  applied; someone relabels the Deployment twice an hour apart,
#          each drift repaired after its backoff
#   day 1  the API server fails the next two patches: the repair retries
#          after 10s, then 20s, and succeeds
#   day 2  the engine loses its patch permission during a drift: the
#          repair is denied, Error/TargetAccessDenied; a person restores
#          the permission and sets the reapply annotation: Applied again
#   day 4  the Deployment is deleted (TargetMissing) and re-created an hour
#          later: the patch is applied again
#   every day at 09:00 a release pipeline re-applies the Deployment without
#          the label (drift), and the streak repairs it
scenario "a week with drift, faults and an access denial" {
  rules   = ["objectpatch"]
  run_for = "7d"
  objects = ["namespace.yaml", "deployment.yaml", "deployment-patch.yaml"]

  # The daily release pipeline drops the label.
  every "1d" {
    from = "9h"
    as   = "release-pipeline"
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = null } } }
    }
  }

  # Day 1, just after the pipeline's change: the API server fails the next
  # two patches of the Deployment (the repair's dry run, twice).
  at "1d9h1m" {
    fault {
      verb     = "patch"
      kind     = "Deployment"
      at_calls = [1, 2]
      outcome  = "transient"
    }
  }

  # Day 2: the engine's patch permission is revoked, then restored.
  at "2d8h" {
    deny {
      verb = "patch"
      kind = "Deployment"
    }
  }
  at "2d12h" {
    allow_all = true
    as        = "platform-admin"
    patch "ObjectPatch/patches-demo/deployment-patch" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }

  # Day 4: the Deployment is deleted and re-created.
  at "4d14h" {
    as     = "platform-admin"
    delete = ["Deployment/patches-demo/application"]
  }
  at "4d15h" {
    as     = "platform-admin"
    create = ["deployment.yaml"]
  }

  expect "1h" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
  }
  expect "9h1m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = { "status.driftRetryCount" = 1, "status.conditions[Drifted].status" = "True" }
  }
  expect "10h" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 0 }
  }
  expect "10h" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  expect "1d9h5m20s" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 2 }
  }
  expect "1d12h" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "status.retryCount" = 0 }
  }
  expect "2d11h" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Error"
    reason = "TargetAccessDenied"
    fields = { "status.conditions[Ready].status" = "False" }
  }
  expect "2d13h" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "metadata.annotations" = null }
  }
  expect "4d14h30m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "TargetMissing"
  }
  expect "4d16h" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
  }
  expect "7d" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "status.outcome" = "Success" }
  }
  expect "7d" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "release-pipeline"
      count    = 7
    }
  }
}
