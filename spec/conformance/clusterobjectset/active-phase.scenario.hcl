# status.activePhase names the phase being rolled out from the reconcile
# that applies it (seed 002: phases are applied in order, the rollout stops
# at the first incomplete phase). Reconciled one step at a time (schedule
# "events": only the at blocks' reconciles run), each reconcile applying
# one phase: config, then more, then every phase complete (no active
# phase).
scenario "the active phase is the one applied" {
  rules    = ["clusterobjectset"]
  run_for  = "3m"
  schedule = "events"
  objects  = ["phases-set.yaml"]

  at "0s" {
    reconcile = ["ClusterObjectSet/ph-1"]
  }
  expect "0s" {
    object = "ClusterObjectSet/ph-1"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = { "status.activePhase" = "config", "status.message" = "phase config: applied 1 object(s)" }
  }
  expect "0s" {
    object = "ConfigMap/default/ph-more"
    absent = true
  }
  at "1m" {
    reconcile = ["ClusterObjectSet/ph-1"]
  }
  expect "1m" {
    object = "ClusterObjectSet/ph-1"
    state  = "RollingOut"
    fields = { "status.activePhase" = "more", "status.message" = "phase more: applied 1 object(s)" }
  }
  at "2m" {
    reconcile = ["ClusterObjectSet/ph-1"]
  }
  expect "2m" {
    object = "ClusterObjectSet/ph-1"
    state  = "Ready"
    fields = { "status.activePhase" = null }
  }
}
