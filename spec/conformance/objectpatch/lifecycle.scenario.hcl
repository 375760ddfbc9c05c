# OP-03, OP-45, OP-46, OP-79, OP-86 (observedGeneration part): metadata edits
# of the patch start no cycle; a spec edit starts one (observedGeneration
# follows metadata.generation); deleting the patch leaves the target as it
# is.
scenario "spec edits, metadata edits and deletion" {
  rules   = ["objectpatch"]
  run_for = "40m"
  objects = ["namespace.yaml", "deployment.yaml", "report-only-patch.yaml"]

  at "2m" {
    patch "ObjectPatch/patches-demo/report-only" {
      merge = { metadata = { labels = { team = "platform" }, annotations = { note = "edited" } } }
    }
  }
  expect "3m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    fields = {
      "metadata.generation"       = 1
      "status.observedGeneration" = 1
      "status.lastAppliedTime"    = "2026-01-01T00:00:00Z"
    }
  }
  at "12m" {
    patch "ObjectPatch/patches-demo/report-only" {
      merge = { spec = { patch = { metadata = { labels = { managed-by = "kubex-v2" } } } } }
    }
  }
  expect "13m" {
    object = "ObjectPatch/patches-demo/report-only"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "metadata.generation"       = 2
      "status.observedGeneration" = 2
      "status.lastAppliedTime"    = "2026-01-01T00:12:00Z"
    }
  }
  expect "13m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex-v2" }
  }
  at "20m" {
    delete = ["ObjectPatch/patches-demo/report-only"]
  }
  expect "39m" {
    object = "ObjectPatch/patches-demo/report-only"
    absent = true
  }
  expect "39m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.managed-by" = "kubex-v2" }
  }
  expect "39m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 2
    }
  }
}
