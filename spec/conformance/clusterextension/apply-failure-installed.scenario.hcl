# Applying the COD fails while a bundle is installed: the Retrying report
# keeps the installed bundle (Installed=True/Succeeded, status.install).
# Bundle 0.6.0 is rolling out when the extension is edited to 0.7.0 at 1m;
# applying the new template fails at 1m and again at 1m5s, when revision
# argocd-1 (0.6.0) has just completed: the second failure reports 0.6.0 as
# installed. Each failure's report also lists the active revisions
# (argocd-1), whatever the status said before. The retry at 1m15s
# succeeds.
scenario "applying the COD fails while a bundle is installed" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "3m"
  objects = ["argocd-v1.yaml"]

  expect "30s" {
    object = "ClusterExtension/argocd"
    state  = "RollingOut"
  }

  at "1m" {
    # From now, patches of the COD: the extension's apply at 1m (fails),
    # the COD's status write at 1m5s, the extension's apply just after it
    # (fails).
    fault {
      verb     = "patch"
      kind     = "ClusterObjectDeployment"
      at_calls = [1, 3]
      outcome  = "transient"
      message  = "etcdserver: request timed out"
    }
    patch "ClusterExtension/argocd" {
      merge = {
        spec = {
          bundle = {
            name    = "argocd-operator.v0.7.0"
            version = "0.7.0"
            image   = "quay.io/operatorhubio/argocd-operator@sha256:7c8d"
            phases = [{
              name = "config"
              objects = [{
                type           = "InlineManifest"
                inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "argocd-operator-config", namespace = "default" }, data = { version = "0.7.0" } }
              }]
            }]
          }
        }
      }
      # Another writer leaves a wrong list of active revisions behind.
      status = { activeRevisions = [{ name = "argocd-0" }] }
    }
  }
  expect "1m" {
    object = "ClusterExtension/argocd"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.conditions[Progressing].message" = "applying ClusterObjectDeployment argocd: etcdserver: request timed out"
      "status.conditions[Installed].status"    = "False"
      "status.conditions[Installed].reason"    = "Failed"
      "status.install"                         = null
      "status.activeRevisions.0.name"          = "argocd-1"
      "status.activeRevisions.1"               = null
    }
  }

  at "1m5s" {
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
  expect "1m5s" {
    object = "ClusterObjectSet/argocd-1"
    state  = "Ready"
  }
  expect "1m5s" {
    object = "ClusterExtension/argocd"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.conditions[Progressing].reason" = "Retrying"
      "status.conditions[Installed].status"   = "True"
      "status.conditions[Installed].reason"   = "Succeeded"
      "status.conditions[Installed].message"  = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully"
      "status.install.bundle.name"            = "argocd-operator.v0.6.0"
      "status.install.bundle.version"         = "0.6.0"
      "status.activeRevisions.0.name"         = "argocd-1"
    }
  }
  expect "1m15s" {
    writes {
      verb     = "patch"
      kind     = "ClusterObjectDeployment"
      identity = "statecraft"
      count    = 4
    }
  }
  expect "2m" {
    object = "ClusterExtension/argocd"
    state  = "Installed"
    fields = { "status.install.bundle.version" = "0.7.0" }
  }
}
