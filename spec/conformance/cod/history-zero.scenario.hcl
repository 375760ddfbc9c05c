# revisionHistoryLimit 0 retains no archived history: revision 1 is pruned
# once archived and torn down; the active revision 2 is never pruned.
scenario "history: limit 0" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["history-zero-cod.yaml"]

  at "5m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { metadata = { labels = { v = "2" } } } } }
    }
  }
  expect "6m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "10m" {
    object = "ClusterObjectSet/web-2"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "10m" {
    object = "ConfigMap/default/web-a"
    fields = { "metadata.ownerReferences.0.name" = "web-2", "metadata.ownerReferences.1" = null }
  }
}
