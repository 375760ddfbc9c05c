# The next revision is the highest of the group plus one, archived and
# foreign-owned members included; other groups do not count. Sharing the
# group does not make the members owned: neither is adopted, and
# availability counts only the new, owned revision.
scenario "numbering counts archived and foreign members" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "5m"
  objects = ["numbering-group.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.latestRevision"                = 6
      "status.conditions[Available].reason"  = "Available"
      "status.conditions[Available].message" = "ready: web-6"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-6"
    fields = { "spec.revision" = 6, "spec.lifecycleState" = "Active" }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-3"
    fields = { "metadata.ownerReferences.0.uid" = "other-uid", "metadata.ownerReferences.1" = null }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-5"
    fields = { "metadata.ownerReferences" = null }
  }
  expect "5m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
