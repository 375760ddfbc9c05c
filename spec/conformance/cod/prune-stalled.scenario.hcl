# COD-88 COD-90 COD-91: history is pruned in every state a rollout can stall
# in, not only while progressing, collided (prune-collision) or done. Six
# CODs each adopt an ownerless archived revision (<name>-1, its teardown
# done) and keep it under revisionHistoryLimit 1, resting in RevisionPreconditionsNotMet
# (pre), InvalidSpecification (inv), OwnerConflict (own),
# UnmanagedRevision (unm), RevisionInvalidSpecification (rinv) and
# RevisionNumberExhausted (exh). At 5m each limit is lowered to 0: each COD,
# still stalled, deletes its archived revision and keeps its state.
scenario "history pruned in every stalled state" {
  rules   = ["clusterobjectdeployment", "clusterobjectset"]
  run_for = "10m"
  objects = ["prune-stalled-objects.yaml"]

  expect "4m" {
    object = "ClusterObjectDeployment/pre"
    state  = "RevisionPreconditionsNotMet"
  }
  expect "4m" {
    object = "ClusterObjectSet/pre-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "pre" }
  }

  expect "4m" {
    object = "ClusterObjectDeployment/inv"
    state  = "InvalidSpecification"
  }
  expect "4m" {
    object = "ClusterObjectSet/inv-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "inv" }
  }

  expect "4m" {
    object = "ClusterObjectDeployment/own"
    state  = "OwnerConflict"
  }
  expect "4m" {
    object = "ClusterObjectSet/own-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "own" }
  }

  expect "4m" {
    object = "ClusterObjectDeployment/unm"
    state  = "UnmanagedRevision"
  }
  expect "4m" {
    object = "ClusterObjectSet/unm-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "unm" }
  }

  expect "4m" {
    object = "ClusterObjectDeployment/rinv"
    state  = "RevisionInvalidSpecification"
  }
  expect "4m" {
    object = "ClusterObjectSet/rinv-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "rinv" }
  }

  expect "4m" {
    object = "ClusterObjectDeployment/exh"
    state  = "RevisionNumberExhausted"
  }
  expect "4m" {
    object = "ClusterObjectSet/exh-1"
    state  = "Archived"
    fields = { "metadata.ownerReferences.0.name" = "exh" }
  }

  at "5m" {
    patch "ClusterObjectDeployment/pre" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
    patch "ClusterObjectDeployment/inv" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
    patch "ClusterObjectDeployment/own" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
    patch "ClusterObjectDeployment/unm" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
    patch "ClusterObjectDeployment/rinv" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
    patch "ClusterObjectDeployment/exh" {
      merge = { spec = { revisionHistoryLimit = 0 } }
    }
  }

  expect "5m" {
    object = "ClusterObjectSet/pre-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/pre"
    state  = "RevisionPreconditionsNotMet"
  }

  expect "5m" {
    object = "ClusterObjectSet/inv-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/inv"
    state  = "InvalidSpecification"
  }

  expect "5m" {
    object = "ClusterObjectSet/own-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/own"
    state  = "OwnerConflict"
  }

  expect "5m" {
    object = "ClusterObjectSet/unm-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/unm"
    state  = "UnmanagedRevision"
  }

  expect "5m" {
    object = "ClusterObjectSet/rinv-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/rinv"
    state  = "RevisionInvalidSpecification"
  }

  expect "5m" {
    object = "ClusterObjectSet/exh-1"
    absent = true
  }
  expect "5m" {
    object = "ClusterObjectDeployment/exh"
    state  = "RevisionNumberExhausted"
  }

  expect "10m" {
    writes {
      verb  = "delete"
      kind  = "ClusterObjectSet"
      count = 6
    }
  }
}
