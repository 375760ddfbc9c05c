# A small valid machine using every block kind.
machine "widget" {
  description = "A widget that becomes Ready once its config map exists."
  max_steps   = 8

  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }

  param "poll" {
    type     = duration
    default  = "1m"
    override = "spec.poll"
    valid    = "value >= duration('1s')"
  }

  observe "config" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'name': self.metadata.name}"
  }

  let "ready" {
    value = "config.exists && has(config.object.data)"
  }

  state "Waiting" {
    initial    = true
    conditions = { Ready = False }
  }
  state "Ready" {
    outcome    = Success
    final      = true
    conditions = { Ready = True }
  }

  transition "become ready" {
    from = [Waiting]
    when = "ready"
    do "label" {
      verb   = patch
      target = "ref(config.object)"
      body   = <<-CEL
        {'metadata': {'labels': {'widget': self.metadata.name}}}
      CEL
    }
    to     = Ready
    reason = Ready
    set    = { readySince = "now", "counters.ready" = "status.?counters.ready.orValue(0) + 1" }
    on "*" "*" {
      to     = Waiting
      reason = Retrying
      after  = "param.poll"
    }
  }

  transition "wait" {
    from   = [Waiting]
    to     = Waiting
    reason = NotReady
    after  = "param.poll"
  }
}
