# retry_interval and poll_interval at their limit: any positive duration is
# valid, one second included (zero is refused when the rule file is loaded:
# refused-retry-interval, refused-poll-interval). A failed revision creation
# is retried a second later.
scenario "one-second intervals are accepted" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "1m"
  objects = ["web-cod.yaml"]

  rule "clusterobjectdeployment" {
    params = { retry_interval = "1s", poll_interval = "1s" }
  }

  fault {
    verb     = "create"
    kind     = "ClusterObjectSet"
    at_calls = [1]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "0s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    reason = "RevisionCreateFailed"
  }
  expect "1s" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
  }
  expect "1s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 1 }
  }
}
