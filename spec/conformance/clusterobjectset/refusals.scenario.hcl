# Objects the server will not take. An object the server refuses as
# invalid (bad-1's Deployment, replicas -1) is a hard stall:
# InvalidSpecification with Ready=False, never retried, since the revision
# is immutable. Objects the revision itself refuses (dup-1: one ConfigMap
# in two phases) likewise, with nothing applied. An object the server
# accepts but does not hold as applied (admission drops kept-1's label) is
# an unmet precondition, retried every retry_interval (10s): the drop ends
# at 15s and the retry at 20s completes the revision.
scenario "refused objects" {
  rules   = ["clusterobjectset"]
  run_for = "2m"
  objects = ["refusal-sets.yaml"]

  drop {
    verb = "patch"
    kind = "ConfigMap"
    path = "metadata.labels.tier"
  }

  expect "5s" {
    object = "ClusterObjectSet/bad-1"
    state  = "InvalidSpecification"
    reason = "InvalidSpecification"
    fields = { "status.conditions[Ready].status" = "False", "status.conditions[Ready].reason" = "InvalidSpecification" }
  }
  expect "5s" {
    object = "ClusterObjectSet/dup-1"
    state  = "InvalidSpecification"
    reason = "InvalidSpecification"
    fields = { "status.conditions[Ready].status" = "False" }
  }
  expect "5s" {
    object = "ConfigMap/default/dup"
    absent = true
  }
  expect "5s" {
    object = "ClusterObjectSet/kept-1"
    state  = "PreconditionsNotMet"
    reason = "PreconditionsNotMet"
    fields = { "status.message" = "phase config: the server accepted an object but does not hold it as applied: the request was accepted but its result was not retained", "status.conditions[Ready].status" = "False" }
  }
  expect "10s" {
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      count    = 2
    }
  }

  at "15s" {
    clear_admission = true
  }
  expect "19s" {
    object = "ClusterObjectSet/kept-1"
    state  = "PreconditionsNotMet"
  }
  expect "20s" {
    object = "ClusterObjectSet/kept-1"
    state  = "Ready"
  }
  expect "20s" {
    object = "ConfigMap/default/kept"
    fields = { "metadata.labels.tier" = "web" }
  }
  # bad-1 tried its Deployment once.
  expect "2m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      count    = 1
    }
  }
}
