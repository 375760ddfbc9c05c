# A first install with the BoxcutterRuntime. The extension applies a
# ClusterObjectDeployment with its own name, owned by it; the COD stamps out
# revision argocd-1 (group argocd), which owns the bundle's objects. While
# the Deployment is not yet available the extension reports
# Progressing=True/RollingOut with the COD's message and Installed=False
# (reason Absent: a healthy first rollout, no error). Once the revision
# completes: Installed=True/Succeeded, status.install.bundle, and
# Progressing=True/Succeeded. Deleting the extension cascades through the
# whole chain.
scenario "first install" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "12m"
  objects = ["argocd-v1.yaml"]

  # The COD: named like the extension, controlled by it, the bundle's
  # objects as its template and the bundle's identity as template
  # annotations.
  expect "1m" {
    object = "ClusterObjectDeployment/argocd"
    state  = "Progressing"
    fields = {
      "metadata.ownerReferences.0.apiVersion"                                          = "olm.operatorframework.io/v1"
      "metadata.ownerReferences.0.kind"                                                = "ClusterExtension"
      "metadata.ownerReferences.0.name"                                                = "argocd"
      "metadata.ownerReferences.0.controller"                                          = true
      "metadata.ownerReferences.1"                                                     = null
      "spec.template.metadata.annotations.olm\\.operatorframework\\.io/bundle-name"    = "argocd-operator.v0.6.0"
      "spec.template.metadata.annotations.olm\\.operatorframework\\.io/bundle-version" = "0.6.0"
      "spec.template.metadata.annotations.olm\\.operatorframework\\.io/package-name"   = "argocd-operator"
      "spec.template.spec.phases.1.name"                                               = "workload"
    }
  }
  # The COD owns its revision (group = the COD's name); the revision owns
  # the objects.
  expect "1m" {
    object = "ClusterObjectSet/argocd-1"
    state  = "RollingOut"
    fields = {
      "spec.group"                                                       = "argocd"
      "metadata.ownerReferences.0.kind"                                  = "ClusterObjectDeployment"
      "metadata.ownerReferences.0.name"                                  = "argocd"
      "metadata.ownerReferences.0.controller"                            = true
      "metadata.annotations.olm\\.operatorframework\\.io/bundle-version" = "0.6.0"
    }
  }
  expect "1m" {
    object = "ConfigMap/default/argocd-operator-config"
    fields = { "metadata.ownerReferences.0.kind" = "ClusterObjectSet", "metadata.ownerReferences.0.name" = "argocd-1", "metadata.ownerReferences.0.controller" = true }
  }
  expect "1m" {
    object = "Deployment/default/argocd-operator"
    fields = { "metadata.ownerReferences.0.name" = "argocd-1" }
  }
  # The extension reports the rollout from the COD.
  expect "1m" {
    object = "ClusterExtension/argocd"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = {
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "RollingOut"
      "status.conditions[Progressing].message" = "ClusterObjectSet argocd-1 is rolling out; see its Ready condition"
      "status.conditions[Installed].status"    = "False"
      "status.conditions[Installed].reason"    = "Absent"
      "status.conditions[Installed].message"   = "No bundle installed"
      "status.install"                         = null
      "status.activeRevisions.0.name"          = "argocd-1"
    }
  }

  at "5m" {
    patch "Deployment/default/argocd-operator" {
      status = {
        observedGeneration = 1
        replicas           = 1
        updatedReplicas    = 1
        readyReplicas      = 1
        availableReplicas  = 1
        conditions         = [{ type = "Available", status = "True" }]
      }
    }
  }

  expect "5m" {
    object = "ClusterExtension/argocd"
    state  = "Installed"
    reason = "Succeeded"
    fields = {
      "status.outcome"                         = "Success"
      "status.observedGeneration"              = 1
      "status.conditions[Installed].status"    = "True"
      "status.conditions[Installed].reason"    = "Succeeded"
      "status.conditions[Installed].message"   = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully"
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "Succeeded"
      "status.conditions[Progressing].message" = "Desired state reached"
      "status.install.bundle.name"             = "argocd-operator.v0.6.0"
      "status.install.bundle.version"          = "0.6.0"
      "status.activeRevisions.0.name"          = "argocd-1"
      "status.activeRevisions.1"               = null
    }
  }
  expect "5m" {
    object = "ClusterObjectDeployment/argocd"
    state  = "Progressed"
  }
  # The COD was applied once: a resting extension writes nothing.
  expect "9m" {
    writes {
      verb  = "patch"
      kind  = "ClusterObjectDeployment"
      count = 1
    }
  }

  # Garbage collection follows the owner references down the chain, a
  # second a link.
  at "10m" {
    delete = ["ClusterExtension/argocd"]
  }
  expect "11m" {
    object = "ClusterObjectDeployment/argocd"
    absent = true
  }
  expect "11m" {
    object = "ClusterObjectSet/argocd-1"
    absent = true
  }
  expect "11m" {
    object = "ConfigMap/default/argocd-operator-config"
    absent = true
  }
  expect "11m" {
    object = "Deployment/default/argocd-operator"
    absent = true
  }
}
