# OP-122: a patch that targets itself reports SelfTargetNotAllowed and
# sends nothing.
scenario "a patch may not target itself" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["namespace.yaml", "self-target.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/myself"
    state  = "Error"
    reason = "SelfTargetNotAllowed"
    fields = {
      "status.outcome"                  = "Failure"
      "status.proposal"                 = "FAILED"
      "status.conditions[Ready].status" = "False"
      "metadata.labels"                 = null
    }
  }
  expect "9m" {
    writes {
      verb     = "patch"
      kind     = "ObjectPatch"
      identity = "statecraft"
      count    = 0
    }
  }
}
