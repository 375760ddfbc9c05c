# The extension's report follows the COD and its revisions, and only them:
# each field of the status that another writer changes (the top-level
# reason and message; the Installed condition missing, or its status,
# reason or message changed; status.install's bundle name or version;
# status.activeRevisions; the conditions' observedGeneration missing) is
# written back at once, one status write each, while a reconcile that
# finds the report current writes nothing. A resting extension reads its
# revisions again every poll_interval (10m by default): an edit of the
# installed revision's bundle-version annotation, which wakes no machine
# that writes, is reported at the next poll, 10 minutes after the
# extension last reconciled, not earlier: while Installed, and again while
# an upgrade rolls out.
scenario "a stale report is written back; a current one is not" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "61m"
  objects = ["argocd-v1.yaml"]

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
  }
  expect "5m" {
    writes {
      verb     = "status"
      kind     = "ClusterExtension"
      identity = "statecraft"
      count    = 3
    }
  }

  at "6m" {
    patch "ClusterExtension/argocd" {
      status = { reason = "Tampered" }
    }
  }
  expect "6m" {
    object = "ClusterExtension/argocd"
    state  = "Installed"
    reason = "Succeeded"
    fields = { "status.message" = "Desired state reached" }
  }

  at "7m" {
    patch "ClusterExtension/argocd" {
      status = { message = "tampered" }
    }
  }
  expect "7m" {
    object = "ClusterExtension/argocd"
    reason = "Succeeded"
    fields = { "status.message" = "Desired state reached" }
  }

  # The Installed condition removed.
  at "8m" {
    patch "ClusterExtension/argocd" {
      status = {
        conditions = [{ type = "Progressing", status = "True", reason = "Succeeded", message = "Desired state reached", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" }]
      }
    }
  }
  expect "8m" {
    object = "ClusterExtension/argocd"
    fields = {
      "status.conditions[Installed].status"  = "True"
      "status.conditions[Installed].reason"  = "Succeeded"
      "status.conditions[Installed].message" = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully"
    }
  }

  # Installed's status, then its reason, then its message changed.
  at "9m" {
    patch "ClusterExtension/argocd" {
      status = {
        conditions = [
          { type = "Progressing", status = "True", reason = "Succeeded", message = "Desired state reached", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
          { type = "Installed", status = "False", reason = "Succeeded", message = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
        ]
      }
    }
  }
  expect "9m" {
    object = "ClusterExtension/argocd"
    fields = { "status.conditions[Installed].status" = "True" }
  }
  at "10m" {
    patch "ClusterExtension/argocd" {
      status = {
        conditions = [
          { type = "Progressing", status = "True", reason = "Succeeded", message = "Desired state reached", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
          { type = "Installed", status = "True", reason = "Tampered", message = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
        ]
      }
    }
  }
  expect "10m" {
    object = "ClusterExtension/argocd"
    fields = { "status.conditions[Installed].reason" = "Succeeded" }
  }
  at "11m" {
    patch "ClusterExtension/argocd" {
      status = {
        conditions = [
          { type = "Progressing", status = "True", reason = "Succeeded", message = "Desired state reached", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
          { type = "Installed", status = "True", reason = "Succeeded", message = "tampered", observedGeneration = 1, lastTransitionTime = "2026-01-01T00:00:00Z" },
        ]
      }
    }
  }
  expect "11m" {
    object = "ClusterExtension/argocd"
    fields = { "status.conditions[Installed].message" = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully" }
  }

  # status.install's name, then its version, then activeRevisions.
  at "12m" {
    patch "ClusterExtension/argocd" {
      status = { install = { bundle = { name = "tampered" } } }
    }
  }
  expect "12m" {
    object = "ClusterExtension/argocd"
    fields = { "status.install.bundle.name" = "argocd-operator.v0.6.0" }
  }
  at "13m" {
    patch "ClusterExtension/argocd" {
      status = { install = { bundle = { version = "9.9.9" } } }
    }
  }
  expect "13m" {
    object = "ClusterExtension/argocd"
    fields = { "status.install.bundle.version" = "0.6.0" }
  }
  at "14m" {
    patch "ClusterExtension/argocd" {
      status = { activeRevisions = [] }
    }
  }
  expect "14m" {
    object = "ClusterExtension/argocd"
    fields = { "status.activeRevisions.0.name" = "argocd-1", "status.activeRevisions.1" = null }
  }

  # Conditions without observedGeneration.
  at "15m" {
    patch "ClusterExtension/argocd" {
      status = {
        conditions = [
          { type = "Progressing", status = "True", reason = "Succeeded", message = "Desired state reached", lastTransitionTime = "2026-01-01T00:00:00Z" },
          { type = "Installed", status = "True", reason = "Succeeded", message = "Installed bundle quay.io/operatorhubio/argocd-operator@sha256:0a1b successfully", lastTransitionTime = "2026-01-01T00:00:00Z" },
        ]
      }
    }
  }
  expect "15m" {
    object = "ClusterExtension/argocd"
    fields = { "status.conditions[Progressing].observedGeneration" = 1, "status.conditions[Installed].observedGeneration" = 1 }
  }
  # One write back for each of the ten changes, none more.
  expect "15m" {
    writes {
      verb     = "status"
      kind     = "ClusterExtension"
      identity = "statecraft"
      count    = 13
    }
  }

  # The installed revision's bundle version edited at 16m; the extension
  # last reconciled at 15m.
  at "16m" {
    patch "ClusterObjectSet/argocd-1" {
      merge = { metadata = { annotations = { "olm.operatorframework.io/bundle-version" = "0.6.1" } } }
    }
  }
  expect "24m59s" {
    object = "ClusterExtension/argocd"
    state  = "Installed"
    fields = { "status.install.bundle.version" = "0.6.0" }
  }
  expect "25m" {
    object = "ClusterExtension/argocd"
    state  = "Installed"
    fields = { "status.install.bundle.version" = "0.6.1" }
  }
  # Polls at 35m and 45m find the report current: no write.
  expect "49m" {
    writes {
      verb     = "status"
      kind     = "ClusterExtension"
      identity = "statecraft"
      count    = 14
    }
  }

  # Mid-upgrade (RollingOut, 0.7.0's Deployment not yet available), the
  # installed revision's bundle version is edited again.
  at "50m" {
    patch "ClusterExtension/argocd" {
      merge = {
        spec = {
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
  expect "51m" {
    object = "ClusterExtension/argocd"
    state  = "RollingOut"
    fields = { "status.install.bundle.version" = "0.6.1" }
  }
  at "52m" {
    patch "ClusterObjectSet/argocd-1" {
      merge = { metadata = { annotations = { "olm.operatorframework.io/bundle-version" = "0.6.2" } } }
    }
  }
  # The extension last reconciled at 50m.
  expect "59m59s" {
    object = "ClusterExtension/argocd"
    state  = "RollingOut"
    fields = { "status.install.bundle.version" = "0.6.1" }
  }
  expect "60m" {
    object = "ClusterExtension/argocd"
    state  = "RollingOut"
    fields = { "status.install.bundle.version" = "0.6.2", "status.conditions[Installed].status" = "True" }
  }
}
