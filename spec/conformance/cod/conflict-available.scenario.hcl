# Ownership checks take precedence over completion: a foreign controller's
# revision 2 becomes the highest active member after revision 1 completed,
# and the COD reports OwnerConflict; availability still reflects the owned
# revision 1, which is ready.
scenario "owner conflict keeps availability" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["web-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }

  at "2m" {
    create = ["foreign-newer.yaml"]
  }

  expect "11m" {
    object = "ClusterObjectDeployment/web"
    state  = "OwnerConflict"
    fields = {
      "status.conditions[Progressing].reason" = "OwnerConflict"
      "status.conditions[Available].status"   = "True"
      "status.conditions[Available].reason"   = "Available"
      "status.conditions[Available].message"  = "ready: web-1"
    }
  }
  expect "11m" {
    object = "ClusterObjectSet/web-1"
    fields = { "spec.lifecycleState" = "Active" }
  }
}
