# Revision B keeps ConfigMap "shared" (new data), drops "only-a", adds
# "only-b" and a Deployment that is not ready before minute 14. While B
# rolls out, stalls and exceeds its deadline, A stays Active and keeps the
# COD Available. B takes "shared" over without re-creating it (same uid; A's
# reference stays, no longer controller). Once B is complete it archives A;
# A's teardown deletes only what it still controls ("only-a") and releases
# "shared".
scenario "handoff between revisions" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["handoff-cod.yaml"]

  expect "1m" {
    object = "ConfigMap/default/shared"
    fields = { "metadata.uid" = "uid-000009" }
  }

  at "2m" {
    patch "ClusterObjectDeployment/web" {
      merge = {
        spec = {
          template = {
            spec = {
              phases = [
                {
                  name = "config"
                  objects = [
                    { type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "shared", namespace = "default" }, data = { v = "B" } } },
                    { type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "only-b", namespace = "default" }, data = { v = "B" } } },
                  ]
                },
                {
                  name = "workload"
                  objects = [{
                    type = "InlineManifest"
                    inlineManifest = {
                      apiVersion = "apps/v1"
                      kind       = "Deployment"
                      metadata   = { name = "web", namespace = "default" }
                      spec = {
                        replicas = 1
                        selector = { matchLabels = { app = "web" } }
                        template = { metadata = { labels = { app = "web" } }, spec = { containers = [{ name = "web", image = "web:2" }] } }
                      }
                    }
                  }]
                },
              ]
            }
          }
        }
      }
    }
  }

  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = {
      "status.latestRevision"                = 2
      "status.conditions[Available].status"  = "True"
      "status.conditions[Available].message" = "ready: web-1"
    }
  }
  expect "3m" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "3m" {
    object = "ConfigMap/default/shared"
    fields = {
      "metadata.uid"                          = "uid-000009"
      "data.v"                                = "B"
      "metadata.ownerReferences.0.name"       = "web-1"
      "metadata.ownerReferences.0.controller" = false
      "metadata.ownerReferences.1.name"       = "web-2"
      "metadata.ownerReferences.1.controller" = true
    }
  }
  expect "3m" {
    object = "ConfigMap/default/only-a"
    fields = { "metadata.ownerReferences.0.name" = "web-1" }
  }
  # Revision 2's deadline: created at minute 2, five minutes.
  expect "7m" {
    object = "ClusterObjectDeployment/web"
    state  = "ProgressDeadlineExceeded"
    fields = { "status.conditions[Available].status" = "True", "status.conditions[Available].message" = "ready: web-1" }
  }

  at "14m" {
    patch "Deployment/default/web" {
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
  expect "14m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "14m" {
    object = "ConfigMap/default/only-a"
    absent = true
  }
  expect "14m" {
    object = "ConfigMap/default/shared"
    fields = {
      "metadata.uid"                    = "uid-000009"
      "metadata.ownerReferences.0.name" = "web-2"
      "metadata.ownerReferences.1"      = null
    }
  }
  expect "14m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.conditions[Available].message" = "ready: web-2" }
  }
  expect "20m" {
    writes {
      verb  = "create"
      kind  = "ConfigMap"
      count = 0
    }
  }
}
