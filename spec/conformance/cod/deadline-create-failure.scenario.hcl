# A failed creation consumes no budget: the first create of the COS fails,
# the retry 10 seconds later succeeds, and the one-minute deadline expires
# one minute after the COS's creationTimestamp (1m10s), not after the COD's
# first attempt.
scenario "deadline: failed creation consumes no budget" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "5m"
  objects = ["deploy-cod.yaml"]

  fault {
    verb     = "create"
    kind     = "ClusterObjectSet"
    at_calls = [1]
  }

  at "0s" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { progressDeadlineMinutes = 1 } }
    }
  }

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.creationTimestamp" = "2026-01-01T00:00:10Z" }
  }
  expect "70s" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
  }
  expect "5m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 2
    }
  }
}
