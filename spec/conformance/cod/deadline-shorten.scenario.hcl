# The budget is re-measured from the COS's original creationTimestamp:
# shortening it below the elapsed time (30 -> 10 at minute 12) expires it
# at once; removing the field disables enforcement, including after expiry,
# and without a deadline the rollout keeps Progressing=True.
scenario "deadline: shorten, then remove" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "2h"
  objects = ["deploy-cod.yaml"]

  at "1m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { progressDeadlineMinutes = 30 } }
    }
  }
  # The edit changes no report; the conditions follow the generation.
  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = {
      "metadata.generation"                               = 2
      "status.conditions[Progressing].observedGeneration" = 2
      "status.conditions[Available].observedGeneration"   = 2
      "status.conditions[Progressing].lastTransitionTime" = "2026-01-01T00:00:00Z"
    }
  }
  expect "11m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
  }

  at "12m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { progressDeadlineMinutes = 10 } }
    }
  }
  expect "12m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
    fields = { "status.conditions[Progressing].lastTransitionTime" = "2026-01-01T00:12:00Z", "status.conditions[Progressing].observedGeneration" = 3, "status.conditions[Available].observedGeneration" = 3 }
  }

  at "15m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { progressDeadlineMinutes = null } }
    }
  }
  expect "15m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = { "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressing", "status.conditions[Progressing].status" = "True" }
  }
  expect "2h" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = { "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressing", "status.latestRevision" = 1 }
  }
}
