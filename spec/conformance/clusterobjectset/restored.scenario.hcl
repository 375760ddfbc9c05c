# A revision that left Ready because something outside it changed comes
# back to Ready, without applying anything, once the change is undone and
# its objects are still in place (seed 002: PreconditionsNotMet is a
# retrying state; "a revision that later completes records
# status.completedAt", recorded once and never changed).
#
# rs-1 completes, then rs-2 takes rs-b over and stalls in its second phase
# (rs-1 is not archived): rs-1 stays Ready, one of its objects controlled
# by the newer revision. Its Secret is deleted: PreconditionsNotMet; the
# Secret comes back: Ready again, because it completed before (a revision
# that never completed would be Superseded). inv-1's Secret is replaced
# by a mutable one: InvalidSpecification; an immutable one again, and a
# restart of the controller (InvalidSpecification waits for no recheck):
# Ready. wp-1's Deployment becomes available (Ready, no active phase), then
# unavailable: RollingOut in phase workload again.
scenario "a revision whose precondition comes back is Ready again" {
  rules   = ["clusterobjectset"]
  run_for = "6m"
  objects = ["restored-sets.yaml"]

  expect "30s" {
    object = "ClusterObjectSet/rs-1"
    state  = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:00:00Z" }
  }
  expect "30s" {
    object = "ClusterObjectSet/inv-1"
    state  = "Ready"
  }

  at "40s" {
    create = ["restored-rs2.yaml"]
  }
  expect "1m30s" {
    object = "ConfigMap/default/rs-b"
    fields = { "metadata.ownerReferences.1.name" = "rs-2", "metadata.ownerReferences.1.controller" = true }
  }
  expect "1m30s" {
    object = "ClusterObjectSet/rs-2"
    state  = "RollingOut"
    fields = { "status.activePhase" = "workload", "spec.lifecycleState" = "Active" }
  }
  expect "1m30s" {
    object = "ClusterObjectSet/rs-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }

  at "2m" {
    delete = ["Secret/default/rs-objects", "Secret/default/inv-objects"]
  }
  at "2m5s" {
    create = ["restored-inv-mutable.yaml"]
  }
  expect "3m30s" {
    object = "ClusterObjectSet/rs-1"
    state  = "PreconditionsNotMet"
    reason = "PreconditionsNotMet"
  }
  expect "3m30s" {
    object = "ClusterObjectSet/inv-1"
    state  = "InvalidSpecification"
    reason = "InvalidSpecification"
  }

  at "4m" {
    create = ["restored-rs-secret.yaml"]
    delete = ["Secret/default/inv-objects"]
  }
  at "4m5s" {
    create = ["restored-inv-secret.yaml"]
  }
  at "4m30s" {
    restart = true
  }
  expect "5m" {
    object = "ClusterObjectSet/rs-1"
    state  = "Ready"
    reason = "Ready"
    fields = {
      "status.message"                  = "all 1 phase(s) complete"
      "status.completedAt"              = "2026-01-01T00:00:00Z"
      "status.conditions[Ready].status" = "True"
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/inv-1"
    state  = "Ready"
    reason = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:00:00Z" }
  }
  # Nothing was applied again: one apply of each ConfigMap (rs-b twice:
  # by rs-1, then by rs-2 taking it over).
  expect "6m" {
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 5
    }
  }

  expect "30s" {
    object = "ClusterObjectSet/wp-1"
    state  = "RollingOut"
    fields = { "status.activePhase" = "workload" }
  }
  at "1m" {
    patch "Deployment/default/wp" {
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
  expect "1m" {
    object = "ClusterObjectSet/wp-1"
    state  = "Ready"
    fields = { "status.activePhase" = null }
  }
  at "1m30s" {
    patch "Deployment/default/wp" {
      status = { readyReplicas = 0, availableReplicas = 0, conditions = [{ type = "Available", status = "False" }] }
    }
  }
  expect "1m30s" {
    object = "ClusterObjectSet/wp-1"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = { "status.activePhase" = "workload", "status.message" = "phase workload: Deployment default/wp: condition Available is not True" }
  }
}
