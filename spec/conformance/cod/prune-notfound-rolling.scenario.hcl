# COD-88 COD-91: a prune answered NotFound while the revision rolls out (the
# list it was pruned from was behind the server) keeps the COD Progressing,
# reason RevisionsPruned, and looks again only after retry_interval (10s).
# The COD adopts the archived web-1 and keeps it (revisionHistoryLimit 1);
# its own revision web-2 waits for a claim that is never Bound. At 5m the
# limit is lowered to 0; the API server answers the first delete of web-1
# NotFound without deleting it: web-1 is still there at 5m9s, and the look
# at 5m10s deletes it; the COD is still Progressing. History goes before
# the report: the conditions observe generation 2 only after the prune.
scenario "history: a prune answered NotFound while rolling out" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["prune-notfound-rolling-objects.yaml"]

  fault {
    verb     = "delete"
    kind     = "ClusterObjectSet"
    identity = ""
    at_calls = [1]
    outcome  = "not_found"
  }

  expect "4m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "NewClusterObjectSetProgressing"
  }
  expect "4m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "web" }
  }
  at "5m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
  }
  expect "5m9s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "RevisionsPruned"
    # History goes first: the report of the new generation waits for the
    # next look.
    fields = { "status.conditions[Progressing].observedGeneration" = 1 }
  }
  expect "5m9s" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
  }
  expect "5m10s" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "5m10s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "NewClusterObjectSetProgressing"
    fields = { "status.conditions[Progressing].observedGeneration" = 2 }
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 2
    }
  }
}
