# Deleting a COD with orphan propagation leaves its revisions in their
# group (spec.group, labels) without an owner, and their objects under them.
# A COD of the same name created again adopts the revision (it carries the
# managed-by label) and, its template unchanged, keeps it: no new revision.
scenario "orphan delete, then re-creation" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  at "2m" {
    delete      = ["ClusterObjectDeployment/web"]
    propagation = "Orphan"
  }
  expect "3m" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
    fields = {
      "spec.group"                                        = "web"
      "spec.lifecycleState"                               = "Active"
      "metadata.ownerReferences"                          = null
      "metadata.labels.apps\\.kubernetes\\.io/managed-by" = "object-controller"
    }
  }
  expect "3m" {
    object = "ConfigMap/default/web-a"
    fields = { "metadata.ownerReferences.0.name" = "web-1" }
  }

  at "5m" {
    create = ["web-cod.yaml"]
  }
  expect "6m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.kind" = "ClusterObjectDeployment", "metadata.ownerReferences.0.controller" = true }
  }
  expect "6m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 1, "status.conditions[Available].reason" = "Available" }
  }
  expect "10m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
