# Params, observations and lets no expression reads.
machine "m" {
  resource "example.com/v1" "Widget" {
    scope = Namespaced
  }
  param "poll" {
    type    = duration
    default = "1m"
  }
  param "spare" { # WARNING: Unused param
    type    = int
    default = 3
  }
  observe "config" {
    get = "{'apiVersion': 'v1', 'kind': 'ConfigMap', 'namespace': self.metadata.namespace, 'name': self.metadata.name}"
  }
  observe "secret" { # WARNING: Unused observation
    get = "{'apiVersion': 'v1', 'kind': 'Secret', 'namespace': self.metadata.namespace, 'name': self.metadata.name}"
  }
  let "keys" {
    value = "config.exists ? config.object.data.map(k, k) : []"
  }
  let "count" { # WARNING: Unused let
    value = "size(keys)"
  }
  let "shadowed" { # WARNING: Unused let
    value = "1"
  }
  state "Waiting" {
    initial = true
  }
  state "Ready" {
    final = true
  }
  transition "ready" {
    from = [Waiting]
    when = "[1, 2].exists(shadowed, shadowed > 1) && keys.exists(config, config == 'x')"
    to   = Ready
  }
  transition "wait" {
    from  = [Waiting]
    to    = Waiting
    after = "param.poll"
  }
}
