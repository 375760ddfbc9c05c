# OP-122, the other side: a patch targets itself only when apiVersion, kind
# and name all match. other-name patches another ObjectPatch (myself, which
# targets itself and reports SelfTargetNotAllowed) and is Applied;
# other-version names itself at an apiVersion that is not served, and
# other-kind names the cluster-scoped kind under its own name: each is an
# UnsupportedTarget, not a self-target.
scenario "a target that is almost the patch itself" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["namespace.yaml", "self-target.yaml", "self-target-near.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/other-name"
    state  = "Applied"
    reason = "Applied"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/myself"
    reason = "SelfTargetNotAllowed"
    fields = { "metadata.labels.reviewed-by" = "other-name" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/other-version"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/other-kind"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
}
