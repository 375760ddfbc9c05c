# A widget waits for its ConfigMap and is Ready once the map holds at least
# min_items keys; it rechecks every poll.
machine "widget" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  param "poll" {
    type    = duration
    default = "1m"
  }
  param "min_items" {
    type    = int
    default = 2
    valid   = "value >= 1"
  }
  observe "config" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'name': self.metadata.name}"
  }
  let "items" {
    value = "config.exists ? size(config.object.?data.orValue({})) : 0"
  }
  state "Waiting" {
    initial = true
    recheck = "param.poll"
  }
  state "Ready" {
    outcome    = Success
    conditions = { Ready = True }
    recheck    = "param.poll"
  }
  transition "become ready" {
    from   = [Waiting]
    when   = "config.exists && items >= param.min_items"
    to     = Ready
    reason = Ready
    set    = { items = "items", seen = "true" }

    # Label the map; a failure sends the widget back to wait.
    do "label" {
      verb   = patch
      target = "ref(config.object)"
      body   = "{'metadata': {'labels': {'ready': 'yes', 'by': 'widget'}}}"
    }
    on "label" "*" {
      to     = Waiting
      reason = LabelFailed
      after  = "param.poll"
    }
  }
  transition "not ready" {
    from   = [Ready]
    when   = "items < param.min_items"
    to     = Waiting
    reason = TooFew
    after  = "param.poll"
  }
}
