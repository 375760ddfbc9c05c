# OP-07, OP-08, OP-105: a scope mismatch is UnsupportedTarget whatever the
# engine may read: here neither target kind may be read at all (get
# Forbidden). An ObjectPatch of a Namespace and a ClusterObjectPatch of a
# Deployment are UnsupportedTarget, not TargetAccessDenied: the mismatch
# is in the spec, and no grant of get and patch would make it right.
scenario "scope mismatch on targets the engine may not read" {
  rules   = ["objectpatch"]
  run_for = "1m"
  objects = ["namespace.yaml", "deployment.yaml", "scope.yaml"]

  deny {
    identity = ""
    verb     = "get"
    kind     = "Namespace"
  }
  deny {
    identity = ""
    verb     = "get"
    kind     = "Deployment"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/namespaced-to-namespace"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
  expect "1m" {
    object = "ClusterObjectPatch/cluster-to-deployment"
    state  = "Error"
    reason = "UnsupportedTarget"
  }
}
