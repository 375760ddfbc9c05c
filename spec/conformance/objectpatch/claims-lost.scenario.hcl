# OP-107, OP-108, OP-112 after apply: a patch that was Applied loses its
# claim when an older patch's spec comes to claim the same field, from
# Applied and from NeedsUpdate alike. second's label tier drifts at 1m
# (found at 5m, repair due at 10m). At 6m first, the oldest, is edited to
# set labels tier and team as well, to the values the others want (so
# their targets match again): third, Applied, loses team at its next check
# (10m); second loses tier at its deadline (10m), without the deadline.
scenario "an applied patch loses its claim" {
  rules   = ["objectpatch"]
  run_for = "20m"
  objects = ["namespace.yaml", "deployment.yaml", "claims-lost.yaml"]

  at "1m" {
    patch "Deployment/patches-demo/application" {
      merge = { metadata = { labels = { tier = "edited" } } }
    }
  }
  expect "5m" {
    object = "ObjectPatch/patches-demo/second"
    state  = "NeedsUpdate"
    fields = { "status.nextDriftRetryTime" = "2026-01-01T00:10:00Z" }
  }
  at "6m" {
    patch "ObjectPatch/patches-demo/first" {
      merge = { spec = { patch = { metadata = { labels = { owner = "1", tier = "2", team = "3" } } } } }
    }
  }
  expect "6m" {
    object = "ObjectPatch/patches-demo/first"
    state  = "Applied"
  }
  expect "9m59s" {
    object = "ObjectPatch/patches-demo/third"
    state  = "Applied"
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/third"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
  }
  expect "10m" {
    object = "ObjectPatch/patches-demo/second"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = { "status.nextDriftRetryTime" = null }
  }
  expect "10m" {
    object = "Deployment/patches-demo/application"
    fields = { "metadata.labels.tier" = "2", "metadata.labels.team" = "3" }
  }

  # The reapply annotation on third, still losing: accepted (and cleared),
  # and the new cycle finds the claim still lost.
  at "11m" {
    patch "ObjectPatch/patches-demo/third" {
      merge = { metadata = { annotations = { "automation.kubex.ai/apply-patch" = "true" } } }
    }
  }
  expect "11m" {
    object = "ObjectPatch/patches-demo/third"
    state  = "Error"
    reason = "TargetAlreadyClaimed"
    fields = { "metadata.annotations.automation\\.kubex\\.ai/apply-patch" = null }
  }
}
