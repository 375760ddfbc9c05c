# A revision being deleted (its deletionTimestamp set, a finalizer holding
# it) applies and tears down nothing more: the garbage collector deletes
# its objects once it is gone (seed 002: a delete cascades to the owned
# objects, COD-93). del-1 is deleted before its first reconcile: it stays
# Pending, its Ready condition Unknown, and applies nothing. arch-1 is
# archived and deleted in one step: it deletes none of its objects.
scenario "a revision being deleted acts no more" {
  rules   = ["clusterobjectset"]
  run_for = "3m"
  objects = ["deleted-sets.yaml"]

  resume "ClusterObjectSet/del-1" {}

  expect "30s" {
    object = "ClusterObjectSet/arch-1"
    state  = "Ready"
  }

  at "1m" {
    delete = ["ClusterObjectSet/del-1"]
  }
  expect "1m" {
    object = "ClusterObjectSet/del-1"
    state  = "Pending"
    fields = { "status.conditions[Ready].status" = "Unknown" }
  }
  # Pending's recheck (retry_interval, 10s) reads its objects again: at
  # 1m10s, not at 1m9s.
  expect "1m9s" {
    reads {
      verb  = "list"
      kind  = "ConfigMap"
      count = 4
    }
  }
  expect "1m10s" {
    reads {
      verb  = "list"
      kind  = "ConfigMap"
      count = 5
    }
  }
  expect "3m" {
    object = "ConfigMap/default/del-config"
    absent = true
  }

  at "2m" {
    patch "ClusterObjectSet/arch-1" {
      merge = { spec = { lifecycleState = "Archived" } }
    }
    delete = ["ClusterObjectSet/arch-1"]
  }
  expect "3m" {
    object = "ClusterObjectSet/arch-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "3m" {
    object = "ConfigMap/default/arch-config"
    fields = { "data.k" = "v", "metadata.ownerReferences.0.name" = "arch-1" }
  }
  expect "3m" {
    writes {
      verb     = "delete"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 0
    }
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 1
    }
  }
}
