# Deleting a COD with foreground propagation: the COD stays, with its
# deletionTimestamp (and its generation bumped), until the garbage collector
# has deleted its revisions, their objects first. While it is being deleted
# the COD creates no revision and the revision applies nothing: the seed's
# delete "cascades to its owned COSs and their managed objects"; a COD that
# made a new revision each time the collector took one would never go (481
# revisions in 8 minutes before the rules said so), and a revision that
# applied its objects again would keep the collector waiting.
scenario "foreground delete" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  at "2m" {
    delete      = ["ClusterObjectDeployment/web"]
    propagation = "Foreground"
  }
  expect "2m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.reason" = "NewClusterObjectSetProgressed", "status.observedGeneration" = 2 }
  }
  expect "10m" {
    object = "ClusterObjectDeployment/web"
    absent = true
  }
  expect "10m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "10m" {
    object = "ConfigMap/default/web-a"
    absent = true
  }
  expect "10m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 1
    }
  }
}
