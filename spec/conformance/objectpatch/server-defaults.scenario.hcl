# Issue 22: patches are judged by what the API server makes of them. The
# server defaults what each patch writes (the container a merge patch puts
# in the list gets imagePullPolicy, resources, terminationMessagePath and
# terminationMessagePolicy; the HPA's new behavior gets its scaleUp and its
# policies), yet each patch is Applied and its rechecks find no drift; a
# real edit still is drift, and is repaired. The ObjectPatch's own checks
# hold too: the server refuses a spec write that changes targetRef (a
# transition rule of the CRD) and a status write with a condition status
# the schema does not allow. The same trace on the simulator and on
# kube-apiserver (scenario/kubeworld).
scenario "patches the server defaults" {
  rules   = ["objectpatch"]
  run_for = "40m"
  objects = ["namespace.yaml", "server-defaults.yaml"]

  expect "1m" {
    object = "ObjectPatch/patches-demo/image"
    state  = "Applied"
    reason = "Applied"
  }
  expect "1m" {
    object = "Deployment/patches-demo/web"
    fields = {
      "spec.template.spec.containers.0.image"           = "nginx:1.27"
      "spec.template.spec.containers.0.imagePullPolicy" = "IfNotPresent"
      "spec.template.spec.containers.1"                 = null
      "metadata.generation"                             = 2
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/hpa"
    state  = "Applied"
  }
  expect "1m" {
    object = "HorizontalPodAutoscaler/patches-demo/web"
    fields = {
      "spec.maxReplicas"                                   = 5
      "spec.behavior.scaleDown.stabilizationWindowSeconds" = 60
      "spec.behavior.scaleDown.selectPolicy"               = "Max"
      "spec.behavior.scaleUp.selectPolicy"                 = "Max"
    }
  }
  expect "1m" {
    object = "ObjectPatch/patches-demo/pdb"
    state  = "Applied"
  }
  expect "1m" {
    object = "PodDisruptionBudget/patches-demo/web"
    fields = { "spec.maxUnavailable" = "50%", "spec.minAvailable" = null }
  }

  # Refused writes: the CRD's transition rule keeps targetRef, its schema
  # the conditions' status.
  at "3m" {
    patch "ObjectPatch/patches-demo/image" {
      merge = { spec = { targetRef = { name = "other" } } }
    }
  }
  at "4m" {
    patch "ObjectPatch/patches-demo/image" {
      status = { conditions = [{ type = "Ready", status = "Maybe", reason = "Edited", message = "m", lastTransitionTime = "2026-01-01T00:04:00Z" }] }
    }
  }
  expect "4m" {
    object = "ObjectPatch/patches-demo/image"
    state  = "Applied"
    fields = { "spec.targetRef.name" = "web", "status.conditions[Ready].status" = "True" }
  }

  # Rechecks every 5m find no drift in the defaults.
  expect "20m" {
    object = "ObjectPatch/patches-demo/image"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 0 }
  }
  expect "20m" {
    object = "ObjectPatch/patches-demo/hpa"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 0 }
  }
  expect "20m" {
    object = "ObjectPatch/patches-demo/pdb"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 0 }
  }

  # A real edit is drift, repaired at its deadline.
  at "21m" {
    patch "Deployment/patches-demo/web" {
      merge = { spec = { template = { spec = { containers = [{ name = "app", image = "nginx:1.26" }] } } } }
    }
  }
  expect "26m" {
    object = "ObjectPatch/patches-demo/image"
    state  = "NeedsUpdate"
    reason = "Drifted"
  }
  expect "35m" {
    object = "ObjectPatch/patches-demo/image"
    state  = "Applied"
    fields = { "status.driftRetryCount" = 1 }
  }
  expect "35m" {
    object = "Deployment/patches-demo/web"
    fields = { "spec.template.spec.containers.0.image" = "nginx:1.27" }
  }
}
