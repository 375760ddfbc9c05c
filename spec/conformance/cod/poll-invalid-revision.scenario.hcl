# COD-42: a COD stalled on RevisionInvalidSpecification still polls its
# group every poll_interval (10m): an ownerless revision created at 1m,
# which wakes nothing, is adopted at the poll after the COD's last step
# (0s), at 10m, not before; the stall is reported again.
scenario "poll: adoption while the revision is invalid" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "12m"
  objects = ["invalid-revision-cod.yaml"]

  expect "0s" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionInvalidSpecification"
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
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionInvalidSpecification"
  }
}
