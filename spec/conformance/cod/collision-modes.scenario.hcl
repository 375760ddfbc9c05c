# IfNoController adopts an ownerless object and refuses one another
# controller owns; None adopts even that (the other controller's reference
# stays, no longer as controller). Object settings override the phase's,
# phase settings the spec's.
scenario "collision: IfNoController and None" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "5m"
  objects = ["modes-objects.yaml", "modes-cods.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/modes-1"
    state  = "Ready"
  }
  expect "1m" {
    object = "ConfigMap/default/m-a"
    fields = { "data.k" = "a", "metadata.ownerReferences.0.name" = "modes-1", "metadata.ownerReferences.0.controller" = true }
  }
  expect "1m" {
    object = "ConfigMap/default/m-b"
    fields = {
      "data.k"                                = "b"
      "metadata.ownerReferences.0.uid"        = "other-uid"
      "metadata.ownerReferences.0.controller" = false
      "metadata.ownerReferences.1.name"       = "modes-1"
      "metadata.ownerReferences.1.controller" = true
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/strict-1"
    state  = "ObjectCollision"
    fields = { "status.conditions[Ready].message" = "phase config: ConfigMap default/s-a is controlled by Other someone (collisionProtection IfNoController)" }
  }
  expect "1m" {
    object = "ConfigMap/default/s-a"
    fields = { "data.k" = "foreign" }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/strict"
    state  = "RevisionObjectCollision"
  }
}
