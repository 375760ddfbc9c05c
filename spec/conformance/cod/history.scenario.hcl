# revisionHistoryLimit defaults to 5. The COD adopts six archived revisions
# (ownerless, managed-by label) and so owns one archived revision too many:
# web-1, the oldest, is beyond the limit. Only revisions whose teardown
# finished may be pruned, and web-1 is still tearing down (its ConfigMap is
# held by a finalizer): it is left until its cleanup completes, and nothing
# else is deleted (web-2 to web-6 are the five newest). The foreign-owned
# web-7 neither counts nor is pruned; the new revision is 8. When web-1's
# teardown ends at 5m it is deleted: the five newest archived revisions
# remain. (Before the fix, web-2 was deleted in web-1's place and web-1
# kept for good.)
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
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  expect "1m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 0
    }
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
    absent = true
  }
  expect "6m" {
    object = "ClusterObjectSet/web-2"
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
