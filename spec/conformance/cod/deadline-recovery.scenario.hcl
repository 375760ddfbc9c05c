# Reconciliation continues after expiry: the Deployment becomes ready at
# minute 14, four minutes past the deadline; the COS records completedAt
# and the COD reports NewClusterObjectSetProgressed.
scenario "deadline: completion after expiry" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["deploy-cod.yaml"]

  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }

  at "14m" {
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
  expect "14m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.conditions[Progressing].status" = "False"
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed"
      "status.conditions[Available].reason"   = "Available"
    }
  }
  expect "14m" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:14:00Z" }
  }
}
