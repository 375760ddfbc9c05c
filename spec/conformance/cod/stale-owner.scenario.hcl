# A stale controller reference to an older uid of the same COD is not
# rewritten and not adopted: it is the garbage collector's. The collector
# finds the owner it names gone (a COD web of another uid) and deletes the
# member within a second; a finalizer holds the member, deleting, and the
# COD, which counts no deleting revision, creates its own revision, web-2.
# When the finalizer goes, the member and its objects are collected.
scenario "stale owner reference" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "20m"
  objects = ["stale-owner.yaml", "web-cod.yaml"]

  # Before the collector acts: no revision, no reason of its own (COD-47),
  # the member and the uid it names in the message.
  expect "0s" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressing"
    fields = {
      "status.conditions[Progressing].status"  = "True"
      "status.conditions[Progressing].reason"  = "NewClusterObjectSetProgressing"
      "status.conditions[Progressing].message" = "waiting for garbage collection of ClusterObjectSet web-1, controlled by an earlier ClusterObjectDeployment web (uid uid-of-an-earlier-web)"
    }
  }
  expect "0s" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 0
    }
  }
  expect "1m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 2 }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-1"
    fields = {
      "metadata.ownerReferences.0.uid" = "uid-of-an-earlier-web"
      "metadata.ownerReferences.1"     = null
      "metadata.deletionTimestamp"     = "2026-01-01T00:00:01Z"
    }
  }
  expect "1m" {
    object = "ClusterObjectSet/web-2"
    state  = "Ready"
  }
  expect "4m" {
    writes {
      verb  = "create"
      kind  = "ClusterObjectSet"
      count = 1
    }
  }

  # The member's finalizer is released: garbage collection completes.
  at "5m" {
    patch "ClusterObjectSet/web-1" {
      merge = { metadata = { finalizers = null } }
    }
  }

  expect "11m" {
    object = "ClusterObjectDeployment/web"
    state  = "Progressed"
    fields = { "status.latestRevision" = 2 }
  }
  expect "11m" {
    object = "ClusterObjectSet/web-1"
    absent = true
  }
  expect "11m" {
    object = "ConfigMap/default/stale-a"
    absent = true
  }
}
