# A revision that never completed, whose objects a newer revision of its
# group took over, cannot complete any more: Superseded (orb's Superseded;
# seed 002: objects hand over between revisions of one group), also when
# only one object is taken over. An object the newer revision took over is
# left alone: sp-1 and pl-1 wait for Deployments that never become
# available; sp-2 takes sp-dep over (sp-1 has nothing left to wait for:
# Superseded), pl-2 takes pl-b over while pl-1 still waits for pl-dep, in
# the same phase: pl-1 goes on waiting and does not apply pl-b again.
scenario "a revision whose objects were taken over is superseded" {
  rules   = ["clusterobjectset"]
  run_for = "5m"
  objects = ["superseded-sets.yaml"]

  expect "30s" {
    object = "ClusterObjectSet/sp-1"
    state  = "RollingOut"
    reason = "RollingOut"
  }
  at "1m" {
    create = ["superseded-next.yaml"]
  }
  expect "1m" {
    object = "ClusterObjectSet/sp-2"
    state  = "RollingOut"
    fields = { "status.activePhase" = "config" }
  }
  expect "1m" {
    object = "ClusterObjectSet/pl-2"
    state  = "RollingOut"
    fields = { "status.activePhase" = "wait" }
  }
  expect "3m" {
    object = "ClusterObjectSet/sp-1"
    state  = "RollingOut"
    reason = "Superseded"
    fields = {
      "status.message"                  = "Deployment default/sp-dep is controlled by the newer revision sp-2"
      "status.completedAt"              = null
      "status.conditions[Ready].status" = "False"
      "spec.lifecycleState"             = "Active"
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/pl-1"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = { "status.activePhase" = "config" }
  }
  expect "5m" {
    object = "ConfigMap/default/pl-b"
    fields = {
      "metadata.ownerReferences.0.name"       = "pl-1"
      "metadata.ownerReferences.0.controller" = false
      "metadata.ownerReferences.1.name"       = "pl-2"
      "metadata.ownerReferences.1.controller" = true
    }
  }
  # pl-b applied twice: by pl-1, then by pl-2 taking it over.
  expect "5m" {
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 3
    }
  }
}
