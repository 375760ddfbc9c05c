# OP-66: while a drift repair waits for its deadline the patch reads
# nothing, even when something wakes it: neither its target nor the other
# patches (claims). The drift is made at 1m and found at 5m (the repair is
# due at 10m); an edit of the patch's own labels at 7m wakes it, and the
# reads do not move between 6m and 9m59s; at 10m it reads again and
# repairs the drift (its first attempt fails, the retry at 10m10s
# succeeds).
scenario "a patch waiting to repair drift reads nothing" {
  rules   = ["objectpatch"]
  run_for = "15m"
  objects = ["namespace.yaml", "deployment.yaml", "drift-defaults-patch.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone" } } }
    }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  expect "6m" {
    reads {
      verb  = "get"
      kind  = "Deployment"
      count = 2
    }
  }
  expect "6m" {
    reads {
      verb  = "list"
      kind  = "ObjectPatch"
      count = 3
    }
  }
  at "7m" {
    patch "ObjectPatch/patches-demo/deployment-patch" {
      merge = { metadata = { labels = { team = "a" } } }
    }
  }
  expect "9m59s" {
    reads {
      verb  = "get"
      kind  = "Deployment"
      count = 2
    }
  }
  expect "9m59s" {
    reads {
      verb  = "list"
      kind  = "ObjectPatch"
      count = 3
    }
  }
  expect "9m59s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone" }
  }
  # The repair's first patch attempt fails: the repair is an apply cycle
  # like any other, retried retry_delay (10s) later, with its own retry
  # count from 0 and no deadline left behind.
  at "9m" {
    fault {
      verb     = "patch"
      kind     = "Deployment"
      at_calls = [1]
      outcome  = "transient"
    }
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 1, "status.nextDriftRetryTime" = null, "status.driftRetryCount" = 1 }
  }
  expect "10m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "someone" }
  }
  expect "10m10s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  expect "10m10s" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = { "status.retryCount" = 0 }
  }
}
