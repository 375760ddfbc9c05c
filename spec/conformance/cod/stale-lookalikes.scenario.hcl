# COD-44 COD-47 COD-41: only a controller reference of kind
# ClusterObjectDeployment naming this deployment (another uid) is a stale
# owner reference left for garbage collection. Members controlled by a web
# of another kind or by a ClusterObjectDeployment of another name are
# neither stale nor the deployment's: they do not hold back its revision.
# web-3 (ownerless, labelled) is adopted; its template is not the
# deployment's, so web-4 is created at once (no garbage-collection wait), and
# the look-alikes' owner references are left as they were.
scenario "stale look-alikes" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["stale-lookalikes.yaml", "web-cod.yaml"]

  expect "0s" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
  expect "0s" {
    object = "ClusterObjectSet/web-4"
    fields = { "metadata.labels.olm\\.operatorframework\\.io/template-hash" = "65eccc0d" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = {
      "status.latestRevision"                  = 4
      "status.conditions[Progressing].message" = "ClusterObjectSet web-4 completed its rollout at 2026-01-01T00:00:00Z"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.uid" = "other-web-uid", "metadata.ownerReferences.1" = null }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-2"
    fields = { "metadata.ownerReferences.0.uid" = "other-uid", "metadata.ownerReferences.1" = null }
  }
  expect "20m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
