# OP-40, OP-129, OP-58: null removes a map key, also the last one of its
# map. The Deployment's only annotation is removed: the server drops the
# emptied metadata.annotations, and the patch is Applied (not
# PatchNotApplied), and at its next check (5m) it is still Applied: an
# absent map holds the removals.
scenario "removing the last annotation" {
  rules   = ["objectpatch"]
  run_for = "6m"
  objects = ["namespace.yaml", "deployment.yaml", "remove-last-annotation.yaml"]

  expect "0s" {
    object = "ObjectPatch/patches-demo/remove-obsolete"
    state  = "Applied"
    reason = "Applied"
  }
  expect "0s" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.annotations" = null }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/remove-obsolete"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.lastAppliedTime" = "2026-01-01T00:00:00Z" }
  }
}
