# The highest active, non-deleting member is controlled by another
# controller: Progressing=False/OwnerConflict naming the COS and its
# controller, no revision, the owner reference untouched. Once the blocking
# revision is removed, the COD creates its own revision on its own (at its
# next poll: the foreign COS is not its object, so its deletion does not
# wake it).
scenario "owner conflict" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["foreign-active.yaml", "web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "OwnerConflict"
    reason = "OwnerConflict"
    fields = {
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].reason"  = "OwnerConflict"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-1 (revision 1) is controlled by Other someone; no new revision is created"
      "status.conditions[Available].reason"    = "NoActiveRevision"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.ownerReferences.0.uid" = "other-uid", "metadata.ownerReferences.1" = null }
  }
  expect "4m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }

  at "5m" {
    delete = ["ClusterObjectSet/web-1"]
  }

  expect "11m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    # The group is empty again: the next number is 1.
    fields = { "status.latestRevision" = 1, "status.conditions[Available].reason" = "Available", "status.conditions[Progressing].message" = "ClusterObjectSet web-1 completed its rollout at 2026-01-01T00:10:00Z" }
  }
}
