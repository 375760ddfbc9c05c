# A selector operation that can no longer be planned after apply (its
# container renamed by someone else) is an InvalidPatch, from Applied and
# from NeedsUpdate alike. repairing's image drifts at 1m (found at 5m,
# repair due at 10m) and its container is renamed at 6m: at the deadline it
# is InvalidPatch, without the deadline. resting's container is renamed at
# 6m too: its next check, at 10m, reports InvalidPatch.
scenario "a selector operation that no longer plans" {
  rules   = ["objectpatch"]
  run_for = "15m"
  objects = ["namespace.yaml", "plan-lost.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/resting"
    state  = "Applied"
  }
  at "1m" {
    patch "Deployment/patches-demo/repairing" {
      merge = { spec = { template = { spec = { containers = [{ name = "web", image = "nginx:9" }] } } } }
    }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/repairing"
    state  = "NeedsUpdate"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  at "6m" {
    patch "Deployment/patches-demo/repairing" {
      merge = { spec = { template = { spec = { containers = [{ name = "renamed", image = "nginx:9" }] } } } }
    }
    patch "Deployment/patches-demo/resting" {
      merge = { spec = { template = { spec = { containers = [{ name = "renamed", image = "nginx:2" }] } } } }
    }
  }
  expect "9m59s" {
    object = "ObjectPatch/patches-demo/resting"
    state  = "Applied"
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/resting"
    state  = "Error"
    reason = "InvalidPatch"
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/repairing"
    state  = "Error"
    reason = "InvalidPatch"
    fields = { "status.nextDriftRetryTime" = null }
  }
}
