# A small machine with most of the language, a seed for FuzzLoadCompile:
# params of each type, observations, lets, states with conditions, rechecks
# and jitter, actions with for_each, identity and expect, routes with guards.
machine "fuzz" {
  max_steps = 8

  resource "example.com/v1" "Gadget" {
    scope = Namespaced
  }

  param "poll" {
    type     = duration
    default  = "1m"
    override = "spec.poll"
    valid    = "value > duration('0s')"
    reason   = InvalidSpec
  }
  param "tries" {
    type    = int
    default = 3
    valid   = "value >= 0"
  }
  param "owner" {
    type    = string
    default = "gadget"
  }
  param "strict" {
    type    = bool
    default = false
  }

  observe "maps" {
    list = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'labelSelector': 'app=' + self.metadata.name}"
    when = "!param.strict || has(self.spec.poll)"
  }

  let "count" {
    value = "int(status.?count.orValue(0))"
  }
  let "unlabelled" {
    value = "maps.items.filter(m, !has(m.metadata.labels) || m.metadata.labels[?'owner'].orValue('') != param.owner)"
  }

  state "Idle" {
    initial    = true
    conditions = { Ready = False }
    recheck    = "param.poll"
    jitter     = "duration('5s')"
  }
  state "Done" {
    outcome    = Success
    conditions = { Ready = True }
    set        = { count = "0" }
  }
  state "Failed" {
    outcome = Failure
    final   = true
  }

  transition "label" {
    from = [Idle]
    when = "size(unlabelled) > 0 && count < param.tries"
    do "mark" {
      verb     = patch
      for_each = "unlabelled"
      target   = "ref(item)"
      body     = "{'metadata': {'labels': {'owner': param.owner, 'index': string(index)}}}"
      identity = "'system:serviceaccount:default:' + param.owner"
      expect   = "result.metadata.labels['owner'] == param.owner"
    }
    to     = Done
    reason = Labelled
    on "mark" "not_retained" {
      to     = Failed
      reason = NotRetained
    }
    on "*" "*" {
      when   = "count + 1 < param.tries"
      to     = Idle
      reason = Retrying
      set    = { count = "count + 1" }
      after  = "backoff(duration('1s'), count, param.poll)"
    }
    on "*" "*" {
      to     = Failed
      reason = GaveUp
      message = "'gave up after ' + string(count + 1) + ' tries: ' + last.message"
    }
  }
  transition "reset" {
    from   = ["*"]
    when   = "self.metadata.generation != status.?observedGeneration.orValue(0)"
    to     = Idle
    reason = Reset
    at     = "now + param.poll"
  }

  property "settles" {
    eventually     = [Done, Failed]
    except_reasons = [Retrying]
  }
}
