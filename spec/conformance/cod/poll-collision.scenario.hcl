# COD-42 COD-61: a COD stalled on RevisionObjectCollision still polls its
# group every poll_interval (10m): an ownerless revision created at 1m,
# which wakes nothing, is adopted at the poll after the COD's last step
# (0s), at 10m, not before, and pruned at once (revisionHistoryLimit 0);
# the collision is reported again.
scenario "poll: adoption while the revision collides" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "12m"
  objects = ["prune-collision-objects.yaml"]

  expect "0s" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
  }
  at "1m" {
    create = ["poll-adopt-set.yaml"]
  }
  expect "9m59s" {
    object = "ClusterObjectSet/web-9"
    fields = { "metadata.ownerReferences" = null }
  }
  expect "10m" {
    object = "ClusterObjectSet/web-9"
    absent = true
  }
  expect "10m" {
    writes {
      verb     = "delete"
      kind     = "ClusterObjectSet"
      identity = "statecraft"
      count    = 1
    }
  }
  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
  }
}
