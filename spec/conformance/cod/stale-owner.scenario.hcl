# A stale controller reference to an older uid of the same COD is left for
# garbage collection (not rewritten, not adopted) and blocks new revisions
# without a distinct reason: Progressing stays True/NewClusterObjectSetProgressing.
# When garbage collection removes it, the COD creates its own revision.
scenario "stale owner reference" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["stale-owner.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "NewClusterObjectSetProgressing"
    fields = {
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "NewClusterObjectSetProgressing"
      "status.conditions[Progressing].message" = "waiting for garbage collection of ClusterObjectSet web-1, controlled by an earlier ClusterObjectDeployment web (uid uid-of-an-earlier-web)"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.uid" = "uid-of-an-earlier-web", "metadata.ownerReferences.1" = null }
  }
  expect "4m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }

  # Garbage collection.
  at "5m" {
    delete = ["ClusterObjectSet/web-1"]
  }

  expect "11m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    # The group is empty again: the next number is 1, a new web-1 owned by this COD.
    fields = { "status.latestRevision" = 1 }
  }
  expect "11m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.kind" = "ClusterObjectDeployment", "metadata.ownerReferences.0.uid" = "uid-000006" }
  }
}
