# A deployment being deleted (its deletionTimestamp set, a finalizer
# holding it) adopts no revision: an ownerless revision of its group,
# labelled as object-controller's, that appears as it is deleted stays
# without an owner (an adopted one would be deleted with it; seed 002: the
# delete cascades to the COD's own revisions, COD-93). Compare
# orphan.scenario.hcl, where a live COD adopts such a revision.
scenario "a deployment being deleted adopts nothing" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "4m"
  objects = ["held-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  at "2m" {
    create = ["deleted-orphan.yaml"]
    delete = ["ClusterObjectDeployment/web"]
  }
  expect "4m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "metadata.finalizers.0" = "test.statecraft.dev/hold" }
  }
  expect "4m" {
    object = "ClusterObjectSet/web-7"
    state  = "Archived"
    fields = { "metadata.ownerReferences" = null }
  }
  expect "4m" {
    writes {
      verb     = "patch"
      kind     = "ClusterObjectSet"
      identity = "statecraft"
      count    = 0
    }
  }
}
