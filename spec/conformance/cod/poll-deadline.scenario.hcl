# COD-42 COD-83: a COD past its deadline (ProgressDeadlineExceeded at 10m)
# still polls its group every poll_interval (10m): an ownerless revision
# created at 12m, which wakes nothing, is adopted at the poll after the
# COD's last step (10m), at 20m, not before.
scenario "poll: adoption after the deadline" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "25m"
  objects = ["deploy-cod.yaml"]

  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }
  at "12m" {
    create = ["poll-adopt-set.yaml"]
  }
  expect "19m59s" {
    object = "ClusterObjectSet/web-9"
    fields = { "metadata.ownerReferences" = null }
  }
  expect "20m" {
    object = "ClusterObjectSet/web-9"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  expect "20m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }
}
