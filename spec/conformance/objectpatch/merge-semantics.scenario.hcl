# OP-01, OP-02, OP-39, OP-40, OP-41, OP-48, OP-49, OP-55, OP-58, OP-77, OP-79,
# OP-83, OP-85: one merge patch changes several fields of an existing target
# in the patch's namespace; the patch is Applied with the documented status.
scenario "merge patch semantics on existing targets" {
  rules   = ["objectpatch"]
  run_for = "30m"
  objects = ["namespace.yaml", "merge-semantics.yaml"]

  expect "1m" {
    object = "Deployment/patches-demo/worker"
    fields = {
      "metadata.labels.managed-by"     = "kubex"
      "metadata.labels.app"            = "worker"
      "metadata.annotations.owner"     = "platform"
      "metadata.annotations.obsolete"  = null
      "spec.replicas"                  = 2
      "spec.template.spec.tolerations" = [{ key = "c", operator = "Exists" }]
      # The list the patch set, as the server stores it: with its defaults.
      "spec.template.spec.containers"     = [{ name = "worker", image = "busybox", imagePullPolicy = "Always", resources = {}, terminationMessagePath = "/dev/termination-log", terminationMessagePolicy = "File" }]
      "spec.template.metadata.labels.app" = "worker"
    }
  }
  expect "1m" {
    object = "ConfigMap/patches-demo/settings"
    fields = {
      "data.mode" = "fast"
      "data.keep" = "yes"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/worker-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "status.outcome"                    = "Success"
      "status.observedGeneration"         = 1
      "status.retryCount"                 = 0
      "status.lastAttemptTime"            = "2026-01-01T00:00:00Z"
      "status.lastAppliedTime"            = "2026-01-01T00:00:00Z"
      "status.nextDriftRetryTime"         = null
      "status.conditions[Ready].status"   = "True"
      "status.conditions[Ready].reason"   = "Applied"
      "status.conditions[Drifted].status" = "False"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/settings-patch"
    state  = "Applied"
    reason = "Applied"
  }
  # Checked again every requeueInterval (default 5m): nothing more is sent.
  expect "29m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 1
    }
    writes {
      verb     = "patch"
      kind     = "ConfigMap"
      identity = "statecraft"
      dry_run  = false
      count    = 1
    }
  }
}
