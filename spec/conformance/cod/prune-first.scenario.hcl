# COD-47 COD-91: a resting Progressed COD prunes before it reports: a
# failed prune holds the report back until the retry. Only the COD machine
# runs (the ClusterObjectSet CRD is installed from spec/crds). The COD
# adopts the completed web-2 (Progressed) and the archived web-1, which it
# keeps (revisionHistoryLimit 1). At 5m an active web-3 controlled by an
# earlier COD web appears, and the template changes and the limit goes to
# 0: the new revision waits for garbage collection (NewClusterObjectSetProgressing)
# and web-1 is beyond the limit. The API server times out the delete of
# web-1 (PruneFailed): the Progressing condition still says
# NewClusterObjectSetProgressed until the retry at 5m10s. The garbage
# collector removes web-3 at 5m1s (its owner is gone), so the retry creates
# the new revision (web-3 again), deletes web-1 and reports the rollout.
scenario "history: a Progressed COD prunes before it reports" {
  rules   = ["clusterobjectdeployment"]
  run_for = "10m"
  objects = ["../../crds/olm.operatorframework.io_clusterobjectsets.yaml", "prune-first-objects.yaml"]

  fault {
    verb     = "delete"
    kind     = "ClusterObjectSet"
    identity = ""
    at_calls = [1]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "4m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 2 }
  }
  at "5m" {
    create = ["prune-first-stale.yaml"]
    patch "ClusterObjectDeployment/web" {
      merge = { spec = {
        revisionHistoryLimit = 0
        template             = { spec = { phases = [{ name = "config", objects = [{ type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default" }, data = { k = "b" } } }] }] } }
      } }
    }
  }
  expect "5m9s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "PruneFailed"
    fields = { "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed" }
  }
  expect "5m9s" {
    object = "ClusterObjectSet/web-1"
    fields = { "status.state" = "Archived" }
  }
  expect "5m10s" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "5m10s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "NewClusterObjectSetProgressing"
    fields = {
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressing"
      "status.latestRevision"                 = 3
    }
  }
  expect "10m" {
    writes {
      verb     = "create"
      kind     = "ClusterObjectSet"
      identity = "statecraft"
      count    = 1
    }
  }
}
