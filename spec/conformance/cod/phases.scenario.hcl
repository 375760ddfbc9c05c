# Phases are applied in order with server-side apply, each only when the
# ones before it are complete: the CRD (Established at once in the
# simulator), the ConfigMap, then the Deployment. The Deployment's default
# probe (updatedReplicas, Available) passes at minute 5, its CEL probe (two
# available replicas) at minute 8; only then is completedAt recorded, and a
# later regression and recovery do not move it.
scenario "ordered phases and probes" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["phases-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/shop-1"
    state  = "RollingOut"
    fields = {
      "status.activePhase"               = "workload"
      "status.conditions[Ready].message" = "phase workload: Deployment default/shop: status.updatedReplicas is unset, not 2"
      "status.completedAt"               = null
    }
  }

  at "5m" {
    patch "Deployment/default/shop" {
      status = {
        observedGeneration = 1
        replicas           = 2
        updatedReplicas    = 2
        readyReplicas      = 1
        availableReplicas  = 1
        conditions         = [{ type = "Available", status = "True" }]
      }
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/shop-1"
    state  = "RollingOut"
    fields = { "status.conditions[Ready].message" = "phase workload: Deployment default/shop: fewer than 2 available replicas" }
  }

  at "8m" {
    patch "Deployment/default/shop" {
      status = { readyReplicas = 2, availableReplicas = 2 }
    }
  }
  expect "8m" {
    object = "ClusterObjectSet/shop-1"
    state  = "Ready"
    fields = {
      "status.completedAt"               = "2026-01-01T00:08:00Z"
      "status.conditions[Ready].reason"  = "Ready"
      "status.conditions[Ready].message" = "all 3 phase(s) complete"
    }
  }

  at "10m" {
    patch "Deployment/default/shop" {
      status = { availableReplicas = 1 }
    }
  }
  expect "10m" {
    object = "ClusterObjectSet/shop-1"
    state  = "RollingOut"
    fields = { "status.conditions[Ready].status" = "False", "status.completedAt" = "2026-01-01T00:08:00Z" }
  }
  at "12m" {
    patch "Deployment/default/shop" {
      status = { readyReplicas = 2, availableReplicas = 2 }
    }
  }
  expect "12m" {
    object = "ClusterObjectSet/shop-1"
    state  = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:08:00Z" }
  }
  expect "12m" {
    object = "ClusterObjectDeployment/shop"
    state  = "Progressed"
    fields = { "status.conditions[Available].status" = "True" }
  }
}
