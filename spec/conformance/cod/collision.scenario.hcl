# Collision protection Prevent (the default): an existing ConfigMap the
# revision does not manage is not touched, and the phase after it is not
# applied. The COS reports ObjectCollision, the COD
# RevisionObjectCollision naming the COS; the hard stall keeps its reason
# past the two-minute deadline. Removing the colliding object lets the
# rollout complete.
scenario "collision: Prevent" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["collision-objects.yaml", "collision-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/web-1"
    state  = "ObjectCollision"
    fields = {
      "status.conditions[Ready].reason"  = "ObjectCollision"
      "status.conditions[Ready].message" = "phase config: ConfigMap default/web-a exists and is not managed by this revision (collisionProtection Prevent)"
    }
  }
  expect "1m" {
    object = "ConfigMap/default/web-a"
    fields = { "data.k" = "someone-elses", "metadata.ownerReferences" = null }
  }
  expect "1m" {
    object = "ConfigMap/default/web-b"
    absent = true
  }
  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
    fields = {
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].reason"  = "RevisionObjectCollision"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-1: phase config: ConfigMap default/web-a exists and is not managed by this revision (collisionProtection Prevent)"
    }
  }
  expect "4m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
  }

  at "5m" {
    delete = ["ConfigMap/default/web-a"]
  }
  expect "6m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  expect "6m" {
    object = "ConfigMap/default/web-b"
    fields = { "metadata.ownerReferences.0.name" = "web-1" }
  }
}
