# COD-55: revision 1 is ready. Revision 2 adds ConfigMap web-x, which
# another controller controls; collision protection Prevent stalls it
# (ObjectCollision; its phase is not applied at all, so web-a stays with
# revision 1). While it stalls, also past its five-minute deadline, revision
# 1 stays Active and Ready and the COD Available=True; Progressing is
# False/RevisionObjectCollision naming web-2. Once the other controller's
# ConfigMap is deleted, revision 2 applies its phase (for that instant,
# incomplete and past its budget, the COD reports ProgressDeadlineExceeded),
# completes, archives revision 1, and the COD is available from revision 2.
scenario "older ready revision keeps the COD available while the successor collides" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["stalled-objects.yaml", "stalled-cod.yaml"]

  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 1, "status.conditions[Available].status" = "True" }
  }

  at "2m" {
    patch "ClusterObjectDeployment/web" {
      merge = {
        spec = {
          template = {
            spec = {
              phases = [{
                name = "config"
                objects = [
                  { type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default" }, data = { k = "b" } } },
                  { type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-x", namespace = "default" }, data = { k = "x" } } },
                ]
              }]
            }
          }
        }
      }
    }
  }

  expect "3m" {
    object = "ClusterObjectSet/web-2"
    state  = "ObjectCollision"
    fields = {
      "status.conditions[Ready].status"  = "False"
      "status.conditions[Ready].reason"  = "ObjectCollision"
      "status.conditions[Ready].message" = "phase config: ConfigMap default/web-x is controlled by Other someone (collisionProtection Prevent)"
    }
  }
  expect "3m" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active", "status.conditions[Ready].status" = "True" }
  }
  expect "3m" {
    object = "ConfigMap/default/web-x"
    fields = { "data.k" = "foreign", "metadata.ownerReferences.0.uid" = "other-uid", "metadata.ownerReferences.1" = null }
  }
  expect "3m" {
    object = "ConfigMap/default/web-a"
    fields = { "data.k" = "a", "metadata.ownerReferences.0.name" = "web-1", "metadata.ownerReferences.1" = null }
  }
  expect "3m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
    fields = {
      "status.latestRevision"                  = 2
      "status.conditions[Progressing].status"  = "False"
      "status.conditions[Progressing].reason"  = "RevisionObjectCollision"
      "status.conditions[Progressing].message" = "ClusterObjectSet web-2: phase config: ConfigMap default/web-x is controlled by Other someone (collisionProtection Prevent)"
      "status.conditions[Available].status"    = "True"
      "status.conditions[Available].reason"    = "Available"
      "status.conditions[Available].message"   = "ready: web-1"
    }
  }
  # Past revision 2's deadline (created at 2m, five minutes): the hard stall
  # keeps its reason and revision 1 keeps the COD available.
  expect "9m" {
    object = "ClusterObjectDeployment/web"
    state  = "RevisionObjectCollision"
    fields = {
      "status.conditions[Progressing].reason" = "RevisionObjectCollision"
      "status.conditions[Available].status"   = "True"
      "status.conditions[Available].message"  = "ready: web-1"
    }
  }
  expect "9m" {
    object = "ClusterObjectSet/web-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }

  at "10m" {
    delete = ["ConfigMap/default/web-x"]
  }
  expect "12m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = {
      "status.conditions[Progressing].reason" = "NewClusterObjectSetProgressed"
      "status.conditions[Available].message"  = "ready: web-2"
    }
  }
  expect "12m" {
    object = "ClusterObjectSet/web-1"
    state  = "Archived"
  }
  expect "12m" {
    object = "ConfigMap/default/web-x"
    fields = { "data.k" = "x", "metadata.ownerReferences.0.name" = "web-2" }
  }
}
