# OP-84, OP-86: the proposal follows the patch state: IN_PROGRESS while
# Pending (outcome omitted), APPLIED once applied, and it settles only for
# the generation that produced it: after a spec edit it is IN_PROGRESS again
# (here two failed patch requests keep the new generation Pending) until the
# new generation is applied.
scenario "the proposal follows the patch state and its generation" {
  rules   = ["objectpatch"]
  run_for = "15m"
  objects = ["namespace.yaml", "deployment.yaml", "deployment-patch.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = {
      "status.proposal"           = "APPLIED"
      "status.outcome"            = "Success"
      "status.observedGeneration" = 1
      "metadata.generation"       = 1
    }
  }

  at "10m" {
    fault {
      verb     = "patch"
      kind     = "Deployment"
      at_calls = [1, 2]
      outcome  = "transient"
    }
    patch "ObjectPatch/patches-demo/deployment-patch" {
      merge = { spec = { patch = { metadata = { labels = { managed-by = "kubex", tier = "web" } } } } }
    }
  }

  expect "10m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Pending"
    reason = "Retrying"
    fields = {
      "status.proposal"           = "IN_PROGRESS"
      "status.outcome"            = null
      "status.observedGeneration" = 2
      "metadata.generation"       = 2
    }
  }

  expect "12m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    fields = {
      "status.proposal"           = "APPLIED"
      "status.observedGeneration" = 2
      "metadata.generation"       = 2
    }
  }
}
