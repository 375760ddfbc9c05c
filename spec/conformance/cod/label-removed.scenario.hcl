# COD-46: only an ownerless highest active member without the managed-by
# label is an UnmanagedRevision. The COD's own revision web-1 loses the
# label (someone removes it at 2m): it is still the COD's, by its
# controller reference, and the COD stays Progressed.
scenario "the managed-by label removed from an owned revision" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "15m"
  objects = ["web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  at "2m" {
    patch "ClusterObjectSet/web-1" {
      merge = { metadata = { labels = { "apps.kubernetes.io/managed-by" = null } } }
    }
  }
  expect "2m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.labels.apps\\.kubernetes\\.io/managed-by" = null }
  }
  expect "15m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed", "status.latestRevision" = 1 }
  }
  expect "15m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
