# An upgrade blocked by an ownership conflict. Bundle 1.0.0 is installed
# (revision cache-1). Another controller's revision cache-2 becomes the
# highest active member of group cache; then the extension is upgraded to
# 2.0.0 (generation 2). The COD reports OwnerConflict and creates no
# revision; the extension reports Progressing=True/Retrying with the COD's
# message, keeps the installed bundle 1.0.0 and Installed=True, and
# acknowledges generation 2 (status and both conditions). When the
# conflicting revision is removed, the upgrade resumes on its own and 2.0.0
# is installed.
scenario "owner conflict during an upgrade" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["cache-v1.yaml"]

  expect "1m" {
    object = "ClusterExtension/cache"
    state  = "Installed"
    fields = { "status.install.bundle.version" = "1.0.0", "status.conditions[Installed].observedGeneration" = 1 }
  }

  at "2m" {
    create = ["foreign-cache-2.yaml"]
  }
  at "3m" {
    patch "ClusterExtension/cache" {
      merge = {
        spec = {
          bundle = {
            name    = "cache-operator.v2.0.0"
            version = "2.0.0"
            phases = [{
              name = "config"
              objects = [{
                type           = "InlineManifest"
                inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "cache-config", namespace = "default" }, data = { version = "2.0.0" } }
              }]
            }]
          }
        }
      }
    }
  }

  expect "4m" {
    object = "ClusterObjectDeployment/cache"
    state  = "OwnerConflict"
    fields = { "status.conditions[Progressing].message" = "ClusterObjectSet cache-2 (revision 2) is controlled by Other someone; no new revision is created" }
  }
  expect "4m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.observedGeneration"                         = 2
      "status.conditions[Progressing].status"             = "True"
      "status.conditions[Progressing].reason"             = "Retrying"
      "status.conditions[Progressing].message"            = "ClusterObjectSet cache-2 (revision 2) is controlled by Other someone; no new revision is created"
      "status.conditions[Progressing].observedGeneration" = 2
      "status.conditions[Installed].status"               = "True"
      "status.conditions[Installed].reason"               = "Succeeded"
      "status.conditions[Installed].message"              = "Installed bundle cache-operator.v1.0.0 successfully"
      "status.conditions[Installed].observedGeneration"   = 2
      "status.install.bundle.name"                        = "cache-operator.v1.0.0"
      "status.install.bundle.version"                     = "1.0.0"
      "status.activeRevisions.0.name"                     = "cache-1"
      "status.activeRevisions.1"                          = null
    }
  }
  expect "4m" {
    object = "ClusterObjectSet/cache-1"
    state  = "Ready"
    fields = { "spec.lifecycleState" = "Active" }
  }
  expect "4m" {
    object = "ConfigMap/default/cache-config"
    fields = { "data.version" = "1.0.0" }
  }

  # The conflict clears; the COD notices at its next poll (10 minutes after
  # it last reconciled, at 3m).
  at "5m" {
    delete = ["ClusterObjectSet/cache-2"]
  }
  expect "12m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    fields = { "status.install.bundle.version" = "1.0.0" }
  }

  expect "14m" {
    object = "ClusterExtension/cache"
    state  = "Installed"
    reason = "Succeeded"
    fields = {
      "status.conditions[Progressing].reason" = "Succeeded"
      "status.conditions[Installed].status"   = "True"
      "status.conditions[Installed].message"  = "Installed bundle cache-operator.v2.0.0 successfully"
      "status.install.bundle.name"            = "cache-operator.v2.0.0"
      "status.install.bundle.version"         = "2.0.0"
      "status.activeRevisions.0.name"         = "cache-2"
      "status.activeRevisions.1"              = null
    }
  }
  expect "14m" {
    object = "ClusterObjectSet/cache-2"
    fields = { "metadata.ownerReferences.0.kind" = "ClusterObjectDeployment", "spec.revision" = 2 }
  }
  expect "14m" {
    object = "ClusterObjectSet/cache-1"
    fields = { "spec.lifecycleState" = "Archived" }
  }
  expect "14m" {
    object = "ConfigMap/default/cache-config"
    fields = { "data.version" = "2.0.0" }
  }
}
