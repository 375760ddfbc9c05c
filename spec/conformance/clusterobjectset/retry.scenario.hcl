# An unmet precondition is retried every retry_interval (10s), not sooner
# and not later: a namespace or a Secret that no machine drives wakes no
# revision when it appears. ns-1's apply fails (namespace later missing) at
# 0s, 10s, ..., 1m0s and succeeds at 1m10s, after the namespace appears at
# 1m5s; sec-1 waits in PreconditionsNotMet for its Secret, also created at
# 1m5s, and completes at its 1m10s recheck.
scenario "unmet preconditions are retried every retry_interval" {
  rules   = ["clusterobjectset"]
  run_for = "2m"
  objects = ["retry-sets.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/ns-1"
    state  = "PreconditionsNotMet"
    reason = "PreconditionsNotMet"
    fields = { "status.conditions[Ready].status" = "False", "status.conditions[Ready].reason" = "PreconditionsNotMet" }
  }
  expect "1m" {
    object = "ClusterObjectSet/sec-1"
    state  = "PreconditionsNotMet"
    reason = "PreconditionsNotMet"
    fields = { "status.conditions[Ready].status" = "False" }
  }

  at "1m5s" {
    create = ["../cod/namespace-later.yaml", "../cod/secret-late-secret.yaml"]
  }
  expect "1m9s" {
    object = "ConfigMap/later/in-later"
    absent = true
  }
  expect "1m9s" {
    object = "ClusterObjectSet/ns-1"
    state  = "PreconditionsNotMet"
  }
  expect "1m9s" {
    object = "ConfigMap/default/from-late-secret"
    absent = true
  }
  expect "1m9s" {
    object = "ClusterObjectSet/sec-1"
    state  = "PreconditionsNotMet"
  }
  expect "1m10s" {
    object = "ConfigMap/later/in-later"
    fields = { "data.k" = "v", "metadata.ownerReferences.0.name" = "ns-1" }
  }
  expect "1m10s" {
    object = "ClusterObjectSet/ns-1"
    state  = "Ready"
    reason = "Ready"
    fields = { "status.conditions[Ready].status" = "True", "status.completedAt" = "2026-01-01T00:01:10Z" }
  }
  expect "1m10s" {
    object = "ConfigMap/default/from-late-secret"
    fields = { "data.source" = "late secret" }
  }
  expect "1m10s" {
    object = "ClusterObjectSet/sec-1"
    state  = "Ready"
    fields = { "status.completedAt" = "2026-01-01T00:01:10Z" }
  }
}
