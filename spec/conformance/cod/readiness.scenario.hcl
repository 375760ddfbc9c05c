# A kind's readiness rule lives in clusterobjectset.hcl: a
# PersistentVolumeClaim is ready once Bound, a Namespace once Active. The
# revision waits on the claim's phase, names it, and moves on to the next
# phase once it is Bound.
scenario "readiness of a kind" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "6m"
  objects = ["readiness-cod.yaml"]

  # The API server defaults a new claim's status.phase to Pending.
  expect "2m" {
    object = "ClusterObjectSet/store-1"
    state  = "RollingOut"
    fields = {
      "status.activePhase"               = "storage"
      "status.conditions[Ready].message" = "phase storage: PersistentVolumeClaim default/data: status.phase is Pending, not Bound"
    }
  }
  expect "2m" {
    object = "ConfigMap/default/store"
    absent = true
  }

  at "3m" {
    patch "PersistentVolumeClaim/default/data" {
      status = { phase = "Bound" }
    }
  }
  expect "4m" {
    object = "ClusterObjectSet/store-1"
    state  = "Ready"
    fields = { "status.conditions[Ready].message" = "all 2 phase(s) complete" }
  }
  expect "4m" {
    object = "ConfigMap/default/store"
    fields = { "data.size" = "1Gi" }
  }
}
