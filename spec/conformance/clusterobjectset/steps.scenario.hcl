# Archiving predecessors and tearing down take one step per reconcile, and
# the next step is decided in a new reconcile from fresh reads (after
# duration('0s')), also after a NotFound answer: reconciled one at a time
# (schedule "events": only the at blocks' reconciles run), each reconcile
# shows one step. st-2 completes and archives st-1 (its first archive
# answered NotFound without being carried out: st-1 is archived by the
# next reconcile); st-1 then tears down phase more (its first delete
# answered NotFound), then phase config, then is Archived.
scenario "one archive or teardown step per reconcile" {
  rules    = ["clusterobjectset"]
  run_for  = "1m"
  schedule = "events"
  recorded = true
  objects  = ["steps-sets.yaml"]

  at "0s" {
    reconcile = ["ClusterObjectSet/st-1"]
  }
  at "1s" {
    reconcile = ["ClusterObjectSet/st-1"]
  }
  at "2s" {
    reconcile = ["ClusterObjectSet/st-1"]
  }
  expect "2s" {
    object = "ClusterObjectSet/st-1"
    state  = "Ready"
  }

  at "10s" {
    create    = ["steps-st2.yaml"]
    reconcile = ["ClusterObjectSet/st-2"]
  }
  at "11s" {
    fault {
      verb     = "patch"
      kind     = "ClusterObjectSet"
      at_calls = [1]
      outcome  = "not_found"
    }
    reconcile = ["ClusterObjectSet/st-2"]
  }
  expect "11s" {
    object = "ClusterObjectSet/st-2"
    state  = "Ready"
  }
  expect "11s" {
    object = "ClusterObjectSet/st-1"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "11s" {
    reads {
      verb  = "list"
      kind  = "ClusterObjectSet"
      count = 5
    }
  }
  at "12s" {
    reconcile = ["ClusterObjectSet/st-2"]
  }
  expect "12s" {
    object = "ClusterObjectSet/st-1"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "12s" {
    object = "ClusterObjectSet/st-2"
    state  = "Ready"
    fields = { "status.message" = "archived st-1" }
  }
  # One read of the revisions for the one step.
  expect "12s" {
    reads {
      verb  = "list"
      kind  = "ClusterObjectSet"
      count = 6
    }
  }

  at "20s" {
    fault {
      verb     = "delete"
      kind     = "ConfigMap"
      at_calls = [1]
      outcome  = "not_found"
    }
    reconcile = ["ClusterObjectSet/st-1"]
  }
  expect "20s" {
    object = "ConfigMap/default/st-more"
    fields = { "data.k" = "v" }
  }
  at "21s" {
    reconcile = ["ClusterObjectSet/st-1"]
  }
  expect "21s" {
    object = "ClusterObjectSet/st-1"
    state  = "TearingDown"
    fields = { "status.activePhase" = "more" }
  }
  expect "21s" {
    object = "ConfigMap/default/st-more"
    absent = true
  }
  expect "21s" {
    object = "ConfigMap/default/st-config"
    fields = { "data.k" = "v" }
  }
  at "22s" {
    reconcile = ["ClusterObjectSet/st-1"]
  }
  expect "22s" {
    object = "ConfigMap/default/st-config"
    absent = true
  }
  at "23s" {
    reconcile = ["ClusterObjectSet/st-1"]
  }
  expect "23s" {
    object = "ClusterObjectSet/st-1"
    state  = "Archived"
    reason = "Archived"
  }
}
