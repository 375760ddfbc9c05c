# An upgrade: the extension's bundle goes from 0.6.0 to 0.7.0 (an edit of
# spec.bundle, generation 2). The extension applies the new template to its
# COD, which stamps out revision argocd-2. Until argocd-2 completes, the
# extension keeps reporting the installed bundle 0.6.0 with Installed=True,
# while Progressing=True/RollingOut, both conditions and status
# observedGeneration acknowledging generation 2. Once argocd-2 completes
# (its Deployment available), 0.7.0 is the installed bundle and argocd-1 is
# archived.
scenario "upgrade keeps the installed bundle until the rollout completes" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "12m"
  objects = ["argocd-v1.yaml"]

  at "1m" {
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
  expect "2m" {
    object = "ClusterExtension/argocd"
    state  = "Installed"
    fields = { "status.install.bundle.version" = "0.6.0", "status.observedGeneration" = 1 }
  }

  at "3m" {
    patch "ClusterExtension/argocd" {
      merge = {
        spec = {
          source = { catalog = { version = "0.7.0" } }
          bundle = {
            name    = "argocd-operator.v0.7.0"
            version = "0.7.0"
            image   = "quay.io/operatorhubio/argocd-operator@sha256:7c8d"
            phases = [
              {
                name = "config"
                objects = [{
                  type           = "InlineManifest"
                  inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "argocd-operator-config", namespace = "default" }, data = { version = "0.7.0" } }
                }]
              },
              {
                name = "workload"
                objects = [{
                  type = "InlineManifest"
                  inlineManifest = {
                    apiVersion = "apps/v1"
                    kind       = "Deployment"
                    metadata   = { name = "argocd-operator", namespace = "default" }
                    spec = {
                      replicas = 1
                      selector = { matchLabels = { app = "argocd-operator" } }
                      template = {
                        metadata = { labels = { app = "argocd-operator" } }
                        spec     = { containers = [{ name = "manager", image = "quay.io/argoprojlabs/argocd-operator:v0.7.0" }] }
                      }
                    }
                  }
                }]
              }
            ]
          }
        }
      }
    }
  }

  # Mid-upgrade: the previous bundle and Installed=True are kept; the
  # current spec is acknowledged.
  expect "4m" {
    object = "ClusterExtension/argocd"
    state  = "RollingOut"
    reason = "RollingOut"
    fields = {
      "status.observedGeneration"                         = 2
      "status.conditions[Installed].status"               = "True"
      "status.conditions[Installed].reason"               = "Succeeded"
      "status.conditions[Installed].message"              = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully"
      "status.conditions[Installed].observedGeneration"   = 2
      "status.conditions[Progressing].status"             = "True"
      "status.conditions[Progressing].reason"             = "RollingOut"
      "status.conditions[Progressing].message"            = "ClusterObjectSet argocd-2 is rolling out; see its Ready condition"
      "status.conditions[Progressing].observedGeneration" = 2
      "status.install.bundle.name"                        = "argocd-operator.v0.6.0"
      "status.install.bundle.version"                     = "0.6.0"
      "status.activeRevisions.0.name"                     = "argocd-1"
      "status.activeRevisions.1.name"                     = "argocd-2"
    }
  }
  expect "4m" {
    object = "ClusterObjectSet/argocd-1"
    fields = { "spec.lifecycleState" = "Active", "metadata.annotations.olm\\.operatorframework\\.io/bundle-version" = "0.6.0" }
  }
  expect "4m" {
    object = "ClusterObjectSet/argocd-2"
    state  = "RollingOut"
    fields = { "metadata.annotations.olm\\.operatorframework\\.io/bundle-version" = "0.7.0" }
  }

  # The new Deployment becomes available: revision 2 completes.
  at "6m" {
    patch "Deployment/default/argocd-operator" {
      status = {
        observedGeneration = 2
        replicas           = 1
        updatedReplicas    = 1
        readyReplicas      = 1
        availableReplicas  = 1
        conditions         = [{ type = "Available", status = "True" }]
      }
    }
  }
  expect "6m" {
    object = "ClusterExtension/argocd"
    state  = "Installed"
    reason = "Succeeded"
    fields = {
      "status.conditions[Installed].status"    = "True"
      "status.conditions[Installed].message"   = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:7c8d successfully"
      "status.conditions[Progressing].reason"  = "Succeeded"
      "status.conditions[Progressing].message" = "Desired state reached"
      "status.install.bundle.name"             = "argocd-operator.v0.7.0"
      "status.install.bundle.version"          = "0.7.0"
      "status.activeRevisions.0.name"          = "argocd-2"
      "status.activeRevisions.1"               = null
    }
  }
  expect "6m" {
    object = "ClusterObjectSet/argocd-1"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "6m" {
    object = "ConfigMap/default/argocd-operator-config"
    fields = { "data.version" = "0.7.0", "metadata.ownerReferences.0.name" = "argocd-2" }
  }
}
