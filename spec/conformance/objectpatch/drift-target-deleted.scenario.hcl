# OP-52, OP-65: a target deleted while its drift repair waits. Checked
# every 3 minutes, the patch finds the drift made at 1m at 3m, the repair
# due at 8m; the target is deleted at 5m. At 8m the patch reads it gone:
# NeedsUpdate, TargetMissing, the deadline cleared (before, it stayed
# Drifted with its deadline past and, waking at that deadline, read the
# target again about once a second for good). Recreated at 10m, it is
# patched again at the next check, 11m.
scenario "a target deleted while its drift repair waits" {
  rules   = ["objectpatch"]
  run_for = "20m"
  objects = ["namespace.yaml", "deployment.yaml", "drift-deadline-patch.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { managed-by = "someone" } } }
    }
  }
  at "5m" {
    delete = ["Deployment/patches-demo/application"]
  }
  expect "7m59s" {
    object = "ObjectPatch/patches-demo/deadline"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:08:00Z" }
  }
  expect "8m" {
    object = "ObjectPatch/patches-demo/deadline"
    state  = "NeedsUpdate"
    reason = "TargetMissing"
    fields = {
      "status.nextDriftRetryTime"       = null
      "status.driftRetryCount"          = 1
      "status.conditions[Ready].status" = "False"
    }
  }
  # Three status writes by 10m (applied, drifted, target missing): the
  # missing target is reported once.
  expect "10m" {
    writes {
      verb  = "status"
      kind  = "ObjectPatch"
      count = 3
    }
  }
  at "10m" {
    create = ["deployment.yaml"]
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/deadline"
    state  = "Applied"
    reason = "Applied"
  }
  expect "11m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
}
