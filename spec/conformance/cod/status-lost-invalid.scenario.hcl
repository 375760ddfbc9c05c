# The COD's status writes are refused (as if the controller had stopped
# after the create) until 1m: the first report written, RevisionInvalidSpecification's,
# makes the status good, with the latest revision and the hash of the
# template it was created from (status-lost: the same for a completed
# revision).
scenario "status writes lost: RevisionInvalidSpecification reported" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "3m"
  objects = ["invalid-revision-cod.yaml"]

  deny {
    identity = ""
    verb     = "patch"
    kind     = "ClusterObjectDeployment"
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
    state  = "RevisionInvalidSpecification"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "4db9b1aa"
    }
  }
}
