# Which revisions a complete revision archives: the lower revisions of its
# own group under its own controller owner that are still Active (p-1), not
# one of another controller (p-1b) or of none (p-1c), nor a lower revision
# of another group under the same controller (q-1), nor one being deleted
# (p-1d). When archiving fails (the server is unavailable), it is tried
# again retry_interval (10s) later, not sooner.
scenario "a complete revision archives its predecessors" {
  rules    = ["clusterobjectset"]
  run_for  = "2m"
  recorded = true
  objects  = ["predecessors-sets.yaml"]

  expect "30s" {
    object = "ClusterObjectSet/p-1"
    state  = "Ready"
  }

  at "30s" {
    delete = ["ClusterObjectSet/p-1d"]
  }
  at "1m" {
    create = ["predecessors-p2.yaml"]
    # The second patch of a ClusterObjectSet from now: p-2 archiving p-1,
    # after its own status write.
    fault {
      verb     = "patch"
      kind     = "ClusterObjectSet"
      at_calls = [2]
      outcome  = "transient"
      message  = "etcdserver: request timed out"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/p-2"
    state  = "Ready"
  }
  expect "1m9s" {
    object = "ClusterObjectSet/p-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "1m10s" {
    object = "ClusterObjectSet/p-1"
    state  = "Archived"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "1m10s" {
    object = "ConfigMap/default/p-one"
    absent = true
  }
  expect "1m10s" {
    object = "ClusterObjectSet/p-2"
    state  = "Ready"
    fields = { "status.message" = "archived p-1" }
  }
  expect "2m" {
    object = "ClusterObjectSet/p-1b"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "2m" {
    object = "ClusterObjectSet/p-1c"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "2m" {
    object = "ClusterObjectSet/q-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "2m" {
    object = "ClusterObjectSet/p-1d"
    fields = { "spec.lifecycleState" = "Active", "metadata.finalizers.0" = "example.com/hold" }
  }
}
