# COD-02 COD-88 COD-91: a template edit that also lowers the history limit
# creates the new revision first and prunes after, so a failing prune does
# not hold the new revision back. The COD adopts the archived web-1 and
# keeps it (revisionHistoryLimit 1); its revision web-2 completes. At 5m the
# template changes and the limit goes to 0: web-3 is created at once; the
# API server times out the first delete of web-1 (PruneFailed, a wait of
# retry_interval), and the look that web-3's rollout wakes deletes it; web-3
# completes, web-2 is archived and, beyond the limit, deleted too, all at
# 5m. (Pruning first, the failed delete would hold web-3 back until 5m10s.)
scenario "history: a template edit creates before it prunes" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["prune-notfound-objects.yaml"]

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
    patch "ClusterObjectDeployment/web" {
      merge = { spec = {
        revisionHistoryLimit = 0
        template             = { spec = { phases = [{ name = "config", objects = [{ type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default" }, data = { k = "b" } } }] }] } }
      } }
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/web-3"
    fields = {
      "spec.revision"                                 = 3
      "metadata.ownerReferences.0.name"               = "web"
      "metadata.ownerReferences.0.controller"         = true
      "metadata.ownerReferences.0.blockOwnerDeletion" = true
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectSet/web-2"
    absent = true
  }
  expect "10m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 3 }
  }
  expect "10m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 2
    }
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 3
    }
  }
}
