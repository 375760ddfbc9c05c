# OP-87: errors reading the target do not consume the retry budget: the
# patch waits in Pending with retryCount 0 and sends nothing until reads
# succeed, then applies.
scenario "target read errors do not consume retries" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "report-only-patch.yaml"]

  fault {
    verb    = "get"
    kind    = "Deployment"
    outcome = "transient"
    rate    = 1
  }
  expect "29m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Pending"
    reason = "Pending"
    fields = {
      "status.retryCount"      = 0
      "status.lastAttemptTime" = null
    }
  }
  expect "29m" {
    writes {
      kind     = "Deployment"
      identity = "statecraft"
      count    = 0
    }
  }
  at "30m" {
    clear_faults = true
  }
  expect "36m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    fields = { "status.retryCount" = 0 }
  }
}
