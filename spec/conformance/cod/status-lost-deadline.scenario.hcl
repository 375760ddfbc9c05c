# COD-59: the COD's status writes are refused (as if the controller had
# stopped after the create) until 4m: its revision waits for a namespace
# that never comes and its 3-minute deadline passes meanwhile. The first
# report written, ProgressDeadlineExceeded's, makes the status good, with
# the latest revision and the hash of the template it was created from
# (status-lost: the same for a completed revision).
scenario "status writes lost: ProgressDeadlineExceeded reported" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "6m"
  objects = ["preconditions-cod.yaml"]

  deny {
    identity = ""
    verb     = "patch"
    kind     = "ClusterObjectDeployment"
  }

  expect "3m30s" {
    object = "ClusterObjectDeployment/web"
    fields = { "status.templateHash" = null, "status.latestRevision" = null }
  }
  at "4m" {
    allow_all = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "be0b0454"
    }
  }
}
