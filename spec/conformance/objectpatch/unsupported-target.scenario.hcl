# OP-07, OP-08, OP-15, OP-16, OP-124, OP-125: scope mismatches and kinds the
# server does not serve give Error, UnsupportedTarget, and polling stops.
# Once the ClusterAutoscaler API is installed and its object exists, the
# reapply annotation starts a new cycle that applies the seed's example.
scenario "unsupported targets" {
  rules   = ["objectpatch"]
  run_for = "1h"
  objects = ["namespace.yaml", "deployment.yaml", "scope.yaml"]

  expect "1m" {
    object = "ClusterObjectPatch/cluster-to-deployment"
    state  = "Error"
    reason = "UnsupportedTarget"
    fields = {
      "status.outcome"                  = "Failure"
      "status.conditions[Ready].status" = "False"
      "status.message"                  = "scope mismatch: ClusterObjectPatch targets only cluster-scoped objects, but apps/v1 Deployment is namespaced"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/namespaced-to-namespace"
    state  = "Error"
    reason = "UnsupportedTarget"
    fields = {
      "status.message" = "scope mismatch: ObjectPatch targets only namespaced objects, but v1 Namespace is cluster-scoped"
    }
  }
  expect "1m" {
    object = "ClusterObjectPatch/clusterautoscaler-patch"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/bad-version"
    state  = "Error"
    reason = "UnsupportedTarget"
  }

  at "10m" {
    create = ["clusterautoscaler-crd.yaml", "clusterautoscaler.yaml"]
  }
  # Error is terminal: installing the API alone starts nothing.
  expect "20m" {
    object = "ClusterObjectPatch/clusterautoscaler-patch"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
  at "25m" {
    patch "ClusterObjectPatch/clusterautoscaler-patch" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "26m" {
    object = "ClusterObjectPatch/clusterautoscaler-patch"
    state  = "Applied"
    reason = "Applied"
    fields = { "metadata.annotations" = null }
  }
  expect "26m" {
    object = "ClusterAutoscaler/default"
    fields = {
      "spec.scaleDown.enabled"       = false
      "spec.scaleDown.delayAfterAdd" = "10m"
    }
  }
  expect "59m" {
    writes {
      kind  = "Deployment"
      count = 0
    }
    writes {
      kind  = "Namespace"
      count = 0
    }
  }
}
