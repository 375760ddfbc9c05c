# A nightly deploy freeze (deployfreeze.hcl) over three Deployments: web is
# frozen from 02:00 to 04:00 each night, api has no freeze, batch has a
# schedule that is not one until someone fixes it.
scenario "nightly deploy freeze" {
  rules   = ["deployfreeze.hcl"]
  run_for = "1d5h"
  objects = ["deployments.yaml"]

  expect "1m" {
    object = "Deployment/shop/web"
    state  = "Open"
    reason = "Scheduled"
    fields = { "spec.paused" = null }
  }
  # api rests in Unscheduled without a write: not even a memory.
  expect "1m" {
    object = "Deployment/shop/api"
    fields = { "metadata.annotations" = null }
  }
  expect "1m" {
    object = "Deployment/shop/batch"
    state  = "Invalid"
    reason = "InvalidSchedule"
  }

  # At 02:00 the freeze pauses web.
  expect "2h" {
    object = "Deployment/shop/web"
    state  = "Frozen"
    reason = "FreezeStarted"
    fields = { "spec.paused" = true, "memory.pausedByFreeze" = true, "memory.frozenUntil" = "2026-01-01T04:00:00Z" }
  }
  expect "1h59m" {
    object = "Deployment/shop/web"
    state  = "Open"
  }

  # A new image during the freeze waits; unpausing it does not hold.
  at "2h30m" {
    patch "Deployment/shop/web" {
      merge = { spec = { template = { spec = { containers = [{ name = "web", image = "nginx:1.28" }] } } } }
    }
  }
  at "3h" {
    as = "alice"
    patch "Deployment/shop/web" {
      merge = { spec = { paused = false } }
    }
  }
  expect "3h" {
    object = "Deployment/shop/web"
    state  = "Frozen"
    reason = "FreezeEnforced"
    fields = { "spec.paused" = true }
  }

  # At 04:00 it ends: the rollout it paused resumes.
  expect "3h59m" {
    object = "Deployment/shop/web"
    state  = "Frozen"
    fields = { "spec.paused" = true }
  }
  expect "4h" {
    object = "Deployment/shop/web"
    state  = "Open"
    reason = "FreezeEnded"
    fields = { "spec.paused" = null, "memory.pausedByFreeze" = null }
  }

  # batch's schedule fixed: it is scheduled, and frozen the next night.
  at "5h" {
    patch "Deployment/shop/batch" {
      merge = { metadata = { annotations = { "freeze.statecraft.dev/schedule" = "30 1 * * *", "freeze.statecraft.dev/duration" = "1h" } } }
    }
  }
  expect "5h" {
    object = "Deployment/shop/batch"
    state  = "Open"
    reason = "Scheduled"
  }
  expect "1d1h30m" {
    object = "Deployment/shop/batch"
    state  = "Frozen"
    fields = { "spec.paused" = true }
  }
  expect "1d2h30m" {
    object = "Deployment/shop/batch"
    state  = "Open"
    fields = { "spec.paused" = null }
  }

  # A person pauses web before the next freeze: it stays paused after it.
  at "1d1h" {
    as = "alice"
    patch "Deployment/shop/web" {
      merge = { spec = { paused = true } }
    }
  }
  expect "1d2h" {
    object = "Deployment/shop/web"
    state  = "Frozen"
    reason = "AlreadyPaused"
    fields = { "memory.pausedByFreeze" = false }
  }
  expect "1d4h" {
    object = "Deployment/shop/web"
    state  = "Open"
    reason = "FreezeEnded"
    fields = { "spec.paused" = true }
  }

  # Patches of web: its memory at each change (6), the pause, the pause
  # again after alice and the resume of the first night (3); of batch: its
  # memory (4), one pause and one resume. None of api.
  expect "1d5h" {
    writes {
      verb     = "patch"
      kind     = "Deployment"
      identity = "statecraft"
      count    = 15
    }
  }
}
