# COD-88 COD-90 COD-91: history is pruned whatever the rollout does. The
# COD adopts web-1, which is still tearing down, and its own revision web-2
# collides (RevisionObjectCollision). Once web-1's teardown ends (5m) it is
# beyond the limit 0 and eligible: the COD, still in collision, deletes it.
# The first delete fails (the API server times out): PruneFailed, retried
# after retry_interval (10s), at 5m10s.
scenario "history pruned while the revision collides" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["prune-collision-objects.yaml"]

  fault {
    verb     = "delete"
    kind     = "ClusterObjectSet"
    identity = ""
    at_calls = [1]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
    fields = { "status.latestRevision" = 2 }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    state  = "TearingDown"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }

  at "5m" {
    patch "ConfigMap/default/held-1" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "5m9s" {
    object = "ClusterObjectDeployment/web"
    reason = "PruneFailed"
  }
  expect "5m9s" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
  }
  expect "5m10s" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "5m10s" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 2
    }
  }
}
