# COD-87: revisionHistoryLimit 50, the top of the seed's range 0-50, is
# accepted (51 is refused: refused-history-limit): the COD adopts the six
# archived revisions of history-group.yaml and, all within the limit, keeps
# them, web-1 too once its teardown ends at 5m; nothing is deleted.
scenario "history: limit 50 keeps six archived revisions" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["history-group.yaml", "history-max-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.latestRevision" = 8 }
  }

  at "5m" {
    patch "ConfigMap/default/held-1" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "10m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  expect "10m" {
    object = "ClusterObjectSet/web-2"
    state  = "Archived"
  }
  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }
}
