# COD-42: the COD adopts an ownerless group member labelled
# apps.kubernetes.io/managed-by=object-controller only when it is not being
# deleted. Group web holds two such members: web-1 (archived) and web-3
# (active, held by a finalizer). The world deletes web-3 at 1m, so it has a
# deletionTimestamp; the COD, created at 2m, adopts web-1 and leaves web-3
# without an owner reference. web-3 is no owned active revision, so the COD
# creates one; it still counts for numbering (the highest in the group is 3),
# so the new revision is web-4. Once the finalizer is removed, web-3 is gone;
# nothing more is created or adopted.
scenario "a deleting labelled member is not adopted" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["deleting-member.yaml"]

  at "1m" {
    delete = ["ClusterObjectSet/web-3"]
  }
  expect "1m" {
    object = "ClusterObjectSet/web-3"
    fields = {
      "metadata.deletionTimestamp" = "2026-01-01T00:01:00Z"
      "metadata.finalizers.0"      = "example.com/hold"
      "metadata.ownerReferences"   = null
    }
  }

  at "2m" {
    create = ["web-cod.yaml"]
  }
  expect "3m" {
    object = "ClusterObjectSet/web-1"
    fields = {
      "metadata.ownerReferences.0.kind"       = "ClusterObjectDeployment"
      "metadata.ownerReferences.0.name"       = "web"
      "metadata.ownerReferences.0.controller" = true
    }
  }
  expect "3m" {
    object = "ClusterObjectSet/web-3"
    fields = {
      "metadata.deletionTimestamp"                        = "2026-01-01T00:01:00Z"
      "metadata.ownerReferences"                          = null
      "metadata.labels.apps\\.kubernetes\\.io/managed-by" = "object-controller"
      "spec.lifecycleState"                               = "Active"
    }
  }
  expect "3m" {
    object = "ClusterObjectSet/web-4"
    state  = "Ready"
    fields = {
      "spec.group"                            = "web"
      "spec.revision"                         = 4
      "metadata.ownerReferences.0.name"       = "web"
      "metadata.ownerReferences.0.controller" = true
    }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.latestRevision"                = 4
      "status.conditions[Available].message" = "ready: web-4"
    }
  }
  # The only non-status COS patch the engine sent is web-1's adoption.
  expect "3m" {
    writes {
      verb     = "patch"
      kind     = "ClusterObjectSet"
      identity = "statecraft"
      count    = 1
    }
  }

  at "5m" {
    patch "ClusterObjectSet/web-3" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "6m" {
    object = "ClusterObjectSet/web-3"
    absent = true
  }
  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 4 }
  }
  expect "10m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
  expect "10m" {
    writes {
      verb     = "patch"
      kind     = "ClusterObjectSet"
      identity = "statecraft"
      count    = 1
    }
  }
}
