# OP-87, OP-51, OP-57, OP-47, OP-38: while the target cannot be read
# (every get fails, transient, until 3m) a patch knows nothing of it: it
# waits in Pending, neither Applied (remove-data, whose patch would change
# nothing on an empty object) nor InvalidPatch (select-app, whose selector
# would match nothing there), and it reads the target again requeueInterval
# after the failed read: at 4m59s both still Pending, the ConfigMap's data
# still there; at 5m both applied.
scenario "target read errors: no verdict on an unread target" {
  rules   = ["objectpatch"]
  run_for = "6m"
  objects = ["namespace.yaml", "deployment.yaml", "read-errors-plans.yaml"]

  fault {
    verb    = "get"
    kind    = "Deployment"
    outcome = "transient"
    rate    = 1
  }
  fault {
    verb    = "get"
    kind    = "ConfigMap"
    outcome = "transient"
    rate    = 1
  }
  at "3m" {
    clear_faults = true
  }
  expect "4m59s" {
    object = "ObjectPatch/patches-demo/remove-data"
    state  = "Pending"
    reason = "Pending"
  }
  expect "4m59s" {
    object = "ObjectPatch/patches-demo/select-app"
    state  = "Pending"
    reason = "Pending"
  }
  expect "4m59s" {
    object = "ConfigMap/patches-demo/settings"
    fields = { "data.mode" = "old" }
  }
  expect "4m59s" {
    object = "Deployment/patches-demo/application"
    fields = { "spec.template.spec.containers.0.args.0" = "--old" }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/remove-data"
    state  = "Applied"
    reason = "Applied"
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/select-app"
    state  = "Applied"
    reason = "Applied"
  }
  expect "5m" {
    object = "Deployment/patches-demo/application"
    fields = { "spec.template.spec.containers.0.args.0" = "--serve" }
  }
  expect "5m" {
    object = "ConfigMap/patches-demo/settings"
    fields = { "data" = null }
  }
}
