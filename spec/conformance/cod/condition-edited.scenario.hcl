# COD-51: the COD exposes Available and Progressing, as the revisions say.
# Another writer's edit of the Progressing condition alone (its status
# turned True and its message changed, with the top-level reason and
# message and the Available condition left as they were) is reported
# again at the next reconcile; an edit of Available's status alone is too,
# and so is an edit of Progressing's message beside another writer's
# condition that reads as the wanted Progressing but for its type.
scenario "an edited condition is reported again" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "7m"
  objects = ["web-cod.yaml"]

  expect "1m30s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.conditions[Progressing].status" = "False"
      "status.conditions[Available].status"   = "True"
    }
  }

  at "2m" {
    as = "someone"
    patch "ClusterObjectDeployment/web" {
      status = { conditions = [
        { type = "Progressing", status = "True", reason = "NewClusterObjectSetProgressed", message = "edited by hand", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
        { type = "Available", status = "True", reason = "Available", message = "ready: web-1", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
      ] }
    }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].reason"  = "NewClusterObjectSetProgressed"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-1 completed its rollout at 2026-01-01T00:00:00Z"
    }
  }

  at "4m" {
    as = "someone"
    patch "ClusterObjectDeployment/web" {
      status = { conditions = [
        { type = "Progressing", status = "False", reason = "NewClusterObjectSetProgressed", message = "ClusterObjectSet web-1 completed its rollout at 2026-01-01T00:00:00Z", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
        { type = "Available", status = "False", reason = "Available", message = "ready: web-1", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
      ] }
    }
  }
  expect "4m30s" {
    object = "ClusterObjectDeployment/web"
    fields = {
      "status.conditions[Available].status" = "True"
      "status.conditions[Available].reason" = "Available"
    }
  }

  at "5m" {
    as = "someone"
    patch "ClusterObjectDeployment/web" {
      status = { conditions = [
        { type = "Progressing", status = "False", reason = "NewClusterObjectSetProgressed", message = "edited by hand", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
        { type = "Available", status = "True", reason = "Available", message = "ready: web-1", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
        { type = "Mirrored", status = "False", reason = "NewClusterObjectSetProgressed", message = "ClusterObjectSet web-1 completed its rollout at 2026-01-01T00:00:00Z", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
      ] }
    }
  }
  expect "6m" {
    object = "ClusterObjectDeployment/web"
    fields = {
      "status.conditions[Progressing].message" = "ClusterObjectSet web-1 completed its rollout at 2026-01-01T00:00:00Z"
      "status.conditions[Mirrored].status"     = "False"
    }
  }
}
