# COD-27 COD-36: the history limit counts owned archived revisions that are
# not being deleted. web-1, held by a finalizer, is pruned once (at 3m, when
# web-3 makes two archived revisions for a limit of one) and stays,
# deleting: it is neither pruned again nor counted, so web-2 is kept until
# web-4 archives web-3 (4m), and only web-2 is pruned then.
scenario "a deleting archived revision is not history" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "6m"
  objects = ["history-held-cod.yaml"]

  at "1m" {
    patch "ClusterObjectSet/web-1" {
      merge = { metadata = { finalizers = ["test.statecraft.dev/hold"] } }
    }
  }
  at "2m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { spec = { phases = [{ name = "config", objects = [{ type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default" }, data = { k = "b" } } }] }] } } } }
    }
  }
  at "3m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { spec = { phases = [{ name = "config", objects = [{ type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default" }, data = { k = "c" } } }] }] } } } }
    }
  }
  expect "3m30s" {
    writes {
      verb     = "delete"
      kind     = "ClusterObjectSet"
      identity = "statecraft"
      count    = 1
    }
  }
  expect "3m30s" {
    # Deleted once (the one delete above), held by its finalizer.
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.finalizers.0" = "test.statecraft.dev/hold" }
  }
  expect "3m30s" {
    object = "ClusterObjectSet/web-2"
    state  = "Archived"
    fields = { "metadata.deletionTimestamp" = null }
  }
  expect "3m30s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 3 }
  }

  at "4m" {
    patch "ClusterObjectDeployment/web" {
      merge = { spec = { template = { spec = { phases = [{ name = "config", objects = [{ type = "InlineManifest", inlineManifest = { apiVersion = "v1", kind = "ConfigMap", metadata = { name = "web-a", namespace = "default" }, data = { k = "d" } } }] }] } } } }
    }
  }

  expect "5m" {
    writes {
      verb     = "delete"
      kind     = "ClusterObjectSet"
      identity = "statecraft"
      count    = 2
    }
  }
  expect "5m" {
    object = "ClusterObjectSet/web-2"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectSet/web-3"
    state  = "Archived"
    fields = { "metadata.deletionTimestamp" = null }
  }
  expect "5m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 4 }
  }
  expect "5m" {
    object = "ClusterObjectSet/web-1"
    fields = { "metadata.finalizers.0" = "test.statecraft.dev/hold" }
  }
}
