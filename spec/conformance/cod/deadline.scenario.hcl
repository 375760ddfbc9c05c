# progressDeadlineMinutes 10, measured from the COS's creationTimestamp.
# Nothing happens in the world before minute 10: the COD wakes itself at
# the deadline. The COS keeps its own Ready reason. Extending the budget
# clears ProgressDeadlineExceeded without progress and creates no revision;
# the Deployment then becomes ready and the revision completes. Completion is
# historical: a later regression makes the COD Unavailable but does not
# restart the rollout or its deadline.
scenario "deadline: expiry, extension, completion, regression" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "45m"
  objects = ["deploy-cod.yaml"]

  expect "9m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = {
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "NewClusterObjectSetProgressing"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-1 is rolling out; see its Ready condition"
      "status.conditions[Available].reason"    = "Unavailable"
    }
  }
  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
    fields = {
      "status.conditions[Progressing].status"             = "False"
      "status.conditions[Progressing].reason"             = "ProgressDeadlineExceeded"
      "status.conditions[Progressing].message"            = "ClusterObjectSet web-1 has not completed within 10 minute(s) of its creation; see its Ready condition"
      "status.conditions[Progressing].lastTransitionTime" = "2026-01-01T00:10:00Z"
    }
  }
  expect "10m" {
    object = "ClusterObjectSet/web-1"
    state  = "RollingOut"
    fields = {
      "status.conditions[Ready].status"  = "False"
      "status.conditions[Ready].reason"  = "RollingOut"
      "status.conditions[Ready].message" = "phase workload: Deployment default/web: status.updatedReplicas is unset, not 1"
      "spec.progressDeadlineMinutes"     = null
    }
  }

  at "15m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { progressDeadlineMinutes = 30 } }
    }
  }
  expect "15m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = { "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressing", "status.latestRevision" = 1 }
  }

  at "20m" {
    patch "Deployment/default/web" {
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
  expect "20m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed"
      "status.conditions[Available].reason"   = "Available"
    }
  }
  expect "20m" {
    object = "ClusterObjectSet/web-1"
    fields = { "status.completedAt" = "2026-01-01T00:20:00Z" }
  }

  at "25m" {
    patch "Deployment/default/web" {
      status = { conditions = [{ type = "Available", status = "False" }] }
    }
  }
  # Past the 30-minute budget, with the revision unhealthy.
  expect "40m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed"
      "status.conditions[Available].status"   = "False"
      "status.conditions[Available].reason"   = "Unavailable"
    }
  }
  expect "40m" {
    object = "ClusterObjectSet/web-1"
    fields = { "status.completedAt" = "2026-01-01T00:20:00Z", "status.conditions[Ready].status" = "False" }
  }
  expect "45m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
