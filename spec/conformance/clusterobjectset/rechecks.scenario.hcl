# What a revision reads again, and when, for changes that wake no machine
# (a write to an object without a controller, or one that loses its
# controller reference, wakes nobody): a revision in ObjectCollision looks
# again every collision_recheck (1m); a Ready one, and one waiting for
# probes (RollingOut), every probe_interval (1m), each counted from the
# revision's last reconcile, at the start.
scenario "revisions read their objects again every recheck" {
  rules   = ["clusterobjectset"]
  run_for = "2m"
  objects = ["recheck-sets.yaml"]

  expect "0s" {
    object = "ClusterObjectSet/col-1"
    state  = "ObjectCollision"
    reason = "ObjectCollision"
    fields = {
      "status.message"                  = "phase config: ConfigMap default/taken exists and is not managed by this revision (collisionProtection Prevent)"
      "status.conditions[Ready].status" = "False"
      "status.activePhase"              = "config"
    }
  }
  expect "0s" {
    object = "ClusterObjectSet/pr-1"
    state  = "Ready"
  }
  # Only the object that is not ready is named.
  expect "0s" {
    object = "ClusterObjectSet/ro-1"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = { "status.message" = "phase workload: Deployment default/ro: status.updatedReplicas is unset, not 1" }
  }

  # The colliding ConfigMap is deleted; pr-1's and ro-1's ConfigMaps lose
  # their owner references.
  at "30s" {
    delete = ["ConfigMap/default/taken"]
  }
  at "30s" {
    patch "ConfigMap/default/pr-config" {
      merge = { metadata = { ownerReferences = null } }
    }
    patch "ConfigMap/default/ro-config" {
      merge = { metadata = { ownerReferences = null } }
    }
  }

  expect "59s" {
    object = "ClusterObjectSet/col-1"
    state  = "ObjectCollision"
  }
  expect "59s" {
    object = "ConfigMap/default/taken"
    absent = true
  }
  expect "59s" {
    object = "ConfigMap/default/pr-config"
    fields = { "metadata.ownerReferences" = null }
  }
  expect "59s" {
    object = "ConfigMap/default/ro-config"
    fields = { "metadata.ownerReferences" = null }
  }

  expect "1m" {
    object = "ClusterObjectSet/col-1"
    state  = "Ready"
    reason = "Ready"
    fields = { "status.activePhase" = null, "status.message" = "all 1 phase(s) complete" }
  }
  expect "1m" {
    object = "ConfigMap/default/taken"
    fields = { "data.k" = "ours", "metadata.ownerReferences.0.name" = "col-1", "metadata.ownerReferences.0.controller" = true }
  }
  expect "1m" {
    object = "ConfigMap/default/pr-config"
    fields = { "metadata.ownerReferences.0.name" = "pr-1", "metadata.ownerReferences.0.controller" = true }
  }
  expect "1m" {
    object = "ConfigMap/default/ro-config"
    fields = { "metadata.ownerReferences.0.name" = "ro-1", "metadata.ownerReferences.0.controller" = true }
  }
  # Completion is historical: pr-1 keeps the time it first completed.
  expect "1m" {
    object = "ClusterObjectSet/pr-1"
    state  = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:00:00Z" }
  }
  expect "1m" {
    object = "ClusterObjectSet/ro-1"
    state  = "RollingOut"
  }

  # An edit of an object the revision controls wakes it: the edit is
  # reverted at once.
  at "1m30s" {
    patch "ConfigMap/default/pr-config" {
      merge = { data = { k = "edited" } }
    }
  }
  expect "1m30s" {
    object = "ConfigMap/default/pr-config"
    fields = { "data.k" = "v" }
  }
  expect "1m30s" {
    object = "ClusterObjectSet/pr-1"
    state  = "Ready"
  }

  # No revision here has an object in a Secret: none lists Secrets.
  expect "2m" {
    reads {
      verb  = "list"
      kind  = "Secret"
      count = 0
    }
  }
}
