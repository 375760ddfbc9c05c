# OP-19, OP-20, OP-24, OP-25, OP-26, OP-27, OP-32, OP-35, OP-126: invalid
# patches give Error, InvalidPatch, before the target is touched, with a
# message naming the offending operation's index and the rule it breaks.
scenario "invalid patches" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["relaxed-crd.yaml", "namespace.yaml", "deployment.yaml", "invalid-patches.yaml", "invalid-limits.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/empty-patch"
    state  = "Error"
    reason = "InvalidPatch"
    fields = {
      "status.message"                  = "patch: must be a non-empty JSON object"
      "status.outcome"                  = "Failure"
      "status.conditions[Ready].status" = "False"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/metadata-string"
    reason = "InvalidPatch"
    fields = { "status.message" = "patch.metadata: must be an object, not a string" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/patch-not-object"
    reason = "InvalidPatch"
    fields = { "status.message" = "patch: must be a non-empty JSON object, not an array" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/op-move"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[1].op: unsupported operation \"move\": must be one of \"add\", \"remove\", \"replace\"" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/two-at-segments"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: must contain exactly one \"@\" segment" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/append-element"
    state  = "Error"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: must contain exactly one \"@\" segment" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/no-at-segment"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: must contain exactly one \"@\" segment" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/add-null"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].value: add requires a non-null value" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/replace-no-value"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].value: replace requires a non-null value" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/remove-with-value"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].value: remove must omit value" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/add-deep"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: add must address exactly one direct member below the selected element, such as /spec/containers/@/workingDir" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/remove-element"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: remove must address exactly one direct member below the selected element, such as /spec/containers/@/workingDir" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/insert-element"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: add must address exactly one direct member below the selected element, such as /spec/containers/@/workingDir" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/bad-policy"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].matchPolicy: unsupported match policy \"Some\": must be \"ExactlyOne\" or \"All\"" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/bad-selector"
    reason = "InvalidPatch"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/too-many-ops"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch: must have at most 100 operations, has 101" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/long-path"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: must be at most 1024 characters, has 1025" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/long-selector"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].selector: must be at most 1024 characters, has 1025" }
  }
  expect "9m" {
    writes {
      kind     = "Deployment"
      identity = "statecraft"
      count    = 0
    }
  }
}
