# COD-56: the COD's status writes are refused (as if the controller had
# stopped after the create) until 1m: the first report written,
# NewClusterObjectSetProgressing's (the revision waits for a claim that is
# never Bound), makes the status good, with the latest revision and the
# hash of the template it was created from (status-lost: the same for a
# completed revision).
scenario "status writes lost: NewClusterObjectSetProgressing reported" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "3m"
  objects = ["status-lost-progressing-cod.yaml"]

  deny {
    identity = ""
    verb     = "patch"
    kind     = "ClusterObjectDeployment"
  }

  expect "30s" {
    object = "ClusterObjectDeployment/web"
    fields = { "status.templateHash" = null, "status.latestRevision" = null }
  }
  expect "30s" {
    object = "ClusterObjectSet/web-1"
    state  = "RollingOut"
  }
  at "1m" {
    allow_all = true
  }
  expect "2m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "NewClusterObjectSetProgressing"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "0697ac90"
    }
  }
}
