# OP-13, OP-14, OP-16, OP-50, OP-51, OP-55: the seed's HPA and PDB examples.
# The HPA exists and is patched at once; the PDB does not exist yet: the
# patch waits in Pending, TargetNotFound (outcome omitted), checks again
# every requeueInterval (default 5m), and is applied once the PDB exists.
scenario "autoscaling and disruption budget examples" {
  rules   = ["objectpatch"]
  run_for = "20m"
  objects = ["namespace.yaml", "deployment.yaml", "hpa-pdb.yaml"]

  expect "1m" {
    object = "HorizontalPodAutoscaler/patches-demo/application"
    fields = {
      "spec.minReplicas" = 2
      "spec.maxReplicas" = 10
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/hpa-patch"
    state  = "Applied"
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/pdb-patch"
    state  = "Pending"
    reason = "TargetNotFound"
    fields = {
      "status.outcome"                  = null
      "status.conditions[Ready].status" = "False"
    }
  }
  at "6m" {
    create = ["pdb.yaml"]
  }
  # Not seen before the next check at 10m.
  expect "9m" {
    object = "ObjectPatch/patches-demo/pdb-patch"
    state  = "Pending"
    reason = "TargetNotFound"
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/pdb-patch"
    state  = "Applied"
    reason = "Applied"
    fields = { "status.lastAppliedTime" = "2026-01-01T00:10:00Z" }
  }
  expect "11m" {
    object = "PodDisruptionBudget/patches-demo/application"
    fields = {
      "spec.unhealthyPodEvictionPolicy" = "AlwaysAllow"
      "spec.minAvailable"               = 1
    }
  }
}
