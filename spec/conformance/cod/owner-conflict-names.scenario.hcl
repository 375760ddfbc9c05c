# COD-44 COD-45: only a controller reference to a ClusterObjectDeployment
# of this COD's own name (an earlier uid) is a stale reference to wait out
# (stale-owner); any other controller of the highest active member is an
# owner conflict: an Other named like the COD (web), or another
# ClusterObjectDeployment (other, for app). Neither COD creates a revision.
# app-1's controller does not exist (another uid), so the garbage collector
# deletes app-1 a second later; app then creates its own revision at its
# next poll, as owner-conflict shows.
scenario "owner conflict: the controller's kind and name" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["owner-conflict-names-sets.yaml", "web-cod.yaml"]

  expect "0s" {
    object = "ClusterObjectDeployment/web"
    state  = "OwnerConflict"
    reason = "OwnerConflict"
    fields = { "status.conditions[Progressing].message" = "ClusterObjectSet web-1 (revision 1) is controlled by Other web; no new revision is created" }
  }
  expect "0s" {
    object = "ClusterObjectDeployment/app"
    state  = "OwnerConflict"
    reason = "OwnerConflict"
    fields = { "status.conditions[Progressing].message" = "ClusterObjectSet app-1 (revision 1) is controlled by ClusterObjectDeployment other; no new revision is created" }
  }
  expect "0s" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }
  expect "20m" {
    object = "ClusterObjectDeployment/web"
    state  = "OwnerConflict"
  }
  expect "20m" {
    object = "ClusterObjectDeployment/app"
    state  = "Progressed"
    fields = { "status.latestRevision" = 1 }
  }
  expect "20m" {
    object = "ClusterObjectSet/app-1"
    fields = { "metadata.ownerReferences.0.name" = "app", "metadata.ownerReferences.0.kind" = "ClusterObjectDeployment" }
  }
  expect "20m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }
}
