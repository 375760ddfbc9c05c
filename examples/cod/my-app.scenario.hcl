# The seed's my-app example: revision 1 rolls out the ConfigMap; a template
# edit (revision B) creates revision 2, which takes the ConfigMap over
# without re-creating it (same uid); revision 1 is archived and torn down
# (it only releases its owner reference), and stays as history
# (revisionHistoryLimit 2). Restoring template A creates revision 3; a
# fourth template archives revision 3 and prunes revision 1.
scenario "my-app: revisions 1 to 4, history limit 2" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "30m"
  objects = ["my-app.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/my-app"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = {
      "status.latestRevision"                 = 1
      "status.conditions[Available].status"   = "True"
      "status.conditions[Progressing].status" = "False"
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/my-app-1"
    state  = "Ready"
    fields = {
      "spec.group"                                 = "my-app"
      "spec.revision"                              = 1
      "spec.lifecycleState"                        = "Active"
      "metadata.ownerReferences.0.name"            = "my-app"
      "metadata.ownerReferences.0.controller"      = true
      "metadata.labels.app\\.kubernetes\\.io/name" = "my-app"
      "status.completedAt"                         = "2026-01-01T00:00:00Z"
      "status.conditions[Ready].status"            = "True"
    }
  }
  expect "1m" {
    object = "ConfigMap/default/my-app-settings"
    fields = { "data.message" = "Hello from revision A", "metadata.uid" = "uid-000009" }
  }

  at "10m" {
    patch "ClusterObjectDeployment/my-app" {
      merge = {
        spec = {
          template = {
            metadata = { labels = { "app.kubernetes.io/name" = "my-app" } }
            spec = {
              collisionProtection = "Prevent"
              phases = [{
                name = "configuration"
                objects = [{
                  type = "InlineManifest"
                  inlineManifest = {
                    apiVersion = "v1"
                    kind       = "ConfigMap"
                    metadata   = { name = "my-app-settings", namespace = "default" }
                    data       = { message = "Hello from revision B" }
                  }
                }]
              }]
            }
          }
        }
      }
    }
  }

  expect "11m" {
    object = "ClusterObjectDeployment/my-app"
    state  = "Progressed"
    fields = { "status.latestRevision" = 2 }
  }
  expect "11m" {
    object = "ConfigMap/default/my-app-settings"
    fields = {
      "data.message"                          = "Hello from revision B"
      "metadata.uid"                          = "uid-000009"
      "metadata.ownerReferences.0.name"       = "my-app-2"
      "metadata.ownerReferences.0.controller" = true
      "metadata.ownerReferences.1"            = null
    }
  }
  expect "11m" {
    object = "ClusterObjectSet/my-app-1"
    state  = "Archived"
    fields = { "spec.lifecycleState" = "Archived" }
  }

  at "20m" {
    patch "ClusterObjectDeployment/my-app" {
      merge = {
        spec = {
          template = {
            metadata = { labels = { "app.kubernetes.io/name" = "my-app" } }
            spec = {
              collisionProtection = "Prevent"
              phases = [{
                name = "configuration"
                objects = [{
                  type = "InlineManifest"
                  inlineManifest = {
                    apiVersion = "v1"
                    kind       = "ConfigMap"
                    metadata   = { name = "my-app-settings", namespace = "default" }
                    data       = { message = "Hello from revision A" }
                  }
                }]
              }]
            }
          }
        }
      }
    }
  }

  expect "21m" {
    object = "ClusterObjectDeployment/my-app"
    state  = "Progressed"
    fields = { "status.latestRevision" = 3 }
  }
  expect "21m" {
    object = "ClusterObjectSet/my-app-3"
    fields = { "spec.revision" = 3, "spec.lifecycleState" = "Active" }
  }
  expect "21m" {
    object = "ClusterObjectSet/my-app-1"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  # A fourth template: three archived revisions exceed revisionHistoryLimit
  # 2, and the oldest, whose teardown finished long ago, is pruned.
  at "25m" {
    patch "ClusterObjectDeployment/my-app" {
      merge = { spec = { template = { metadata = { labels = { "app.kubernetes.io/version" = "c" } } } } }
    }
  }
  expect "26m" {
    object = "ClusterObjectSet/my-app-1"
    absent = true
  }
  expect "26m" {
    object = "ClusterObjectSet/my-app-2"
    state  = "Archived"
  }
  expect "26m" {
    object = "ClusterObjectDeployment/my-app"
    state  = "Progressed"
    fields = { "status.latestRevision" = 4 }
  }
  expect "26m" {
    object = "ConfigMap/default/my-app-settings"
    fields = { "metadata.uid" = "uid-000009", "metadata.ownerReferences.0.name" = "my-app-4" }
  }
  expect "30m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 4
    }
  }
}
