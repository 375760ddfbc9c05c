# Deploy freeze: during its maintenance windows a Deployment's rollouts are
# held back, and resumed when the window closes. A lifecycle a platform
# team writes for a built-in kind, in HCL only: no Go was added for it.
#
# A Deployment opts in with two annotations:
#   freeze.statecraft.dev/schedule  when freezes start, as a CronJob schedule
#                                   ("0 22 * * 5", "CRON_TZ=Europe/Berlin 0 2 * * *")
#   freeze.statecraft.dev/duration  how long each lasts (a Go duration; default
#                                   the param default_duration)
# While a freeze is on the machine pauses the Deployment (spec.paused), so a
# new pod template waits; a person who unpauses it during the freeze sees it
# paused again. When the freeze ends the machine resumes the rollout it
# paused, and leaves paused a Deployment someone else had paused.
#
# A Deployment's status belongs to the deployment controller (the API server
# prunes fields it does not know), so the machine keeps its memory in an
# annotation of the Deployment.
machine "deployfreeze" {
  description = "Pause a Deployment's rollouts during the maintenance windows its annotations name."
  memory      = annotation
  memory_key  = "freeze.statecraft.dev/memory"

  resource "apps/v1" "Deployment" {
    scope = Namespaced
  }

  param "default_duration" {
    type    = duration
    default = "2h"
    valid   = "value > duration('0s')"
  }

  let "schedule" {
    value = "self.metadata.?annotations[?'freeze.statecraft.dev/schedule'].orValue('')"
  }
  let "duration_text" {
    value = "self.metadata.?annotations[?'freeze.statecraft.dev/duration'].orValue('')"
  }
  let "settings_error" {
    value = <<-CEL
      !cron.valid(schedule) ? 'freeze.statecraft.dev/schedule ' + schedule + ' is not a cron schedule' :
      duration_text != '' && !duration_text.matches('^([0-9]+(ms|s|m|h))+$') ? 'freeze.statecraft.dev/duration ' + duration_text + ' is not a duration' :
      duration_text != '' && duration(duration_text) <= duration('0s') ? 'freeze.statecraft.dev/duration must be positive' : ''
    CEL
  }
  let "length" {
    value = "duration_text != '' ? duration(duration_text) : param.default_duration"
  }
  # A freeze is on: valid settings, inside a window.
  let "freezing" {
    value = "schedule != '' && settings_error == '' && cron.open(schedule, length, now)"
  }
  let "paused" {
    value = "self.spec.?paused.orValue(false)"
  }

  state "Unscheduled" {
    initial = true
  }
  state "Open" {
    recheck = "cron.next(schedule, now)"
  }
  state "Frozen" {
    recheck = "cron.prev(schedule, now) + length"
  }
  state "Invalid" {}

  # ---- Settings. ----

  transition "unscheduled" {
    from   = [Open, Invalid]
    when   = "schedule == ''"
    to     = Unscheduled
    reason = Unscheduled
  }
  transition "invalid settings" {
    from    = [Unscheduled, Open, Invalid]
    when    = "schedule != '' && settings_error != ''"
    to      = Invalid
    reason  = InvalidSchedule
    message = "settings_error"
  }

  # ---- A freeze starts: pause the rollout (unless someone already has). ----

  transition "freeze" {
    from = [Unscheduled, Open, Invalid]
    when = "freezing"
    do "pause" {
      verb   = patch
      target = "ref(self)"
      body   = "{'spec': {'paused': true}}"
      when   = "!paused"
    }
    do "announce" {
      verb    = event
      reason  = FreezeStarted
      message = "'rollouts are paused until ' + string(cron.prev(schedule, now) + length)"
    }
    to      = Frozen
    reason  = "paused ? 'AlreadyPaused' : 'FreezeStarted'"
    reasons = [FreezeStarted, AlreadyPaused]
    message = "'frozen by ' + schedule + ' for ' + string(length)"
    set     = { pausedByFreeze = "!paused", frozenUntil = "cron.prev(schedule, now) + length" }
    on "pause" "*" {
      to     = Open
      reason = PauseFailed
      set    = {}
      after  = "duration('1m')"
    }
  }

  # A person unpaused a rollout the freeze paused: pause it again.
  transition "enforce" {
    from = [Frozen]
    when = "freezing && status.?pausedByFreeze.orValue(false) && !paused"
    do "pause" {
      verb   = patch
      target = "ref(self)"
      body   = "{'spec': {'paused': true}}"
    }
    to     = Frozen
    reason = FreezeEnforced
    after  = "duration('10s')" # look again soon: a pause that did not hold is tried again
    on "pause" "*" {
      reason = PauseFailed
      after  = "duration('1m')"
    }
  }

  # ---- The freeze ends (or its settings go): resume what it paused. ----

  transition "thaw" {
    from = [Frozen]
    when = "!freezing"
    do "resume" {
      verb   = patch
      target = "ref(self)"
      body   = "{'spec': {'paused': null}}" # unpaused: the field goes, as the server stores false
      when   = "status.?pausedByFreeze.orValue(false) && paused"
    }
    do "announce" {
      verb    = event
      reason  = FreezeEnded
      message = "status.?pausedByFreeze.orValue(false) ? 'rollouts are resumed' : 'the freeze ended; the Deployment stays paused as it was'"
    }
    to      = Open
    reason  = FreezeEnded
    message = "schedule != '' && settings_error == '' ? 'the next freeze starts at ' + string(cron.next(schedule, now)) : 'the freeze settings are gone'"
    set     = { pausedByFreeze = "null", frozenUntil = "null" }
    on "resume" "*" {
      to     = Frozen
      reason = ResumeFailed
      set    = {}
      after  = "duration('1m')"
    }
  }

  transition "scheduled" {
    from    = [Unscheduled, Invalid]
    when    = "schedule != '' && settings_error == '' && !freezing"
    to      = Open
    reason  = Scheduled
    message = "'the next freeze starts at ' + string(cron.next(schedule, now))"
  }
}
