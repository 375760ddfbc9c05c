# When archiving a predecessor is answered NotFound (a stale answer: the
# fault does not carry the request out), the revision reads again at once
# (after duration('0s')), finds the predecessor still Active and archives
# it in the same second: not one second later, nor after retry_interval
# (the wait for other failures, predecessors.scenario.hcl). After a
# successful archive, too, it reads again at once.
scenario "an archive answered NotFound is tried again at once" {
  rules    = ["clusterobjectset"]
  run_for  = "2m"
  recorded = true
  objects  = ["steps-sets.yaml"]

  expect "30s" {
    object = "ClusterObjectSet/st-1"
    state  = "Ready"
  }
  at "1m" {
    create = ["steps-st2.yaml"]
    # The second patch of a ClusterObjectSet from now: st-2 archiving st-1,
    # after its own status write.
    fault {
      verb     = "patch"
      kind     = "ClusterObjectSet"
      at_calls = [2]
      outcome  = "not_found"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/st-1"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "1m" {
    object = "ClusterObjectSet/st-2"
    state  = "Ready"
    fields = { "status.message" = "archived st-1" }
  }
  expect "1m" {
    reads {
      verb  = "list"
      kind  = "ClusterObjectSet"
      count = 8
    }
  }
}
