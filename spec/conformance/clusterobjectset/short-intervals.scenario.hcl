# probe_interval, retry_interval and collision_recheck at their limit: any
# positive duration is valid, one second included (zero is refused when the
# rule file is loaded). ns-1's apply, failing for its missing namespace, is
# retried every second: the namespace created at 5s is used at 5s.
scenario "one-second intervals are accepted" {
  rules   = ["clusterobjectset"]
  run_for = "10s"
  objects = ["retry-sets.yaml"]

  rule "clusterobjectset" {
    params = { probe_interval = "1s", retry_interval = "1s", collision_recheck = "1s" }
  }

  expect "4s" {
    object = "ClusterObjectSet/ns-1"
    state  = "PreconditionsNotMet"
  }
  at "5s" {
    create = ["../cod/namespace-later.yaml"]
  }
  expect "5s" {
    object = "ClusterObjectSet/ns-1"
    state  = "Ready"
  }
}
