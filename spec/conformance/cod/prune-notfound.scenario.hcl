# COD-91: a prune answered NotFound (the list it was pruned from was behind
# the server) keeps a Progressed COD Progressed, reason RevisionsPruned,
# and looks again only after retry_interval (10s), not at once. The COD
# adopts the archived web-1 and keeps it (revisionHistoryLimit 1); its own
# revision web-2 completes. At 5m the limit is lowered to 0; the API server
# answers the first delete of web-1 NotFound without deleting it: web-1 is
# still there at 5m9s, and the look at 5m10s deletes it.
scenario "history: a prune answered NotFound looks again after retry_interval" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["prune-notfound-objects.yaml"]

  fault {
    verb     = "delete"
    kind     = "ClusterObjectSet"
    identity = ""
    at_calls = [1]
    outcome  = "not_found"
  }

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  expect "4m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
    # Adopted: this COD is its controller owner and blocks its deletion
    # until the revision is gone (foreground deletion).
    fields = {
      "metadata.ownerReferences.0.name"               = "web"
      "metadata.ownerReferences.0.controller"         = true
      "metadata.ownerReferences.0.blockOwnerDeletion" = true
    }
  }
  at "5m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
  }
  expect "5m9s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "RevisionsPruned"
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
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 2
    }
  }
}
