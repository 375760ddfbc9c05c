# Someone deletes an object of an Active revision while a finalizer holds
# it: the revision is not torn down (only an archived revision waits for
# deletions); once the object is gone, the revision creates it again.
scenario "an Active revision's object being deleted" {
  rules   = ["clusterobjectset"]
  run_for = "3m"
  objects = ["held-set.yaml"]

  # Another controller's finalizer, then the deletion.
  at "20s" {
    patch "ConfigMap/default/held" {
      merge = { metadata = { finalizers = ["example.com/hold"] } }
    }
  }
  at "30s" {
    delete = ["ConfigMap/default/held"]
  }
  expect "31s" {
    object = "ClusterObjectSet/held-1"
    state  = "Ready"
    reason = "Ready"
  }
  expect "31s" {
    object = "ConfigMap/default/held"
    fields = { "metadata.finalizers.0" = "example.com/hold" }
  }
  at "1m" {
    patch "ConfigMap/default/held" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "2m" {
    object = "ClusterObjectSet/held-1"
    state  = "Ready"
  }
  expect "2m" {
    object = "ConfigMap/default/held"
    fields = { "data.k" = "v", "metadata.ownerReferences.0.name" = "held-1", "metadata.deletionTimestamp" = null }
  }
}
