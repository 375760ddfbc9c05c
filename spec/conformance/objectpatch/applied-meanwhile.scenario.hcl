# OP-80: retryCount counts the retries of the current cycle only. The first
# two attempts fail (retryCount 1, then 2; the next retry is due at 30s);
# meanwhile, at 15s, someone else makes the change the patch wants. The
# retry at 30s finds the target matching: Applied, nothing sent, and
# retryCount back to 0.
scenario "the target matches before a retry" {
  rules   = ["objectpatch"]
  run_for = "1m"
  objects = ["namespace.yaml", "applied-meanwhile.yaml"]

  fault {
    verb     = "patch"
    kind     = "ConfigMap"
    at_calls = [1, 2]
    outcome  = "transient"
  }
  expect "10s" {
    object = "ObjectPatch/patches-demo/settings"
    state  = "Pending"
    reason = "Retrying"
    fields = { "status.retryCount" = 2 }
  }
  at "15s" {
    patch "ConfigMap/patches-demo/settings" {
      merge = { data = { mode = "new" } }
    }
  }
  expect "29s" {
    object = "ObjectPatch/patches-demo/settings"
    state  = "Pending"
    fields = { "status.retryCount" = 2 }
  }
  expect "30s" {
    object = "ObjectPatch/patches-demo/settings"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.retryCount" = 0 }
  }
  # The two failed dry runs and the scenario's own patch: nothing else.
  expect "1m" {
    writes {
      verb  = "patch"
      kind  = "ConfigMap"
      count = 3
    }
  }
}
