# COD-88 COD-91 COD-59: history is pruned after the deadline has passed too.
# The COD adopts the archived web-1 and keeps it (revisionHistoryLimit 1);
# its own revision web-2 waits for a namespace that never comes, and its
# one-minute deadline passes (ProgressDeadlineExceeded). At 5m the limit is
# lowered to 0: the COD deletes web-1 and stays ProgressDeadlineExceeded.
scenario "history pruned after the deadline" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["prune-deadline-objects.yaml"]

  expect "4m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }
  expect "4m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  at "5m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
    reason = "ProgressDeadlineExceeded"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
