# An ownerless highest active member without the managed-by label:
# Progressing=False/UnmanagedRevision and no adoption. Restoring the label
# lets the COD adopt it (controller owner reference, no other change) and
# roll out its own template as revision 2, which takes the ConfigMap over
# from revision 1 and archives it.
scenario "unmanaged revision, then adoption" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["unmanaged-active.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "UnmanagedRevision"
    reason = "UnmanagedRevision"
    fields = {
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-1 (revision 1) has no controller and lacks the label apps.kubernetes.io/managed-by=object-controller; no new revision is created"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences" = null }
  }

  at "5m" {
    patch "ClusterObjectSet/web-1" {
      merge = { metadata = { labels = { "apps.kubernetes.io/managed-by" = "object-controller" } } }
    }
  }

  expect "11m" {
    object = "ClusterObjectSet/web-1"
    fields = {
      "metadata.ownerReferences.0.kind"       = "ClusterObjectDeployment"
      "metadata.ownerReferences.0.name"       = "web"
      "metadata.ownerReferences.0.controller" = true
      "spec.lifecycleState"                   = "Archived"
    }
  }
  expect "11m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 2 }
  }
  expect "11m" {
    object = "ConfigMap/default/web-a"
    fields = { "data.k" = "a", "metadata.ownerReferences.0.name" = "web-2" }
  }
}
