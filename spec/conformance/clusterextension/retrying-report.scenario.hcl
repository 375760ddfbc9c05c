# While the extension reports Retrying (an upgrade blocked by another
# controller's revision cache-2, as in conflict-upgrade), its report keeps
# following its revisions, read at each poll (10m after it last reconciled,
# at 3m): the installed revision cache-1's bundle-version annotation,
# edited at 4m, is reported at 13m, not before; cache-1, deleted at 14m
# while a finalizer holds it, is no longer active nor installed (the COD's
# status write wakes the extension at once): status.activeRevisions empty,
# status.install absent, Installed=False/Failed.
scenario "a Retrying report follows the installed revisions" {
  rules   = ["clusterextension", "clusterobjectdeployment", "clusterobjectset"]
  run_for = "25m"
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
    object = "ClusterExtension/cache"
    state  = "Retrying"
    fields = { "status.install.bundle.version" = "1.0.0", "status.activeRevisions.0.name" = "cache-1" }
  }
  at "4m" {
    patch "ClusterObjectSet/cache-1" {
      merge = { metadata = { annotations = { "olm.operatorframework.io/bundle-version" = "1.0.1" } } }
    }
  }
  expect "12m59s" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    fields = { "status.install.bundle.version" = "1.0.0" }
  }
  expect "13m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = { "status.install.bundle.version" = "1.0.1", "status.activeRevisions.0.name" = "cache-1" }
  }

  at "14m" {
    patch "ClusterObjectSet/cache-1" {
      merge = { metadata = { finalizers = ["example.com/hold"] } }
    }
  }
  at "14m" {
    delete = ["ClusterObjectSet/cache-1"]
  }
  expect "14m" {
    object = "ClusterObjectSet/cache-1"
    fields = { "metadata.finalizers.0" = "example.com/hold" }
  }
  expect "14m" {
    object = "ClusterExtension/cache"
    state  = "Retrying"
    reason = "Retrying"
    fields = {
      "status.install"                      = null
      "status.activeRevisions.0"            = null
      "status.conditions[Installed].status" = "False"
      "status.conditions[Installed].reason" = "Failed"
    }
  }
}
