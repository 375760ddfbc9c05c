# The COD's status writes are refused (as if the controller had stopped
# after the create) until 1m: the first report written, RevisionPreconditionsNotMet's,
# makes the status good, with the latest revision and the hash of the
# template it was created from (status-lost: the same for a completed
# revision).
scenario "status writes lost: RevisionPreconditionsNotMet reported" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "3m"
  objects = ["secret-late-cod.yaml"]

  deny {
    identity = ""
    verb     = "patch"
    kind     = "ClusterObjectDeployment"
  }

  expect "30s" {
    object = "ClusterObjectDeployment/late"
    fields = { "status.templateHash" = null, "status.latestRevision" = null }
  }
  at "1m" {
    allow_all = true
  }
  expect "2m" {
    object = "ClusterObjectDeployment/late"
    state  = "RevisionPreconditionsNotMet"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "a8e28801"
    }
  }
}
