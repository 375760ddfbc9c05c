# OP-28: a selector that exceeds the runtime CEL cost limit fails: the plan
# cannot be made, so the patch ends in Error, InvalidPatch, and the target is
# left alone.
scenario "a selector over the runtime cost limit" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["namespace.yaml", "deployment.yaml", "cost-limit.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/costly-selector"
    state  = "Error"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].selector: evaluating against /spec/template/spec/containers/0: operation cancelled: actual cost limit exceeded" }
  }
  expect "10m" {
    writes {
      verb  = "patch"
      kind  = "Deployment"
      count = 0
    }
  }
}
