# OP-04, OP-05, OP-10, OP-11, OP-12: the seed's two examples against existing
# targets: an ObjectPatch labels the Deployment in its own namespace, a
# cluster-scoped ClusterObjectPatch labels the Namespace. Every spec field of
# the first example is accepted.
scenario "seed examples" {
  rules   = ["objectpatch"]
  run_for = "10m"
  objects = ["namespace.yaml", "deployment.yaml", "cluster-scope.yaml"]

  expect "1m" {
    object = "Namespace/patches-demo"
    fields = { "metadata.labels.managed-by" = "kubex" }
  }
  expect "1m" {
    object = "ClusterObjectPatch/namespace-patch"
    state  = "Applied"
    reason = "Applied"
    fields = {
      "metadata.namespace" = null
      "status.outcome"     = "Success"
    }
  }
  expect "1m" {
    object = "Deployment/patches-demo/application"
    fields = {
      "metadata.labels.managed-by" = "kubex"
      "metadata.labels.app"        = "application"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/deployment-patch"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.outcome" = "Success" }
  }
}
