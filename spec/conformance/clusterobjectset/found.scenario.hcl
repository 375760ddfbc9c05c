# A revision whose objects are already in place, owned by it and in sync,
# is Ready without applying anything, from whatever state it is in
# ("complete" from Pending, ObjectCollision, ...; seed 002: a revision that
# completes records status.completedAt). pend-1 finds its ConfigMap at its
# first reconcile. colr-1 collides with a ConfigMap without a controller;
# the owner of the ConfigMap makes colr-1 its controller by hand (the
# ConfigMap already holds what colr-1 would apply).
scenario "a revision whose objects are in place completes" {
  rules    = ["clusterobjectset"]
  run_for  = "2m"
  recorded = true
  objects  = ["found-sets.yaml"]

  expect "0s" {
    object = "ClusterObjectSet/pend-1"
    state  = "Ready"
    reason = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:00:00Z", "status.message" = "all 1 phase(s) complete" }
  }
  expect "0s" {
    object = "ClusterObjectSet/colr-1"
    state  = "ObjectCollision"
  }

  at "1m" {
    patch "ConfigMap/default/colr-config" {
      merge = { metadata = { ownerReferences = [{ apiVersion = "olm.operatorframework.io/v1", kind = "ClusterObjectSet", name = "colr-1", uid = "colr-1-uid", controller = true, blockOwnerDeletion = true }] } }
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/colr-1"
    state  = "Ready"
    reason = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:01:00Z", "status.activePhase" = null }
  }
  # Neither applied anything.
  expect "2m" {
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 0
    }
  }
}
