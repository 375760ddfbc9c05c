# COD-62: the COD's status writes are refused (as if the controller had
# stopped after the create) until 1m: the first report written,
# RevisionObjectCollision's (its revision would take over a ConfigMap
# another controller controls), makes the status good, with the latest
# revision and the hash of the template it was created from (status-lost:
# the same for a completed revision).
scenario "status writes lost: RevisionObjectCollision reported" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "3m"
  objects = ["status-lost-collision-objects.yaml"]

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
    state  = "ObjectCollision"
  }
  at "1m" {
    allow_all = true
  }
  expect "2m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
    fields = {
      "status.latestRevision" = 1
      "status.templateHash"   = "93f4b11a"
    }
  }
}
