# The seed's table "Which edits create revisions?", in order: root metadata,
# the deadline, the history limit and an unchanged template keep revision
# 1; a template label, a template annotation, collision protection and the
# order of phases each create the next revision. The controller's group,
# revision, lifecycle state, owner reference and template-hash label win
# over the template; template labels reach the COS, not its objects.
scenario "which edits create revisions" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "30m"
  objects = ["revisions-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
    fields = {
      "spec.group"                                                 = "web"
      "spec.revision"                                              = 1
      "spec.lifecycleState"                                        = "Active"
      "metadata.ownerReferences.0.kind"                            = "ClusterObjectDeployment"
      "metadata.ownerReferences.0.name"                            = "web"
      "metadata.ownerReferences.0.controller"                      = true
      "metadata.labels.team"                                       = "blue"
      "metadata.labels.olm\\.operatorframework\\.io/template-hash" = "179b1d65"
      "metadata.labels.apps\\.kubernetes\\.io/managed-by"          = "object-controller"
    }
  }
  expect "1m" {
    object = "ConfigMap/default/web-a"
    fields = { "metadata.labels" = null, "metadata.ownerReferences.0.name" = "web-1" }
  }

  at "5m" {
    patch "ClusterObjectDeployment/web" {
      merge = { metadata = { labels = { root = "yes" }, annotations = { note = "root" } } }
    }
  }
  # Root metadata is no spec edit: the generation, and the conditions' observedGeneration, stay.
  expect "5m" {
    object = "ClusterObjectDeployment/web"
    fields = { "metadata.generation" = 1, "status.conditions[Progressing].observedGeneration" = 1, "status.conditions[Available].observedGeneration" = 1 }
  }
  at "6m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { progressDeadlineMinutes = 30 } }
    }
  }
  # Spec edits that change no report: the conditions are re-evaluated for
  # the new generation (Kubernetes' observedGeneration: the generation the
  # condition was set based upon), their reasons and times unchanged.
  expect "6m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "metadata.generation"                               = 2
      "status.conditions[Progressing].observedGeneration" = 2
      "status.conditions[Available].observedGeneration"   = 2
      "status.conditions[Progressing].reason"             = "NewClusterObjectSetProgressed"
      "status.conditions[Progressing].lastTransitionTime" = "2026-01-01T00:00:00Z"
    }
  }
  at "7m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { revisionHistoryLimit = 3 } }
    }
  }
  expect "7m" {
    object = "ClusterObjectDeployment/web"
    fields = { "metadata.generation" = 3, "status.conditions[Progressing].observedGeneration" = 3, "status.conditions[Available].observedGeneration" = 3 }
  }
  # Reapplying the unchanged template.
  at "8m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { metadata = { labels = { team = "blue" } } } } }
    }
  }
  expect "9m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 1 }
  }
  expect "9m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }

  at "10m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { metadata = { labels = { team = "green" } } } } }
    }
  }
  expect "11m" {
    object = "ClusterObjectSet/web-2"
    fields = { "metadata.labels.team" = "green", "spec.lifecycleState" = "Active" }
  }
  # A spec edit that changes the report (a new revision).
  expect "11m" {
    object = "ClusterObjectDeployment/web"
    fields = { "metadata.generation" = 4, "status.latestRevision" = 2, "status.conditions[Progressing].observedGeneration" = 4, "status.conditions[Available].observedGeneration" = 4 }
  }
  at "12m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { metadata = { annotations = { docs = "v2" } } } } }
    }
  }
  expect "13m" {
    object = "ClusterObjectSet/web-3"
    fields = { "metadata.annotations.docs" = "v2" }
  }
  at "14m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { spec = { collisionProtection = "IfNoController" } } } }
    }
  }
  expect "15m" {
    object = "ClusterObjectSet/web-4"
    fields = { "spec.collisionProtection" = "IfNoController" }
  }
  # The same phases in the other order.
  at "16m" {
    patch "ClusterObjectDeployment/web" {
      merge = {
        spec = {
          template = {
            spec = {
              phases = [
                {
                  name = "more"
                  objects = [{
                    type           = "InlineManifest"
                    inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-b", namespace = "default" }, data = { k = "b" } }
                  }]
                },
                {
                  name = "config"
                  objects = [{
                    type           = "InlineManifest"
                    inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default" }, data = { k = "a" } }
                  }]
                },
              ]
            }
          }
        }
      }
    }
  }
  expect "17m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.latestRevision" = 5 }
  }
  expect "17m" {
    object = "ClusterObjectSet/web-5"
    state  = "Ready"
    fields = { "spec.phases.0.name" = "more" }
  }
  # Revisions 1-4 are archived; revisionHistoryLimit 3 prunes the oldest.
  expect "17m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "17m" {
    object = "ClusterObjectSet/web-2"
    state  = "Archived"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "30m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 5
    }
  }
}
