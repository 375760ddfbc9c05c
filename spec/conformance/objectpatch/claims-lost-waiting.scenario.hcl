# OP-112, OP-57, OP-66: a patch waiting in NeedsUpdate loses its claim to an
# older patch's spec edit, and the target keeps the winner's values (they
# differ from the losers', so the targets stay drifted). At 1m labels tier
# and team are edited: at 5m second (spec.drift) finds the drift and waits
# for its repair deadline (10m); third (report-only) reports it, with no
# deadline, rechecked every requeueInterval. At 6m first, the oldest, comes
# to claim tier and team, with values of its own. A patch with no deadline
# lists its claimants at every check: third loses at its 10m check. A patch
# waiting for its deadline lists them again at the deadline itself (not only
# after it): second loses at 10m, straight from NeedsUpdate, in one status
# write, without starting the repair (no Pending, no patch of the target).
# Reads of the Deployment are Forbidden from 9m to 10m30s: at 10m both
# report the lost claim, TargetAlreadyClaimed, not TargetAccessDenied (a
# loser is a loser whatever its target does, and rechecks its claim). At 15m both recheck their claim, requeueInterval
# after they lost, and find it still lost: they stay in Error without a
# status write (no detour through Pending, whose "no accepted claimant
# conflicts any more" would be false).
scenario "a waiting patch loses its claim" {
  rules   = ["objectpatch"]
  run_for = "16m"
  objects = ["namespace.yaml", "deployment.yaml", "claims-lost-waiting.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { tier = "edited", team = "edited" } } }
    }
  }
  at "6m" {
    patch "ObjectPatch/patches-demo/first" {
      merge = { spec = { patch = { metadata = { labels = { owner = "1", tier = "1", team = "1" } } } } }
    }
  }
  at "9m" {
    deny {
      identity = ""
      verb     = "get"
      kind     = "Deployment"
    }
  }
  at "10m30s" {
    allow_all = true
  }
  expect "9m59s" {
    object = "ObjectPatch/patches-demo/second"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  expect "9m59s" {
    object = "ObjectPatch/patches-demo/third"
    state  = "NeedsUpdate"
    reason = "Drifted"
    fields = { "status.nextDriftRetryTime" = null }
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/second"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = { "status.nextDriftRetryTime" = null, "status.driftRetryCount" = 1 }
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/third"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  expect "10m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.tier" = "1", "metadata.labels.team" = "1" }
  }
  # The engine's status writes: three at the start, two at 5m, one at 6m
  # (first), and one each for second and third at 10m.
  expect "10m" {
    writes {
      verb     = "status"
      kind     = "ObjectPatch"
      identity = "statecraft"
      count    = 8
    }
  }
  # Live patches of the target: the three at the start and first's at 6m.
  expect "10m" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      dry_run  = false
      count    = 4
    }
  }
  expect "15m" {
    object = "ObjectPatch/patches-demo/third"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  expect "15m" {
    writes {
      verb     = "status"
      kind     = "ObjectPatch"
      identity = "statecraft"
      count    = 8
    }
  }
}
