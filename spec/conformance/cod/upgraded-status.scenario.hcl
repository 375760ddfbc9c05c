# A report is made good field by field: a status an earlier controller
# wrote (or one a lost write left) with every other field current is
# completed at the first reconcile, the generation unchanged: up-a's
# latestRevision and up-b's templateHash are filled in, up-c's reason is
# rewritten; nothing else is written (no revision created, nothing applied).
# A report that is current but for a field it has no value for is not
# written again: up-d's OwnerConflict report has no latestRevision (no
# revision is the deployment's own) and stays as it is.
scenario "a report with one stale field is written again" {
  rules    = ["clusterobjectdeployment", "clusterobjectset"]
  run_for  = "2m"
  recorded = true
  objects  = ["upgraded-status.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/up-a"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.latestRevision" = 1, "status.templateHash" = "35cb8b5e", "status.conditions[Progressing].observedGeneration" = 1 }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/up-b"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.latestRevision" = 1, "status.templateHash" = "1c61f784" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/up-c"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.latestRevision" = 1, "status.templateHash" = "bd52f1ea", "status.conditions[Progressing].lastTransitionTime" = "2026-01-01T00:00:00Z" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/up-d"
    state  = "OwnerConflict"
    reason = "OwnerConflict"
    fields = { "status.latestRevision" = null, "status.conditions[Available].reason" = "NoActiveRevision" }
  }
  # Three status writes: up-a's, up-b's and up-c's.
  expect "2m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 0
    }
    writes {
      verb     = "status"
      kind     = "ClusterObjectDeployment"
      identity = "statecraft"
      count    = 3
    }
  }
}
