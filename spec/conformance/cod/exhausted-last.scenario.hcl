# COD-28: 9999999999 is the last revision number, and a valid one. With
# 9999999998 taken (by an archived, foreign-owned member) the COD creates
# web-9999999999 and its rollout completes: the next number being beyond
# the range matters only when a new revision is needed (exhausted: the
# other side).
scenario "revision numbers: the last one is used" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "30m"
  objects = ["exhausted-last-group.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = {
      "status.latestRevision"                 = 9999999999
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed"
      "status.conditions[Available].reason"   = "Available"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-9999999999"
    state  = "Ready"
    fields = { "spec.revision" = 9999999999, "metadata.ownerReferences.0.name" = "web" }
  }
  expect "30m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  expect "30m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
