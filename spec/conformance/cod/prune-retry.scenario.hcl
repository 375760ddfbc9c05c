# COD-91: a failed prune of a Progressed COD is retried after
# retry_interval (10s). As in history: web-1, beyond the default limit,
# becomes eligible when its teardown ends at 5m; the API server times out
# the first delete (PruneFailed), the retry at 5m10s deletes it.
scenario "history: a failed prune retried" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["history-group.yaml", "web-cod.yaml"]

  fault {
    verb     = "delete"
    kind     = "ClusterObjectSet"
    identity = ""
    at_calls = [1]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  at "5m" {
    patch "ConfigMap/default/held-1" {
      merge = { metadata = { finalizers = null } }
    }
  }
  expect "5m9s" {
    object = "ClusterObjectDeployment/web"
    reason = "PruneFailed"
  }
  expect "5m9s" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
  }
  expect "5m10s" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "5m10s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
  }
  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 2
    }
  }
}
