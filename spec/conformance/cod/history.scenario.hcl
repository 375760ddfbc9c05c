# revisionHistoryLimit defaults to 5. The COD adopts six archived revisions
# (ownerless, managed-by label) and so owns one archived revision too many.
# Only revisions whose teardown finished may be pruned: web-1 is the oldest
# but still tearing down (its ConfigMap is held by a finalizer), so the
# oldest eligible one, web-2, is deleted. The foreign-owned web-7 neither
# counts nor is pruned; the new revision is 8. When web-1's teardown ends,
# five archived revisions remain: nothing more is pruned.
scenario "history: default limit, teardown first, foreign members" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["history-group.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/web-1"
    state  = "TearingDown"
    fields = {
      "metadata.ownerReferences.0.name"  = "web"
      "status.conditions[Ready].message" = "phase config: waiting for the deletion of ConfigMap held-1"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-2"
    absent = true
  }
  expect "1m" {
    object = "ClusterObjectSet/web-3"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-7"
    fields = { "metadata.ownerReferences.0.uid" = "other-uid" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 8 }
  }

  at "5m" {
    patch "ConfigMap/default/held-1" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "6m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
