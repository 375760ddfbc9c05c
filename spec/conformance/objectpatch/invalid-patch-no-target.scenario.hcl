# OP-126, OP-50: an invalid patch is InvalidPatch whether its target exists
# or not: the patch itself is wrong, so it does not wait for the target
# (Pending, TargetNotFound) and never reads it.
scenario "an invalid patch of a missing target" {
  rules   = ["objectpatch"]
  run_for = "6m"
  objects = ["relaxed-crd.yaml", "namespace.yaml", "invalid-patch-no-target.yaml"]

  expect "0s" {
    object = "ObjectPatch/patches-demo/empty-patch-no-target"
    state  = "Error"
    reason = "InvalidPatch"
    fields = { "status.message" = "patch: must be a non-empty JSON object" }
  }
  expect "6m" {
    object = "ObjectPatch/patches-demo/empty-patch-no-target"
    state  = "Error"
    reason = "InvalidPatch"
  }
}
