# retry_interval and poll_interval at their limit: any positive duration is
# valid, one second included (zero is refused when the rule file is
# loaded). A failed apply of the COD is retried one second later.
scenario "one-second intervals are accepted" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "30s"
  objects = ["cache-v1.yaml"]

  rule "clusterextension" {
    params = { retry_interval = "1s", poll_interval = "1s" }
  }

  fault {
    verb     = "patch"
    kind     = "ClusterObjectDeployment"
    at_calls = [1]
    outcome  = "transient"
    message  = "etcdserver: request timed out"
  }

  expect "0s" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    fields = { "status.conditions[Progressing].message" = "applying ClusterObjectDeployment cache: etcdserver: request timed out" }
  }
  expect "1s" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 2
    }
  }
  expect "2s" {
    object = "ClusterExtension/cache"
    state  = "Installed"
    reason = "Succeeded"
  }
}
