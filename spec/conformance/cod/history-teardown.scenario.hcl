# History pruning while a revision tears down (seed 002: "Only owned
# archived revisions that have finished teardown are eligible for pruning.
# The controller deletes the oldest eligible revisions beyond the limit;
# revisions still tearing down are left until cleanup completes").
# revisionHistoryLimit 2; the COD adopts archived revisions 1 to 4 and
# stamps out keep-5. Beyond the limit are keep-1 and keep-2 (keep-3 and
# keep-4 are the two newest): keep-2 has finished teardown and is deleted at
# once, keep-1 is still tearing down (a finalizer holds its ConfigMap) and
# is left alone; when its cleanup completes at 5m it is deleted too, and the
# two newest archived revisions remain. Before the fix keep-2 and keep-3
# were deleted at once and keep-1 and keep-4 kept for good.
scenario "history: a revision tearing down is pruned when its cleanup completes" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["history-teardown-group.yaml", "history-teardown-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/keep-1"
    state  = "TearingDown"
    fields = {
      "metadata.ownerReferences.0.name"  = "keep"
      "status.conditions[Ready].message" = "phase config: waiting for the deletion of ConfigMap keep-held-1"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/keep-2"
    absent = true
  }
  expect "1m" {
    object = "ClusterObjectSet/keep-3"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "keep" }
  }
  expect "1m" {
    object = "ClusterObjectSet/keep-4"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "keep" }
  }
  expect "1m" {
    object = "ClusterObjectSet/keep-5"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/keep"
    state  = "Progressed"
    fields = { "status.latestRevision" = 5 }
  }
  expect "1m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }

  at "5m" {
    patch "ConfigMap/default/keep-held-1" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/keep-1"
    absent = true
  }
  expect "10m" {
    object = "ClusterObjectSet/keep-3"
    state  = "Archived"
  }
  expect "10m" {
    object = "ClusterObjectSet/keep-4"
    state  = "Archived"
  }
  expect "10m" {
    object = "ClusterObjectSet/keep-5"
    state  = "Ready"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 2
    }
  }
}
