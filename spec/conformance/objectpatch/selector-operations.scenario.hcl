# OP-17, OP-18, OP-21, OP-33, OP-22, OP-23, OP-29, OP-30, OP-31, OP-33, OP-34, OP-36,
# OP-37: selector-aware operations. The seed's example (merge patch, then
# replace / add / remove on container "app"); jsonPatch alone with
# matchPolicy All; and the plan errors that need the target: ExactlyOne
# with two matches, replace of a missing path, a selector that stops
# holding. Each error is InvalidPatch naming the operation's index.
scenario "selector operations" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["namespace.yaml", "deployment.yaml", "selector-ops.yaml", "selector-errors.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/seed-operations"
    state  = "Applied"
    reason = "Applied"
  }
  expect "1m" {
    object = "Deployment/patches-demo/application"
    fields = {
      "metadata.labels.managed-by" = "kubex"
      # As the server stores them: with its defaults.
      "spec.template.spec.containers" = [
        { name = "app", image = "nginx", args = ["--serve"], workingDir = "/work", imagePullPolicy = "Always", resources = {}, terminationMessagePath = "/dev/termination-log", terminationMessagePolicy = "File" },
        { name = "sidecar", image = "busybox", imagePullPolicy = "Always", resources = {}, terminationMessagePath = "/dev/termination-log", terminationMessagePolicy = "File" },
      ]
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/all-busybox"
    state  = "Applied"
  }
  expect "1m" {
    object = "Deployment/patches-demo/batch"
    fields = {
      "spec.template.spec.containers" = [
        { name = "a", image = "busybox", imagePullPolicy = "IfNotPresent", resources = {}, terminationMessagePath = "/dev/termination-log", terminationMessagePolicy = "File" },
        { name = "b", image = "busybox", imagePullPolicy = "IfNotPresent", resources = {}, terminationMessagePath = "/dev/termination-log", terminationMessagePolicy = "File" },
        { name = "c", image = "nginx", imagePullPolicy = "Always", resources = {}, terminationMessagePath = "/dev/termination-log", terminationMessagePolicy = "File" },
      ]
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/exactly-one"
    state  = "Error"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].selector: matchPolicy ExactlyOne requires exactly one matching element of /spec/template/spec/containers: 2 of 2 elements match (indices 0, 1)" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/replace-missing"
    state  = "Error"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].path: /spec/template/spec/containers/0/workingDir does not exist: replace requires an existing path below the selected element" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/selector-breaks"
    state  = "Error"
    reason = "InvalidPatch"
    fields = { "status.message" = "jsonPatch[0].selector: no longer selects /spec/template/spec/containers/0 after it ran; selectors must remain true after every operation" }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/ordered"
    state  = "Applied"
  }
  expect "1m" {
    object = "Deployment/patches-demo/ordered"
    fields = {
      "spec.template.spec.tolerations" = [{ key = "new", operator = "Exists", effect = "NoSchedule" }]
      "spec.template.spec.containers"  = [{ name = "main", image = "busybox", workingDir = "/second", imagePullPolicy = "Always", resources = {}, terminationMessagePath = "/dev/termination-log", terminationMessagePolicy = "File" }]
    }
  }
  expect "9m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      count    = 8
    }
  }
}
