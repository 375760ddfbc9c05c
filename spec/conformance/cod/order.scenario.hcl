# COD-33: the order of objects and the order of progression probes are part
# of the template. The same two ConfigMaps in the other order create
# revision 2 (applied in the new order); the same two probes in the other
# order create revision 3. Each new revision completes and archives the one
# before it; the objects keep their content.
scenario "object and probe order create revisions" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["order-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 1 }
  }

  # The same objects, web-b first.
  at "2m" {
    patch "ClusterObjectDeployment/web" {
      merge = {
        spec = {
          template = {
            spec = {
              phases = [{
                name = "config"
                objects = [
                  { type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-b", namespace = "default", labels = { probe = "b" } }, data = { k = "b" } } },
                  { type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default", labels = { probe = "a" } }, data = { k = "a" } } },
                ]
              }]
            }
          }
        }
      }
    }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.latestRevision" = 2, "status.conditions[Available].message" = "ready: web-2" }
  }
  expect "3m" {
    object = "ClusterObjectSet/web-2"
    state  = "Ready"
    fields = {
      "spec.phases.0.objects.0.inlineManifest.metadata.name"      = "web-b"
      "spec.phases.0.objects.1.inlineManifest.metadata.name"      = "web-a"
      "spec.progressionProbes.0.selector.label.matchLabels.probe" = "a"
    }
  }
  expect "3m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "3m" {
    object = "ConfigMap/default/web-a"
    fields = { "data.k" = "a", "metadata.ownerReferences.0.name" = "web-2" }
  }

  # The same probes, web-b's first.
  at "4m" {
    patch "ClusterObjectDeployment/web" {
      merge = {
        spec = {
          template = {
            spec = {
              progressionProbes = [
                {
                  selector   = { type = "Label", label = { matchLabels = { probe = "b" } } }
                  assertions = [{ type = "CEL", cel = { expression = "self.data.k == 'b'", message = "web-b holds b" } }]
                },
                {
                  selector   = { type = "Label", label = { matchLabels = { probe = "a" } } }
                  assertions = [{ type = "CEL", cel = { expression = "self.data.k == 'a'", message = "web-a holds a" } }]
                },
              ]
            }
          }
        }
      }
    }
  }
  expect "5m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    reason = "NewClusterObjectSetProgressed"
    fields = { "status.latestRevision" = 3, "status.conditions[Available].message" = "ready: web-3" }
  }
  expect "5m" {
    object = "ClusterObjectSet/web-3"
    state  = "Ready"
    fields = {
      "spec.progressionProbes.0.selector.label.matchLabels.probe" = "b"
      "spec.progressionProbes.1.selector.label.matchLabels.probe" = "a"
      "spec.phases.0.objects.0.inlineManifest.metadata.name"      = "web-b"
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/web-2"
    state  = "Archived"
  }
  expect "10m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 3
    }
  }
}
