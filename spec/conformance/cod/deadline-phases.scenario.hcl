# One budget for the whole revision: the rollout polls on and the deadline
# expires at minute 5 from the COS's creation; the first phase completing
# at minute 6 (the second is applied then) does not clear it. A new template at minute 8 creates revision 2 with a fresh
# budget: Progressing=True until minute 13, expired then. Revision 1,
# whose objects revision 2 took over before it completed, is superseded.
scenario "deadline: one budget per revision" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "15m"
  objects = ["two-phase-cod.yaml"]

  expect "1m" {
    object = "Deployment/default/app"
    absent = true
  }

  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
  }
  expect "5m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }

  at "6m" {
    patch "Deployment/default/db" {
      status = {
        observedGeneration = 1
        replicas           = 1
        updatedReplicas    = 1
        readyReplicas      = 1
        availableReplicas  = 1
        conditions         = [{ type = "Available", status = "True" }]
      }
    }
  }
  expect "6m" {
    object = "ClusterObjectSet/web-1"
    state  = "RollingOut"
    fields = { "status.activePhase" = "application" }
  }
  expect "6m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }

  at "8m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { metadata = { labels = { attempt = "2" } } } } }
    }
  }
  expect "12m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = { "status.latestRevision" = 2, "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressing" }
  }
  # Revision 1 never completed and its objects moved on to revision 2: it
  # is superseded, not Ready.
  expect "10m" {
    object = "ClusterObjectSet/web-1"
    reason = "Superseded"
    fields = { "status.completedAt" = null, "status.conditions[Ready].status" = "False" }
  }
  expect "13m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
    fields = { "status.conditions[Progressing].message" = "ClusterObjectSet web-2 has not completed within 5 minute(s) of its creation; see its Ready condition" }
  }
}
