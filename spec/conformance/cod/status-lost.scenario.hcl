# The COD's status writes are refused (as if the controller had stopped
# after the create) until the revision has completed: the first report
# written, the completion's, makes the status good, with the latest
# revision and the hash of the template it was created from (the create
# transition's own status write was lost), though no revision is created
# then.
scenario "status writes lost after a creation" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["web-cod.yaml"]

  deny {
    identity = ""
    verb     = "patch"
    kind     = "ClusterObjectDeployment"
  }

  expect "30s" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
    fields = { "metadata.labels.olm\\.operatorframework\\.io/template-hash" = "65eccc0d" }
  }
  expect "30s" {
    object = "ClusterObjectDeployment/web"
    fields = { "status.templateHash" = null, "status.latestRevision" = null }
  }
  at "1m" {
    allow_all = true
  }
  expect "2m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "65eccc0d"
    }
  }
  expect "10m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
