# OP-47, OP-48: a target that already matches the patch succeeds and reports
# Applied without any patch request (not even a dry run).
scenario "already matching target" {
  rules   = ["objectpatch"]
  run_for = "20m"
  objects = ["namespace.yaml", "deployment.yaml", "already-matching-patch.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/matching"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.outcome"                  = "Success"
      "status.conditions[Ready].status" = "True"
      "status.conditions[Ready].reason" = "Applied"
      "status.retryCount"               = 0
      "status.lastAppliedTime"          = null
    }
  }
  expect "19m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      count    = 0
    }
  }
}
