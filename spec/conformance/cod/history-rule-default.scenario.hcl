# COD-86: revisionHistoryLimit defaults to 5 in the rule file too, not only
# in the shipped CRD's schema: under a CRD without that default
# (no-default-crd.yaml) a COD without the field keeps the five newest of its
# six adopted archived revisions and deletes web-1 once its teardown ends
# (history: the same under the shipped CRD).
scenario "history: the rule file's default limit" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["no-default-crd.yaml", "history-group.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "spec.revisionHistoryLimit" = null, "status.latestRevision" = 8 }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    state  = "TearingDown"
  }

  at "5m" {
    patch "ConfigMap/default/held-1" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "6m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "6m" {
    object = "ClusterObjectSet/web-2"
    state  = "Archived"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
