# COD-47 COD-30 COD-38: a stale owner reference blocks only a new revision.
# web-2, made from the deployment's template, is adopted and is the desired
# revision: the deployment needs no new one, so web-1's reference to an
# earlier web (left as it is) holds nothing back: web-2 is reported rolling
# out and then completed, no revision is created, no garbage-collection
# wait is reported.
scenario "stale owner below the desired revision" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["stale-below.yaml", "web-cod.yaml"]

  expect "0s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = {
      "status.latestRevision"                  = 2
      "status.conditions[Progressing].reason"  = "NewClusterObjectSetProgressed"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-2 completed its rollout at 2026-01-01T00:00:00Z"
      "status.conditions[Available].message"   = "ready: web-2"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.uid" = "uid-of-an-earlier-web", "metadata.ownerReferences.1" = null }
  }
  expect "20m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }
}
