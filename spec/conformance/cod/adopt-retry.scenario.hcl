# COD-42: a refused adoption is retried after retry_interval (10s): the
# admission webhook refuses the owner reference until 5s; the COD reports
# AdoptionFailed and adopts web-1 at its retry, 10s, not before.
scenario "adoption retried" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "1m"
  objects = ["adopt-retry-sets.yaml", "web-cod.yaml"]

  reject {
    verb    = "patch"
    kind    = "ClusterObjectSet"
    message = "ownership changes are frozen"
  }
  at "5s" {
    clear_admission = true
  }

  expect "9s" {
    object = "ClusterObjectDeployment/web"
    reason = "AdoptionFailed"
  }
  expect "9s" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences" = null }
  }
  expect "10s" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.name" = "web", "metadata.ownerReferences.0.controller" = true }
  }
}
